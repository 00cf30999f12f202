/**
 * The per-portal limit on the routes that make SNS send (the operations table's
 * `limitedPerPortal`): a token bucket per portal and route, `burst` requests at once, then
 * `ratePerMinute` a minute. A refused request is answered 429 with Retry-After, before the
 * operation runs, so it makes no SNS call.
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
import type { HttpMiddleware } from '../types';

/** The portal spent its tokens for this route: try again at `retryAt`. */
export class PortalRateLimitedError extends TooSoonError {
  override readonly name = 'PortalRateLimitedError';
  readonly code = 'RATE_LIMITED';
  constructor(
    readonly route: string,
    readonly limit: { burst: number; ratePerMinute: number },
    readonly retryAt: Date,
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
      await take(request.context.portalId);
    },
  };
}

/** Takes one token of the portal's bucket for the route, or throws PortalRateLimitedError. */
export function tokenTaker({ client, tableName, operation, burst, ratePerMinute }: PortalRateLimitOptions): (portalId: string) => Promise<void> {
  const intervalMs = 60_000 / ratePerMinute;
  // How far ahead `bucketFullAt` may be for one token to be left.
  const toleranceMs = (burst - 1) * intervalMs;
  const route = `${operation.method} .../subscriptions${operation.subPath}`;
  const table = { db: client, tableName };

  return async (portalId) => {
    // Gone (TTL) once the bucket is full again; expired items DynamoDB has not deleted yet are full buckets too.
    const expiryAfter = (now: number) => Math.ceil((now + toleranceMs + intervalMs) / 1000) + 60;
    for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
      let now = Date.now();
      let expiry = expiryAfter(now);
      // A full bucket (no item, or its moment passed): one token taken.
      if ((await takeToken(table, portalId, operation.id, now, intervalMs, expiry)) === 'taken') return;
      // The clock read again: the take that emptied the bucket's "full" moment may have read it after
      // we did (a concurrent burst, a slow call), and our older `now` would count one token fewer.
      now = Date.now();
      expiry = expiryAfter(now);
      // Some tokens spent: one more, while one is left.
      const taken = await takeToken(table, portalId, operation.id, now, intervalMs, expiry, now + toleranceMs);
      if (taken === 'taken') return;
      // Refused: a token comes back when the bucket is within tolerance of full again.
      if (taken.fullAt !== undefined && taken.fullAt > now + toleranceMs) {
        throw new PortalRateLimitedError(route, { burst, ratePerMinute }, new Date(taken.fullAt - toleranceMs));
      }
      // The bucket filled up meanwhile: take again.
    }
    // Always changing under us: as busy as can be.
    throw new PortalRateLimitedError(route, { burst, ratePerMinute }, new Date(Date.now() + intervalMs));
  };
}
