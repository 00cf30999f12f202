/**
 * Idempotent requests (an Idempotency-Key header): a lease taken with one conditional write on
 * the subscriptions table, the answer stored on success. Only operations that pass
 * `idempotentRuns(...)` to httpOperation import this module.
 *
 * - Key: the caller's portal (from the token) and the header's value, hashed (SHA-256). Two
 *   portals sending the same key never meet.
 * - Compared: the validated body (after trimming and normalizing, whatever its JSON formatting).
 *   The same key with another body is refused with a 400.
 * - Stored: one item per key in the partition `idempotency#<operation id>` of the table (sort
 *   key: `<operation id>#<hash>`), never in a portal's partition, so lists never see it. It
 *   expires after 24 hours (EXPIRY_ATTRIBUTE, the table's TTL attribute).
 * - Only successes are remembered: the run is made idempotent inside the error envelope, so a
 *   refusal (a 400) or a failure (a 5xx) frees the key for a retry instead of being replayed.
 * - A repeat that arrives while the first request still runs is answered 409, retry shortly.
 *   The first request's lease on the key lasts the function's remaining time, so a request
 *   that dies half-way holds its key only until the function's timeout.
 *
 * Our own rather than Powertools' idempotency utility: the service uses one path of it, and with
 * the JMESPath engine it loads it would be 37 KB, a twelfth of create's bundle
 * (docs/performance.md). The items have the layout that utility writes (attribute names,
 * hashes, statuses), so its records are honoured too, for their 24 hours.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { logger } from '../logger';
import type { OperationId } from '../operations';
import { EXPIRY_ATTRIBUTE, idempotencyPartitionOf, TABLE_KEYS } from '../subscriptions/table';
import { BadRequestError, ConflictError } from './errors';
import { idempotencyKey } from './middleware/idempotency-key';
import type { IdempotentRequest, IdempotentRuns, OperationResult } from './operation';

/** How long a key is remembered: 24 hours. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;

const IN_PROGRESS = 'INPROGRESS';
const COMPLETED = 'COMPLETED';

/** A record's attributes besides its key, as the expressions name them. */
const NAMES = {
  '#expiry': EXPIRY_ATTRIBUTE,
  '#status': 'status',
  // Epoch milliseconds until which the request that took the key holds it.
  '#lease': 'in_progress_expiration',
  '#data': 'data',
  '#validation': 'validation',
};

interface StoredRecord {
  status?: string;
  /** Epoch seconds. */
  [EXPIRY_ATTRIBUTE]?: number;
  /** The first answer as JSON text; a record holding it as an object is answered as well. */
  data?: string | OperationResult;
  /** Hash of the body the key was first used with. */
  validation?: string;
}

/** How many times a repeat looks again at a record that changed under it before answering 409. */
const TAKE_ATTEMPTS = 3;

export interface IdempotentRunsOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Names the records' partition and prefixes their keys. */
  operationId: OperationId;
  /**
   * What of the body the stored hash is taken over, when the body holds a secret: a hash of a
   * short password among known fields can be guessed back offline by whoever reads the table.
   * The whole body when unset.
   */
  comparedAs?: (body: unknown) => unknown;
}

