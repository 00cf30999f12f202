/**
 * A portal's token bucket on one route (`ratelimit#<operation id>` in its partition), holding the one
 * number the generic cell rate algorithm needs: when the bucket is full again (`bucketFullAt`,
 * epoch ms), and the expiry that removes it once it is. Conditional UpdateItems, so concurrent
 * requests never share a token. A failed condition answers the item as it was
 * (ReturnValuesOnConditionCheckFailure ALL_OLD: Amazon DynamoDB API Reference, "UpdateItem"),
 * which is how a refusal knows when the next token comes; a take answers the moment it set
 * (ReturnValues UPDATED_NEW), which is how an answer says what is left. The policy is
 * shared/http/middleware/portal-rate-limit.ts's.
 */
import { ConditionalCheckFailedException, UpdateCommand } from './commands';
import { BUCKET_FULL_AT_ATTRIBUTE, EXPIRY_ATTRIBUTE, rateLimitKeyOf, type RecordTable } from './table';

/**
 * Takes a token: from a full bucket (no item, or its moment passed, `latest` undefined) the bucket is
 * full again one interval after `now`; from one some of whose tokens are spent, while one is left
 * (its moment at most `latest`), the moment moves one interval on. Whether it was taken, and when the
 * bucket is full again: after the take, or as it stood when refused (undefined: no such item).
 */
export async function takeToken(
  table: RecordTable,
  portalId: string,
  operationId: string,
  now: number,
  intervalMs: number,
  expiry: number,
  latest?: number,
): Promise<{ taken: boolean; fullAt: number | undefined }> {
  const full = latest === undefined;
  try {
    const { Attributes } = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId, sk: rateLimitKeyOf(operationId) },
        // The attributes by their names (neither is a reserved word): no placeholders to carry.
        UpdateExpression: `SET ${BUCKET_FULL_AT_ATTRIBUTE} = ${full ? ':now' : BUCKET_FULL_AT_ATTRIBUTE} + :interval, ${EXPIRY_ATTRIBUTE} = :expiry`,
        ConditionExpression: full
          ? `attribute_not_exists(${BUCKET_FULL_AT_ATTRIBUTE}) OR ${BUCKET_FULL_AT_ATTRIBUTE} <= :now`
          : `${BUCKET_FULL_AT_ATTRIBUTE} > :now AND ${BUCKET_FULL_AT_ATTRIBUTE} <= :latest`,
        ExpressionAttributeValues: { ':now': now, ':interval': intervalMs, ':expiry': expiry, ...(!full && { ':latest': latest }) },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { taken: true, fullAt: Attributes?.[BUCKET_FULL_AT_ATTRIBUTE] as number | undefined };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const fullAt = Number((error.Item?.[BUCKET_FULL_AT_ATTRIBUTE] as { N?: string } | undefined)?.N);
    return { taken: false, fullAt: Number.isFinite(fullAt) ? fullAt : undefined };
  }
}
