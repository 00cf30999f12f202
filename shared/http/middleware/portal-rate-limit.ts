/**
 * The per-portal limit on the routes that make AWS calls (the operations table's `limitedPerPortal`
 * or `portalBudget`): a token bucket per portal and route, `burst` requests at once, then
 * `ratePerMinute` a minute. A refused request is answered 429 with Retry-After, before the
 * operation runs, so it makes no SNS call. Every answer given once the bucket was consulted (200,
 * a 400 or 429 of the operation, a 503) says the bucket's state in the RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset headers of draft-ietf-httpapi-ratelimit-headers-06
 * (https://datatracker.ietf.org/doc/html/draft-ietf-httpapi-ratelimit-headers-06).
 *
 * The bucket is one item in the portal's partition (shared/data/rate-limit-buckets.ts): when it is
 * full again. A request takes a token when that moment is at most (burst - 1) intervals ahead, and
 * moves it one interval on: a caller whose bucket is full (the usual case for a person) costs one
 * write; one that has spent some of it costs two (the first finds the bucket not full); a refused
 * one two.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { takeToken } from '../../data/rate-limit-buckets';
import type { Operation } from '../../operations';
import { TooSoonError } from '../../refusal-error';
import type { HttpMiddleware, PortalBucket } from '../types';

/** The portal spent its tokens for this route: try again at `retryAt`. */
export class PortalRateLimitedError extends TooSoonError {
  override readonly name = 'PortalRateLimitedError';
  readonly code = 'RATE_LIMITED';
  constructor(
    readonly route: string,
    readonly limit: { burst: number; ratePerMinute: number },
    readonly retryAt: Date,
    /** The bucket as the refusal found it, for the answer's RateLimit-* headers. */
    readonly bucket: PortalBucket,
  ) {
    super(
      `This portal sends ${route} faster than its limit (${limit.burst} at once, then ${limit.ratePerMinute} a minute); ` +
        `send it again after ${retryAt.toISOString().replace(/\.\d{3}Z$/, 'Z')} (Retry-After says in how many seconds).`,
    );
  }
}

export interface PortalRateLimitOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  operation: Operation;
  burst: number;
  ratePerMinute: number;
}

/** How many times a take that met a bucket changing under it looks again (a full bucket cannot refuse). */
const TAKE_ATTEMPTS = 3;

export function portalRateLimit(options: PortalRateLimitOptions): HttpMiddleware {
  const take = tokenTaker(options);
  return {
    name: 'portalRateLimit',
    before: async (request) => {
      try {
        request.context.portalBucket = await take(request.context.portalId);
      } catch (error) {
        if (error instanceof PortalRateLimitedError) request.context.portalBucket = error.bucket;
        throw error;
      }
    },
  };
}

/**
 * The RateLimit-* headers of the bucket at `now` (draft-ietf-httpapi-ratelimit-headers-06, sections
 * 5.1-5.3): Limit, the burst; Remaining, the tokens a request could take now; Reset, the seconds
 * (rounded up) until the bucket is full again, Limit tokens. A refused request's Remaining is 0, and
 * its Retry-After (the next token) is at most its Reset.
 */
export function rateLimitHeadersOf({ burst, intervalMs, fullAt }: PortalBucket, now: number): Record<string, string> {
  // The tokens left: the whole intervals between the moment the bucket is full and now's tolerance
  // (burst - 1 intervals ahead), plus one; the epsilon keeps 2.9999999 (intervals of 60000/7 ms) a 3.
  const left = Math.floor((now - fullAt) / intervalMs + burst - 1 + 1e-9) + 1;
  return {
    'ratelimit-limit': String(burst),
    'ratelimit-remaining': String(Math.min(burst, Math.max(0, left))),
    'ratelimit-reset': String(Math.max(0, Math.ceil((fullAt - now) / 1000))),
  };
}

/**
 * Adds the RateLimit-* headers to every answer of a request whose bucket was consulted: used ahead
 * of the error envelope in the chain, so it sees the envelope's answers too (middy runs `after` and
 * `onError` in reverse order). An answer refused before (its body, its token's portal claim) has none.
 */
export const rateLimitHeaders: HttpMiddleware = {
  name: 'rateLimitHeaders',
  after: addRateLimitHeaders,
  onError: addRateLimitHeaders,
};

function addRateLimitHeaders(request: Parameters<NonNullable<HttpMiddleware['after']>>[0]): void {
  const bucket = request.context.portalBucket;
  if (bucket === undefined || request.response === undefined || request.response === null) return;
  request.response.headers = { ...request.response.headers, ...rateLimitHeadersOf(bucket, Date.now()) };
}

/** Takes one token of the portal's bucket for the route (answering the bucket after it), or throws PortalRateLimitedError. */
export function tokenTaker({ client, tableName, operation, burst, ratePerMinute }: PortalRateLimitOptions): (portalId: string) => Promise<PortalBucket> {
  const intervalMs = 60_000 / ratePerMinute;
  // How far ahead `bucketFullAt` may be for one token to be left.
  const toleranceMs = (burst - 1) * intervalMs;
  const route = `${operation.method} .../subscriptions${operation.subPath}`;
  const table = { db: client, tableName };
  const bucketFullAt = (fullAt: number): PortalBucket => ({ burst, intervalMs, fullAt });
  const refused = (fullAt: number) => new PortalRateLimitedError(route, { burst, ratePerMinute }, new Date(fullAt - toleranceMs), bucketFullAt(fullAt));

  return async (portalId) => {
    // Gone (TTL) once the bucket is full again; expired items DynamoDB has not deleted yet are full buckets too.
    const expiryAfter = (now: number) => Math.ceil((now + toleranceMs + intervalMs) / 1000) + 60;
    for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
      let now = Date.now();
      let expiry = expiryAfter(now);
      // A full bucket (no item, or its moment passed): one token taken.
      const fromFull = await takeToken(table, portalId, operation.id, now, intervalMs, expiry);
      if (fromFull.taken) return bucketFullAt(fromFull.fullAt ?? now + intervalMs);
      // The clock read again: the take that emptied the bucket's "full" moment may have read it after
      // we did (a concurrent burst, a slow call), and our older `now` would count one token fewer.
      now = Date.now();
      expiry = expiryAfter(now);
      // Some tokens spent: one more, while one is left.
      const taken = await takeToken(table, portalId, operation.id, now, intervalMs, expiry, now + toleranceMs);
      if (taken.taken) return bucketFullAt(taken.fullAt ?? now + toleranceMs + intervalMs);
      // Refused: a token comes back when the bucket is within tolerance of full again.
      if (taken.fullAt !== undefined && taken.fullAt > now + toleranceMs) throw refused(taken.fullAt);
      // The bucket filled up meanwhile: take again.
    }
    // Always changing under us: as busy as can be.
    throw refused(Date.now() + intervalMs + toleranceMs);
  };
}
