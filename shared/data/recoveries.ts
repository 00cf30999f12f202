/**
 * Recoveries (POST /recover): one item per recovery in the portal's partition (recoveryKeyOf), holding
 * its window, its state and its counts, and, while it runs, one item in the running recoveries'
 * partition (RUNNING_RECOVERIES_PARTITION) that the worker and the local stack find it by without a
 * Scan. The two are written together when a recovery starts and when it ends.
 *
 * The worker holds a recovery through the one lease (lease.ts), so two deliveries of its job never
 * work it at once, and writes its cursor and counts after each small batch while the lease is its own
 * (docs/decisions/recoveries-in-the-background.md).
 */
import { conditionHeld, DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from './commands';
import { releaseLease, takeLease } from './lease';
import { transactOnce } from './transactions';
import {
  EXPIRY_ATTRIBUTE,
  type ItemKey,
  type RecordTable,
  RUNNING_RECOVERIES_PARTITION,
  recoveryKeyOf,
  recoveryPrefixOf,
  runningRecoveryKeyOf,
} from './table';

export type RecoveryState = 'running' | 'done' | 'failed';
/** What a recovery sends: `failed`, the events never delivered that had an attempt; `all`, every event of the window. */
export type RecoverySelection = 'failed' | 'all';

/** A recovery as GET /recoveries shows it. */
export interface Recovery {
  recoveryId: string;
  configId: string;
  since: string;
  until: string;
  status: RecoverySelection;
  state: RecoveryState;
  createdAt: string;
  updatedAt: string;
  /** Events of the window it chose to send, as far as it has read. */
  matched: number;
  sent: number;
  /** Events SNS refused for good (counted and passed over). */
  failed: number;
  error?: string;
}

/** A recovery as the worker reads it: with where it is (the message key of the last event done) and its failed tries in a row. */
export interface StoredRecovery extends Recovery {
  portalId: string;
  cursor?: string;
  failures: number;
  /** Until when a worker holds it, epoch ms. */
  leaseUntil?: number;
}

/** A running recovery as its partition names it. */
export interface RunningRecovery {
  portalId: string;
  recoveryId: string;
  configId: string;
}

/** Every attribute of a recovery (beside its key and expiry): what its writers' IAM grants name. */
export const RECOVERY_ATTRIBUTES = [
  'recoveryId', 'configId', 'since', 'until', 'selection', 'recoveryState', 'createdAt', 'updatedAt', 'matched', 'sent', 'failed',
  'failures', 'cursor', 'error', 'leaseUntil', 'leaseHolder',
] as const;

/** The attributes of the worker's lease on a recovery. */
const RECOVERY_LEASE = { until: 'leaseUntil', holder: 'leaseHolder' } as const;
/** Not `status` nor `state`: IAM tells no item kind from another in a partition, and a subscription record has `status`. */
const STATE = 'recoveryState';
const SELECTION = 'selection';

/** The counts, by placeholder (some of DynamoDB's reserved words are near: none is written bare). */
const COUNT_NAMES = { '#matched': 'matched', '#sent': 'sent', '#failed': 'failed' };
const COUNTS_SET = '#matched = :matched, #sent = :sent, #failed = :failed';

const keyOf = (portalId: string, configId: string, recoveryId: string): ItemKey => ({ portalId, sk: recoveryKeyOf(configId, recoveryId) });
const runningKeyOf = (portalId: string, recoveryId: string): ItemKey => ({ portalId: RUNNING_RECOVERIES_PARTITION, sk: runningRecoveryKeyOf(portalId, recoveryId) });
const expiryOf = (createdAt: string, keepDays: number) => Math.floor(Date.parse(createdAt) / 1000) + keepDays * 86_400;

/** Stores a new recovery, running, and its entry among the running ones, in one transaction. */
export async function startRecovery(table: RecordTable, keepDays: number, recovery: Pick<StoredRecovery, 'portalId' | 'recoveryId' | 'configId' | 'since' | 'until' | 'status' | 'createdAt'>): Promise<void> {
  const { portalId, recoveryId, configId, since, until, status, createdAt } = recovery;
  const expiry = expiryOf(createdAt, keepDays);
  await transactOnce(table, [
    {
      Put: {
        TableName: table.tableName,
        Item: {
          ...keyOf(portalId, configId, recoveryId),
          recoveryId, configId, since, until, [SELECTION]: status, [STATE]: 'running', createdAt, updatedAt: createdAt,
          matched: 0, sent: 0, failed: 0, failures: 0, [EXPIRY_ATTRIBUTE]: expiry,
        },
        ConditionExpression: 'attribute_not_exists(sk)',
      },
    },
    { Put: { TableName: table.tableName, Item: { ...runningKeyOf(portalId, recoveryId), configId, [EXPIRY_ATTRIBUTE]: expiry } } },
  ]);
}

function storedRecoveryOf(item: Record<string, unknown>): StoredRecovery {
  return {
    portalId: String(item.portalId),
    recoveryId: String(item.recoveryId),
    configId: String(item.configId),
    since: String(item.since),
    until: String(item.until),
    status: item[SELECTION] === 'all' ? 'all' : 'failed',
    state: item[STATE] as RecoveryState,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    matched: Number(item.matched ?? 0),
    sent: Number(item.sent ?? 0),
    failed: Number(item.failed ?? 0),
    ...(typeof item.error === 'string' && { error: item.error }),
    ...(typeof item.cursor === 'string' && { cursor: item.cursor }),
    failures: Number(item.failures ?? 0),
    ...(typeof item.leaseUntil === 'number' && { leaseUntil: item.leaseUntil }),
  };
}

/** What GET /recoveries shows of a recovery. */
export function shownRecovery({ recoveryId, configId, since, until, status, state, createdAt, updatedAt, matched, sent, failed, error }: StoredRecovery): Recovery {
  return { recoveryId, configId, since, until, status, state, createdAt, updatedAt, matched, sent, failed, ...(state === 'failed' && error !== undefined && { error }) };
}

/** The recovery as it is now (a consistent read), or undefined. */
export async function recoveryOf(table: RecordTable, portalId: string, configId: string, recoveryId: string): Promise<StoredRecovery | undefined> {
  const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: keyOf(portalId, configId, recoveryId), ConsistentRead: true }));
  return Item && Number(Item[EXPIRY_ATTRIBUTE]) > Date.now() / 1000 ? storedRecoveryOf(Item) : undefined;
}

