/**
 * Idempotency records: one item per operation and key, in the operation's own partition
 * (`idempotency#<operation id>`, sort key `<operation id>#<hash>`), never a portal's, expiring
 * after IDEMPOTENCY_WINDOW_SECONDS (the TTL attribute). Their layout is the one Powertools'
 * idempotency utility writes (attribute names, statuses), so its records are honoured too. The
 * request's lifecycle (what is hashed, what a repeat is answered) is shared/http/idempotency.ts's.
 */
import { conditionHeld, DeleteCommand, GetCommand, UpdateCommand } from './commands';
import { leaseLapsed, type LeaseAttributes } from './lease';
import { EXPIRY_ATTRIBUTE, type ItemKey, idempotencyPartitionOf, type RecordTable } from './table';

/** How long a key is remembered: 24 hours. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;

export const IN_PROGRESS = 'INPROGRESS';
export const COMPLETED = 'COMPLETED';

/** The lease of the request running with the key: until when it holds it, epoch ms (no holder attribute in Powertools' layout). */
const KEY_LEASE: LeaseAttributes = { until: 'in_progress_expiration' };

export interface IdempotencyRecord {
  status?: string;
  /** Epoch seconds. */
  [EXPIRY_ATTRIBUTE]?: number;
  /** The first answer as JSON text; a record holding it as an object is answered as well. */
  data?: unknown;
  /** Hash of the body the key was first used with. */
  validation?: string;
}

/** The key of an operation's record for a hash of the caller's portal and key. */
export const idempotencyKeyOf = (operationId: string, hash: string): ItemKey => ({ portalId: idempotencyPartitionOf(operationId), sk: `${operationId}#${hash}` });

const windowFrom = (nowMs: number) => Math.round(nowMs / 1000) + IDEMPOTENCY_WINDOW_SECONDS;

/**
 * Takes the key for a request, in progress until `leaseMs` from now: true when there was no
 * record, or its 24 hours or its holder's lease ran out; false when another request holds or
 * completed it.
 */
export async function takeIdempotencyKey(table: RecordTable, key: ItemKey, validation: string, leaseMs: number): Promise<boolean> {
  const now = Date.now();
  const lapsed = leaseLapsed(KEY_LEASE, now);
  // An UpdateItem that makes the record as a PutItem would (the answer of an expired one removed),
  // with the command the function sends already for its rate limit: a bundle without PutItem's.
  return conditionHeld(
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key,
        UpdateExpression: 'SET #expiry = :expiry, #status = :inProgress, #lu = :lease, #validation = :validation REMOVE #data',
        ConditionExpression: `attribute_not_exists(#sk) OR #expiry < :now OR (#status = :inProgress AND ${lapsed.expression})`,
        ExpressionAttributeNames: { '#sk': 'sk', '#expiry': EXPIRY_ATTRIBUTE, '#status': 'status', '#validation': 'validation', '#data': 'data', ...lapsed.names },
        ExpressionAttributeValues: { ':now': now / 1000, ':inProgress': IN_PROGRESS, ':expiry': windowFrom(now), ':lease': now + leaseMs, ':validation': validation, ...lapsed.values },
      }),
    ),
  );
}

/** The record as it is now; undefined when it vanished. */
export async function readIdempotencyRecord(table: RecordTable, key: ItemKey): Promise<IdempotencyRecord | undefined> {
  const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }));
  return Item as IdempotencyRecord | undefined;
}

/** Stores the answer of the request that held the key, for 24 hours from now. */
export async function completeIdempotencyRecord(table: RecordTable, key: ItemKey, answer: string, validation: string): Promise<void> {
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: key,
      UpdateExpression: 'SET #expiry = :expiry, #status = :completed, #data = :data, #validation = :validation',
      ExpressionAttributeNames: { '#expiry': EXPIRY_ATTRIBUTE, '#status': 'status', '#data': 'data', '#validation': 'validation' },
      ExpressionAttributeValues: { ':expiry': windowFrom(Date.now()), ':completed': COMPLETED, ':data': answer, ':validation': validation },
    }),
  );
}

/** Frees the key of a request that failed, so a retry runs it again. */
export async function releaseIdempotencyKey(table: RecordTable, key: ItemKey): Promise<void> {
  await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: key }));
}