export function idempotentRuns({ client, tableName, operationId, comparedAs = (body) => body }: IdempotentRunsOptions): IdempotentRuns {
  const partition = idempotencyPartitionOf(operationId);

  /**
   * Takes the key for this request ('taken': a new record, or one whose 24 hours or whose
   * holder's lease ran out); or, where another request holds or completed it, answers that
   * record as it is now (undefined if it vanished meanwhile: take again).
   */
  async function take(key: Record<string, string>, validation: string, leaseMs: number): Promise<StoredRecord | 'taken' | undefined> {
    const now = Date.now();
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...key,
            [EXPIRY_ATTRIBUTE]: Math.round(now / 1000) + IDEMPOTENCY_WINDOW_SECONDS,
            status: IN_PROGRESS,
            in_progress_expiration: now + leaseMs,
            validation,
          },
          ConditionExpression:
            'attribute_not_exists(#sk) OR #expiry < :now OR (#status = :inProgress AND attribute_exists(#lease) AND #lease < :nowMs)',
          ExpressionAttributeNames: { '#sk': TABLE_KEYS.sortKey, '#expiry': NAMES['#expiry'], '#status': NAMES['#status'], '#lease': NAMES['#lease'] },
          ExpressionAttributeValues: { ':now': now / 1000, ':nowMs': now, ':inProgress': IN_PROGRESS },
        }),
      );
      return 'taken';
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    return Item as StoredRecord | undefined;
  }

  return {
    middleware: idempotencyKey(),
    async runOnce(request: IdempotentRequest, context: Context, operation: () => Promise<OperationResult>) {
      const key = {
        [TABLE_KEYS.partitionKey]: partition,
        [TABLE_KEYS.sortKey]: `${operationId}#${hashOf([request.portalId, request.idempotencyKey])}`,
      };
      const validation = hashOf(comparedAs(request.body));
      const leaseMs = context.getRemainingTimeInMillis();

      let taken = false;
      for (let attempt = 0; attempt < TAKE_ATTEMPTS && !taken; attempt++) {
        const existing = await take(key, validation, leaseMs);
        if (existing === 'taken') taken = true;
        else if (existing !== undefined) {
          if (existing.validation !== validation) {
            throw new BadRequestError(
              'This Idempotency-Key was already used with a different request body in the last 24 hours; ' +
                'send the same body to get the first answer again, or a new key for a new request.',
              'IDEMPOTENCY_KEY_REUSED',
            );
          }
          const live = (existing[EXPIRY_ATTRIBUTE] ?? 0) * 1000 >= Date.now();
          if (existing.status === COMPLETED && live && existing.data !== undefined) return resultOf(existing.data);
          // Still running elsewhere: answer 409 now. (Expired meanwhile: take it again.)
          if (existing.status === IN_PROGRESS && live) break;
        }
      }
      if (!taken) {
        throw new ConflictError(
          'A request with this Idempotency-Key is still being processed; retry shortly to get its answer.',
          'IDEMPOTENCY_IN_PROGRESS',
        );
      }

      // Stored as JSON text, not as a map: DynamoDB keeps a map's fields in an order of its own,
      // so a replay read back from a map would answer the same record with its fields reordered.
      // Text comes back as it went in, and the replay is the first answer byte for byte.
      let answer: string;
      try {
        answer = JSON.stringify(await operation());
      } catch (error) {
        await release(client, tableName, key);
        throw error;
      }
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'SET #expiry = :expiry, #status = :completed, #data = :data, #validation = :validation',
            ExpressionAttributeNames: { '#expiry': NAMES['#expiry'], '#status': NAMES['#status'], '#data': NAMES['#data'], '#validation': NAMES['#validation'] },
            ExpressionAttributeValues: {
              ':expiry': Math.round(Date.now() / 1000) + IDEMPOTENCY_WINDOW_SECONDS,
              ':completed': COMPLETED,
              ':data': answer,
              ':validation': validation,
            },
          }),
        );
      } catch (error) {
        // The operation succeeded; only remembering it failed. Its answer is the truth, and a
        // caller who has it has no reason to retry. The key stays in progress until its lease ends.
        logger.error('the request succeeded but its idempotency record could not be completed', error as Error);
      }
      return resultOf(answer);
    },
  };
}

/** Frees the key of a request that failed, so a retry runs it again. */
async function release(client: DynamoDBDocumentClient, tableName: string, key: Record<string, string>): Promise<void> {
  try {
    await client.send(new DeleteCommand({ TableName: tableName, Key: key }));
  } catch (error) {
    // The caller gets the operation's own failure; the key is refused with 409 until its lease
    // ends, then free again.
    logger.error('the request failed and its idempotency record could not be deleted', error as Error);
  }
}

/** The result as answered first: parsed from the stored text, or a stored object as it is. */
function resultOf(stored: string | OperationResult): OperationResult {
  return typeof stored === 'string' ? (JSON.parse(stored) as OperationResult) : stored;
}

/** SHA-256, base64, of the value's JSON with object keys sorted: the hashes Powertools wrote. */
function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(sortedKeys(value))).digest('base64');
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      // Powertools' order (deepSort): case-insensitive.
      .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1))
      .map((name) => [name, sortedKeys((value as Record<string, unknown>)[name])]),
  );
}
