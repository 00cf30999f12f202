/**
 * The retry sweep's due work: one item per piece in the `retry-due#<shard>` partitions, sorted by
 * when it is due, put by the transaction that stores the dead letter it comes from
 * (dead-letters.ts), claimed by a sweep (lease.ts) and deleted once done. Three kinds:
 * - `retry`: publish a dead letter again, at its `nextRetryAt`;
 * - `failing`: tell the portal's other subscriptions that this one began failing (once per streak);
 * - `disable`: check the subscription for disabling, once a dead letter of it spent its schedule;
 * - `settle`: a dead letter whose retry went out and of which SNS's verdict never came (no delivery
 *   status logged, no dead letter of the retry): it leaves, as a retry delivered does.
 * A subscription's work shares a shard (a hash of its config id); the shards spread the writes of
 * many failing subscriptions over as many partitions.
 */
import { QueryCommand } from './commands';
import { createHash } from 'node:crypto';
import { deleteHeld, takeLease, type LeaseAttributes } from './lease';
import { EXPIRY_ATTRIBUTE, type ItemKey, type RecordTable, retryDuePartitionOf } from './table';
import type { TransactionItem } from './transactions';

export const DUE_SHARDS = 8;
export type DueKind = 'retry' | 'failing' | 'disable' | 'settle';

/** A piece of due work as stored. */
export interface DueWork {
  /** Its partition and sort key. */
  portalId: string;
  sk: string;
  kind: DueKind;
  dueAt: string;
  /** Whose work it is. */
  subscriptionPortalId: string;
  configId: string;
  /** `retry`, `settle`: the dead letter's sort key. */
  letterSk?: string;
  /** `failing`, `disable`: the streak it belongs to (the record's failingSince then). */
  failingSince?: string;
}

/** What a piece of work is, before it has a key. */
export type DueWorkOf = Omit<DueWork, 'portalId' | 'sk'>;

/** Due work is dropped by TTL this long after it was due, should nothing ever do it (a bug). */
const KEEP_AFTER_DUE_S = 15 * 86_400;
/** The sweep's claim on a piece of work (lease.ts). */
export const WORK_LEASE: Required<LeaseAttributes> = { until: 'claimedUntil', holder: 'claimedBy' };
/** Pieces read per Query page. */
const PAGE_SIZE = 100;

export function shardOf(configId: string): number {
  return createHash('sha256').update(configId).digest()[0]! % DUE_SHARDS;
}

/** The item of a piece of due work, whose key follows from what it is (so writing it twice is one). */
export function dueItemOf(work: DueWorkOf): DueWork & Record<string, unknown> {
  const subject = work.kind === 'retry' || work.kind === 'settle' ? work.letterSk : work.failingSince;
  return {
    portalId: retryDuePartitionOf(shardOf(work.configId)),
    sk: `${work.dueAt}#${work.kind}#${work.subscriptionPortalId}#${work.configId}#${subject}`,
    ...work,
    [EXPIRY_ATTRIBUTE]: Math.floor(Date.parse(work.dueAt) / 1000) + KEEP_AFTER_DUE_S,
  };
}

/** A piece of work put in another owner's transaction. */
export const dueWorkPut = (table: RecordTable, work: DueWorkOf): TransactionItem => ({ Put: { TableName: table.tableName, Item: dueItemOf(work) } });

/** A piece of work deleted in another owner's transaction (replay ends a retry, a retry is done). */
export const dueWorkDelete = (table: RecordTable, { portalId, sk }: ItemKey): TransactionItem => ({ Delete: { TableName: table.tableName, Key: { portalId, sk } } });

/** The key of a dead letter's scheduled retry, when it has one. */
export function retryKeyOf(letter: { portalId: string; configId: string; sk: string; nextRetryAt?: string | null }): ItemKey | undefined {
  if (!letter.nextRetryAt) return undefined;
  const { portalId, sk } = dueItemOf({ kind: 'retry', dueAt: letter.nextRetryAt, subscriptionPortalId: letter.portalId, configId: letter.configId, letterSk: letter.sk });
  return { portalId, sk };
}

/** One page of a shard's work due before `dueBefore` (an ISO time), oldest due first. */
export async function dueWorkPage(table: RecordTable, shard: number, dueBefore: string, startKey?: Record<string, unknown>) {
  const page = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'portalId = :shard AND sk < :dueBefore',
      ExpressionAttributeValues: { ':shard': retryDuePartitionOf(shard), ':dueBefore': `${dueBefore}~` },
      ConsistentRead: true,
      Limit: PAGE_SIZE,
      ExclusiveStartKey: startKey,
    }),
  );
  return { works: (page.Items ?? []) as DueWork[], nextKey: page.LastEvaluatedKey };
}

/** Claims a piece of work for a sweep until `until`; false when another sweep holds it, or it is done. */
export const claimDueWork = (table: RecordTable, work: ItemKey, claimant: string, until: number, now: number) =>
  takeLease(table, { portalId: work.portalId, sk: work.sk }, WORK_LEASE, claimant, until, now);

/** Deletes a piece of work once done, if this sweep still holds it. */
export const finishDueWork = (table: RecordTable, work: ItemKey, claimant: string) => deleteHeld(table, { portalId: work.portalId, sk: work.sk }, WORK_LEASE, claimant);
