/**
 * Idempotent requests (an Idempotency-Key header): the key's record taken with one conditional
 * write (its owner is shared/data/idempotency-records.ts), the answer stored on success. Only operations that pass
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
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { createHash } from 'node:crypto';
import {
  COMPLETED,
  completeIdempotencyRecord,
  idempotencyKeyOf,
  IN_PROGRESS,
  readIdempotencyRecord,
  releaseIdempotencyKey,
  takeIdempotencyKey,
} from '../data/idempotency-records';
import { EXPIRY_ATTRIBUTE } from '../data/table';
import { logger } from '../logger';
import type { OperationId } from '../operations';
import { BadRequestError, ConflictError } from './errors';
import { idempotencyKey } from './middleware/idempotency-key';
import type { IdempotentRequest, IdempotentRuns, OperationResult } from './operation';

export { IDEMPOTENCY_WINDOW_SECONDS } from '../data/idempotency-records';

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
  const table = { db: client, tableName };
  return {
    middleware: idempotencyKey(),
    async runOnce(request: IdempotentRequest, context: Context, operation: () => Promise<OperationResult>) {
      const key = idempotencyKeyOf(operationId, hashOf([request.portalId, request.idempotencyKey]));
      const validation = hashOf(comparedAs(request.body));
      const leaseMs = context.getRemainingTimeInMillis();

      let taken = false;
      for (let attempt = 0; attempt < TAKE_ATTEMPTS && !taken; attempt++) {
        if (await takeIdempotencyKey(table, key, validation, leaseMs)) {
          taken = true;
          continue;
        }
        // Another request holds or completed it: answer that record as it is now (vanished meanwhile: take again).
        const existing = await readIdempotencyRecord(table, key);
        if (existing === undefined) continue;
        if (existing.validation !== validation) {
          throw new BadRequestError(
            'This Idempotency-Key was already used with a different request body in the last 24 hours; ' +
              'send the same body to get the first answer again, or a new key for a new request.',
            'IDEMPOTENCY_KEY_REUSED',
          );
        }
        const live = (existing[EXPIRY_ATTRIBUTE] ?? 0) * 1000 >= Date.now();
        if (existing.status === COMPLETED && live && existing.data !== undefined) return resultOf(existing.data as string | OperationResult);
        // Still running elsewhere: answer 409 now. (Expired meanwhile: take it again.)
        if (existing.status === IN_PROGRESS && live) break;
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
        await releaseIdempotencyKey(table, key).catch((releaseError: unknown) =>
          // The caller gets the operation's own failure; the key is refused with 409 until its lease ends, then free again.
          logger.error('the request failed and its idempotency record could not be deleted', releaseError as Error),
        );
        throw error;
      }
      try {
        await completeIdempotencyRecord(table, key, answer, validation);
      } catch (error) {
        // The operation succeeded; only remembering it failed. Its answer is the truth, and a
        // caller who has it has no reason to retry. The key stays in progress until its lease ends.
        logger.error('the request succeeded but its idempotency record could not be completed', error as Error);
      }
      return resultOf(answer);
    },
  };
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
