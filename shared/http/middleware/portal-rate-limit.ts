/**
 * The per-portal limit on the routes that make SNS send (the operations table's
 * `limitedPerPortal`): a token bucket per portal and route, `burst` requests at once, then
 * `ratePerMinute` a minute. A refused request is answered 429 with Retry-After, before the
 * operation runs, so it makes no SNS call.
 *
 * The bucket is one item in the portal's partition (rateLimitKeyOf), holding the one number the
 * generic cell rate algorithm needs: when the bucket is full again (`bucketFullAt`, epoch ms).
 * A request takes a token when that moment is at most (burst - 1) intervals ahead, and moves
 * it one interval on. Conditional UpdateItems, so concurrent requests never share a token: a
 * caller whose bucket is full (the usual case for a person) costs one; one that has spent some
 * of it costs two (the first finds the bucket not full); a refused one two. A failed condition
 * answers the item as it was (ReturnValuesOnConditionCheckFailure ALL_OLD: Amazon DynamoDB API
 * Reference, "UpdateItem"), which is how a refusal knows when the next token comes.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Operation } from '../../operations';
import { TooSoonError } from '../../refusal-error';
import { BUCKET_FULL_AT_ATTRIBUTE, EXPIRY_ATTRIBUTE, rateLimitKeyOf, TABLE_KEYS } from '../../subscriptions/table';
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
  const names = { '#fullAt': BUCKET_FULL_AT_ATTRIBUTE, '#expiry': EXPIRY_ATTRIBUTE };
  const update = (portalId: string, expression: string, condition: string, values: Record<string, number>) =>
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { [TABLE_KEYS.partitionKey]: portalId, [TABLE_KEYS.sortKey]: rateLimitKeyOf(operation.id) },
        UpdateExpression: expression,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );

  return async (portalId) => {
    // Gone (TTL) once the bucket is full again; expired items DynamoDB has not deleted yet are full buckets too.
    const expiryAfter = (now: number) => Math.ceil((now + toleranceMs + intervalMs) / 1000) + 60;
    for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
      let now = Date.now();
      let expiry = expiryAfter(now);
      try {
        // A full bucket (no item, or its moment passed): one token taken.
        await update(portalId, 'SET #fullAt = :next, #expiry = :expiry', 'attribute_not_exists(#fullAt) OR #fullAt <= :now', {
          ':next': now + intervalMs,
          ':expiry': expiry,
          ':now': now,
        });
        return;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      // The clock read again: the take that emptied the bucket's "full" moment may have read it after
      // we did (a concurrent burst, a slow call), and our older `now` would count one token fewer.
      now = Date.now();
      expiry = expiryAfter(now);
      try {
        // Some tokens spent: one more, while one is left.
        await update(portalId, 'SET #fullAt = #fullAt + :interval, #expiry = :expiry', '#fullAt > :now AND #fullAt <= :latest', {
          ':interval': intervalMs,
          ':expiry': expiry,
          ':now': now,
          ':latest': now + toleranceMs,
        });
        return;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const fullAt = Number((error.Item?.[BUCKET_FULL_AT_ATTRIBUTE] as { N?: string } | undefined)?.N);
        // Refused: a token comes back when the bucket is within tolerance of full again.
        if (Number.isFinite(fullAt) && fullAt > now + toleranceMs) {
          throw new PortalRateLimitedError(route, { burst, ratePerMinute }, new Date(fullAt - toleranceMs));
        }
        // The bucket filled up meanwhile: take again.
      }
    }
    // Always changing under us: as busy as can be.
    throw new PortalRateLimitedError(route, { burst, ratePerMinute }, new Date(Date.now() + intervalMs));
  };
}