/** One page of the subscription's recoveries, newest first; `afterKey` the sort key of the previous page's last. */
export async function recoveryPage(table: RecordTable, portalId: string, configId: string, options: { limit: number; afterKey?: string }): Promise<{ recoveries: StoredRecovery[]; nextKey?: string }> {
  const recoveries: StoredRecovery[] = [];
  let startKey: Record<string, unknown> | undefined = options.afterKey ? { portalId, sk: options.afterKey } : undefined;
  // Bounded: expired items the TTL has not removed yet are the only ones skipped.
  for (let pages = 0; pages < 100; pages++) {
    const result = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
        FilterExpression: '#expiry > :now',
        ExpressionAttributeNames: { '#expiry': EXPIRY_ATTRIBUTE },
        ExpressionAttributeValues: { ':portalId': portalId, ':prefix': recoveryPrefixOf(configId), ':now': Math.floor(Date.now() / 1000) },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: options.limit + 1 - recoveries.length,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) {
      if (recoveries.length === options.limit) return { recoveries, nextKey: recoveryKeyOf(configId, recoveries[options.limit - 1]!.recoveryId) };
      recoveries.push(storedRecoveryOf(item));
    }
    startKey = result.LastEvaluatedKey;
    if (!startKey) break;
  }
  return { recoveries };
}

/** The portal's running recoveries, oldest first (their ids are UUID v7), at most `limit`. */
export async function runningRecoveriesOf(table: RecordTable, portalId: string, limit: number): Promise<RunningRecovery[]> {
  const { Items } = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'portalId = :partition AND begins_with(sk, :portal)',
      ExpressionAttributeValues: { ':partition': RUNNING_RECOVERIES_PARTITION, ':portal': `${portalId}#` },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return (Items ?? []).map(runningRecoveryOf);
}

/** Every running recovery of every portal (what the local stack resumes at start). */
export async function everyRunningRecovery(table: RecordTable): Promise<RunningRecovery[]> {
  const running: RunningRecovery[] = [];
  let startKey: Record<string, unknown> | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    const result = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'portalId = :partition',
        ExpressionAttributeValues: { ':partition': RUNNING_RECOVERIES_PARTITION },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    running.push(...(result.Items ?? []).map(runningRecoveryOf));
    startKey = result.LastEvaluatedKey;
    if (!startKey) break;
  }
  return running;
}

function runningRecoveryOf(item: Record<string, unknown>): RunningRecovery {
  const sk = String(item.sk);
  const at = sk.lastIndexOf('#');
  return { portalId: sk.slice(0, at), recoveryId: sk.slice(at + 1), configId: String(item.configId) };
}

/** Takes the worker's lease on a recovery until `until` (epoch ms); false while another holds it. */
export const claimRecovery = (table: RecordTable, recovery: Pick<StoredRecovery, 'portalId' | 'configId' | 'recoveryId'>, holder: string, until: number, now = Date.now()) =>
  takeLease(table, keyOf(recovery.portalId, recovery.configId, recovery.recoveryId), RECOVERY_LEASE, holder, until, now);

