/**
 * A portal's token bucket on one route (`ratelimit#<operation id>` in its partition), holding the one
 * number the generic cell rate algorithm needs: when the bucket is full again (`bucketFullAt`,
 * epoch ms), and the expiry that removes it once it is. Conditional UpdateItems, so concurrent
 * requests never share a token. A failed condition answers the item as it was
 * (ReturnValuesOnConditionCheckFailure ALL_OLD: Amazon DynamoDB API Reference, "UpdateItem"),
 * which is how a refusal knows when the next token comes. The policy is
 * shared/http/middleware/portal-rate-limit.ts's.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BUCKET_FULL_AT_ATTRIBUTE, EXPIRY_ATTRIBUTE, rateLimitKeyOf, type RecordTable } from './table';

const NAMES = { '#fullAt': BUCKET_FULL_AT_ATTRIBUTE, '#expiry': EXPIRY_ATTRIBUTE };

/** One conditional write of the bucket: 'taken', or when it is full again as it stood (undefined: no such item). */
async function write(table: RecordTable, portalId: string, operationId: string, expression: string, condition: string, values: Record<string, number>): Promise<'taken' | { fullAt: number | undefined }> {
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId, sk: rateLimitKeyOf(operationId) },
        UpdateExpression: expression,
        ConditionExpression: condition,
        ExpressionAttributeNames: NAMES,
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'taken';
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const fullAt = Number((error.Item?.[BUCKET_FULL_AT_ATTRIBUTE] as { N?: string } | undefined)?.N);
    return { fullAt: Number.isFinite(fullAt) ? fullAt : undefined };
  }
}

/** A token of a full bucket (no item, or its moment passed): the bucket is full again one interval after `now`. */
export const takeFromFullBucket = (table: RecordTable, portalId: string, operationId: string, now: number, intervalMs: number, expiry: number) =>
  write(table, portalId, operationId, 'SET #fullAt = :next, #expiry = :expiry', 'attribute_not_exists(#fullAt) OR #fullAt <= :now', { ':next': now + intervalMs, ':expiry': expiry, ':now': now });

/** A token of a bucket some of whose tokens are spent, while one is left (its moment at most `latest`): the moment one interval on. */
export const takeFromBucket = (table: RecordTable, portalId: string, operationId: string, now: number, latest: number, intervalMs: number, expiry: number) =>
  write(table, portalId, operationId, 'SET #fullAt = #fullAt + :interval, #expiry = :expiry', '#fullAt > :now AND #fullAt <= :latest', { ':interval': intervalMs, ':expiry': expiry, ':now': now, ':latest': latest });
