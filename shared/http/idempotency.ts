/**
 * Idempotent requests (an Idempotency-Key header), with Powertools for AWS Lambda's idempotency
 * utility and its DynamoDB persistence layer, on the subscriptions table. Only operations that
 * pass `idempotentRuns(...)` to httpOperation import this module, so only their bundles carry
 * the library.
 *
 * - Key: the caller's portal (from the token) and the header's value, hashed (SHA-256). Two
 *   portals sending the same key never meet.
 * - Compared: the validated body (after trimming and normalizing, whatever its JSON formatting).
 *   The same key with another body is refused with a 400.
 * - Stored: one item per key in the partition `idempotency#<operation id>` of the table (sort
 *   key: `<operation id>#<hash>`), never in a portal's partition, so lists never see it. It
 *   expires after 24 hours (IDEMPOTENCY_EXPIRY_ATTRIBUTE, the table's TTL attribute).
 * - Only successes are remembered: the run is made idempotent inside the error envelope, so a
 *   refusal (a 400) or a failure (a 5xx) frees the key for a retry instead of being replayed.
 * - A repeat that arrives while the first request still runs is answered 409, retry shortly.
 *
 * Why makeIdempotent and not the library's middy middleware (makeHandlerIdempotent): in
 * version 2.35 the middleware's onError deletes the record also when its own `before` refused
 * the request, so a same-key-other-body 400 deleted the first request's completed record and a
 * 409 deleted the running request's lock, and either let the key run twice
 * (aws-powertools/powertools-lambda-typescript#5675, fixed after 2.35). The function wrapper
 * deletes only a record it acquired, and only when the wrapped function throws.
 */
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyInconsistentStateError,
  IdempotencyItemNotFoundError,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { isDependencyFault } from '../aws/failures';
import { logger } from '../logger';
import type { OperationId } from '../operations';
import { IDEMPOTENCY_EXPIRY_ATTRIBUTE, idempotencyPartitionOf, TABLE_KEYS } from '../subscriptions/table';
import { BadRequestError, ConflictError } from './errors';
import { idempotencyKey } from './middleware/idempotency-key';
import type { IdempotentRequest, IdempotentRuns, OperationResult } from './operation';

/** How long a key is remembered: 24 hours. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;

export interface IdempotentRunsOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Names the records' partition and prefixes their keys. */
  operationId: OperationId;
}

/** One request's run, and how it ended, as far as the operation itself is concerned. */
interface Attempt {
  operation: () => Promise<OperationResult>;
  outcome?: { result: OperationResult } | { error: unknown };
}

export function idempotentRuns({ client, tableName, operationId }: IdempotentRunsOptions): IdempotentRuns {
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName,
    awsSdkV3Client: client,
    // Sort-key mode: every record in the one static partition, keyed by its hash in `sk`.
    keyAttr: TABLE_KEYS.partitionKey,
    sortKeyAttr: TABLE_KEYS.sortKey,
    staticPkValue: idempotencyPartitionOf(operationId),
    expiryAttr: IDEMPOTENCY_EXPIRY_ATTRIBUTE,
  });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[portalId, idempotencyKey]',
    payloadValidationJmesPath: 'body',
    // A request reaches this only with a key; never hash a missing one into a shared record.
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: IDEMPOTENCY_WINDOW_SECONDS,
    hashFunction: 'sha256',
  });

  // The wrapped function's first argument is what is hashed; with the Lambda context second,
  // the library gives an in-progress record the function's remaining time as its lease, so a
  // request that dies half-way holds its key only until the function's timeout.
  //
  // What is stored is the result as JSON text, not as an object: DynamoDB keeps a map's fields
  // in an order of its own, so a replay read back from a map would answer the same record with
  // its fields reordered. Text comes back as it went in, and the replay is the first answer
  // byte for byte.
  const runAttempt = async (_request: IdempotentRequest, _context: Context, attempt: Attempt): Promise<string> => {
    try {
      const answer = JSON.stringify(await attempt.operation());
      attempt.outcome = { result: resultOf(answer) };
      return answer;
    } catch (error) {
      attempt.outcome = { error };
      throw error;
    }
  };
  const runIdempotently = makeIdempotent(runAttempt, { persistenceStore, config, keyPrefix: operationId });

  return {
    middleware: idempotencyKey(),
    async runOnce(request, context, operation) {
      const attempt: Attempt = { operation };
      try {
        return resultOf(await runIdempotently(request, context, attempt));
      } catch (error) {
        return settle(error, attempt);
      }
    },
  };
}

/** The result as answered first: from the stored text (records written before text was stored hold the object). */
function resultOf(stored: string | OperationResult): OperationResult {
  return typeof stored === 'string' ? (JSON.parse(stored) as OperationResult) : stored;
}

/** The answer to a request whose idempotent run threw `error`. */
function settle(error: unknown, attempt: Attempt): OperationResult {
  if (error instanceof IdempotencyValidationError) {
    throw new BadRequestError(
      'This Idempotency-Key was already used with a different request body in the last 24 hours; ' +
        'send the same body to get the first answer again, or a new key for a new request.',
      'IDEMPOTENCY_KEY_REUSED',
    );
  }
  if (
    error instanceof IdempotencyAlreadyInProgressError ||
    // A concurrent request with the key ended between the checks; what it left is not settled yet.
    error instanceof IdempotencyInconsistentStateError ||
    error instanceof IdempotencyItemNotFoundError
  ) {
    throw new ConflictError(
      'A request with this Idempotency-Key is still being processed; retry shortly to get its answer.',
      'IDEMPOTENCY_IN_PROGRESS',
    );
  }
  if (error instanceof IdempotencyPersistenceLayerError) {
    const { outcome } = attempt;
    if (outcome && 'result' in outcome) {
      // The operation succeeded; only remembering it failed. Its answer is the truth, and a
      // caller who has it has no reason to retry. The key stays in progress until its lease ends.
      logger.error('the request succeeded but its idempotency record could not be completed', error);
      return outcome.result;
    }
    if (outcome && 'error' in outcome) {
      // The operation failed and its key could not be freed: answer the operation's own
      // failure; the key is refused with 409 until its lease ends, then free again.
      logger.error('the request failed and its idempotency record could not be deleted', error);
      throw outcome.error;
    }
    // The store failed before the operation ran (nothing was done): a dependency fault, 503.
    throw isDependencyFault(error.cause) ? error.cause : error;
  }
  throw error;
}