/** Gives the lease back (a slice ended, or failed), so the next job need not wait for it to lapse. */
export const releaseRecovery = (table: RecordTable, recovery: Pick<StoredRecovery, 'portalId' | 'configId' | 'recoveryId'>, holder: string) =>
  releaseLease(table, keyOf(recovery.portalId, recovery.configId, recovery.recoveryId), RECOVERY_LEASE, holder);

/** Progress after a batch: where it is and its counts, its lease extended; false when the lease is no longer `holder`'s. */
export function recoveryProgressed(
  table: RecordTable,
  recovery: Pick<StoredRecovery, 'portalId' | 'configId' | 'recoveryId'>,
  holder: string,
  progress: { cursor?: string; matched: number; sent: number; failed: number; leaseUntil: number },
): Promise<boolean> {
  return conditionHeld(
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keyOf(recovery.portalId, recovery.configId, recovery.recoveryId),
        UpdateExpression: `SET ${progress.cursor === undefined ? '' : '#cursor = :cursor, '}${COUNTS_SET}, updatedAt = :now, leaseUntil = :lu, #failures = :zero`,
        ConditionExpression: 'leaseHolder = :holder AND #state = :running',
        ExpressionAttributeNames: { '#state': STATE, ...COUNT_NAMES, '#failures': 'failures', ...(progress.cursor !== undefined && { '#cursor': 'cursor' }) },
        ExpressionAttributeValues: {
          ...(progress.cursor !== undefined && { ':cursor': progress.cursor }),
          ':matched': progress.matched, ':sent': progress.sent, ':failed': progress.failed, ':now': new Date().toISOString(),
          ':lu': progress.leaseUntil, ':zero': 0, ':holder': holder, ':running': 'running',
        },
      }),
    ),
  );
}

/** Counts a slice that failed (its lease given back); answers the failed slices in a row, or undefined when the lease was no longer ours. */
export async function recoverySliceFailed(table: RecordTable, recovery: Pick<StoredRecovery, 'portalId' | 'configId' | 'recoveryId'>, holder: string): Promise<number | undefined> {
  try {
    const { Attributes } = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keyOf(recovery.portalId, recovery.configId, recovery.recoveryId),
        UpdateExpression: 'SET #failures = if_not_exists(#failures, :zero) + :one, updatedAt = :now REMOVE leaseUntil, leaseHolder',
        ConditionExpression: 'leaseHolder = :holder',
        ExpressionAttributeNames: { '#failures': 'failures' },
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':now': new Date().toISOString(), ':holder': holder },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.failures ?? 1);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

/**
 * Ends a recovery (`done`, or `failed` with why) with its last counts, and removes it from the
 * running ones, in one transaction; while `holder` holds it, or with no holder (a recovery whose
 * subscription is gone is ended by whichever job finds it so).
 */
export async function endRecovery(
  table: RecordTable,
  recovery: Pick<StoredRecovery, 'portalId' | 'configId' | 'recoveryId'>,
  holder: string | undefined,
  end: { state: 'done' | 'failed'; error?: string; counts?: { matched: number; sent: number; failed: number } },
): Promise<void> {
  const counts = end.counts;
  await transactOnce(table, [
    {
      Update: {
        TableName: table.tableName,
        Key: keyOf(recovery.portalId, recovery.configId, recovery.recoveryId),
        UpdateExpression:
          `SET #state = :state, updatedAt = :now${end.error === undefined ? '' : ', #error = :error'}` +
          `${counts ? `, ${COUNTS_SET}` : ''} REMOVE leaseUntil, leaseHolder`,
        ConditionExpression: holder === undefined ? 'attribute_exists(sk)' : 'leaseHolder = :holder',
        ExpressionAttributeNames: { '#state': STATE, ...(end.error !== undefined && { '#error': 'error' }), ...(counts && COUNT_NAMES) },
        ExpressionAttributeValues: {
          ':state': end.state, ':now': new Date().toISOString(),
          ...(end.error !== undefined && { ':error': end.error }),
          ...(counts && { ':matched': counts.matched, ':sent': counts.sent, ':failed': counts.failed }),
          ...(holder !== undefined && { ':holder': holder }),
        },
      },
    },
    { Delete: { TableName: table.tableName, Key: runningKeyOf(recovery.portalId, recovery.recoveryId) } },
  ]);
}

/** Removes a running entry whose recovery is gone or already ended (left by an end that did not finish). */
export async function forgetRunning(table: RecordTable, running: Pick<RunningRecovery, 'portalId' | 'recoveryId'>): Promise<void> {
  await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: runningKeyOf(running.portalId, running.recoveryId) }));
}
