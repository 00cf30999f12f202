/**
 * What the retry sweep (sweep.ts) is to do, and when: one item per piece of work in the
 * `retry-due#<shard>` partitions (subscriptions/table.ts), sorted by when it is due, written in
 * the transaction that stores the dead letter it comes from (store.ts). Three kinds:
 * - `retry`: publish a dead letter again, at its `nextRetryAt`;
 * - `failing`: tell the portal's other subscriptions that this one began failing (once per streak);
 * - `disable`: deactivate the subscription if it is still failing DISABLE_FAILING_AFTER after its
 *   streak began, once a dead letter of it exhausted its schedule.
 * A subscription's work shares a shard (a hash of its config id), and the shards spread the
 * writes of many failing subscriptions over as many partitions.
 */
import { createHash } from 'node:crypto';
import { EXPIRY_ATTRIBUTE, retryDuePartitionOf } from '../subscriptions/table';

export const DUE_SHARDS = 8;
export type DueKind = 'retry' | 'failing' | 'disable';

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
  /** `retry`: the dead letter's sort key. */
  letterSk?: string;
  /** `failing`, `disable`: the streak it belongs to (the record's failingSince then). */
  failingSince?: string;
}

/** Due work is dropped by TTL this long after it was due, should nothing ever do it (a bug). */
const KEEP_AFTER_DUE_S = 15 * 86_400;

export function shardOf(configId: string): number {
  return createHash('sha256').update(configId).digest()[0]! % DUE_SHARDS;
}

/** The item of a piece of due work, whose key follows from what it is (so writing it twice is one). */
export function dueItemOf(work: Omit<DueWork, 'portalId' | 'sk'>): DueWork & Record<string, unknown> {
  const subject = work.kind === 'retry' ? work.letterSk : work.failingSince;
  return {
    portalId: retryDuePartitionOf(shardOf(work.configId)),
    sk: `${work.dueAt}#${work.kind}#${work.subscriptionPortalId}#${work.configId}#${subject}`,
    ...work,
    [EXPIRY_ATTRIBUTE]: Math.floor(Date.parse(work.dueAt) / 1000) + KEEP_AFTER_DUE_S,
  };
}

/** The key of a dead letter's scheduled retry, when it has one. */
export function retryKeyOf(letter: { portalId: string; configId: string; sk: string; nextRetryAt?: string | null }) {
  if (!letter.nextRetryAt) return undefined;
  const { portalId, sk } = dueItemOf({ kind: 'retry', dueAt: letter.nextRetryAt, subscriptionPortalId: letter.portalId, configId: letter.configId, letterSk: letter.sk });
  return { portalId, sk };
}

/** What a dead letter's ledger (subscriptions/table.ts retryLedgerKeyOf) says of its event's retries. */
export interface RetryLedger {
  retries: number;
  /** A replay sent it by hand: its schedule is over. */
  cancelled: boolean;
}

/**
 * A new dead letter's place in its schedule: how many scheduled retries its event had, and when
 * the next is due (none once they are all spent, after a replay, or while the subscription is
 * deactivated).
 */
export function scheduleOf(failedAt: string, ledger: RetryLedger | undefined, scheduleMs: readonly number[], activated: boolean): { retries: number; nextRetryAt?: string } {
  const retries = ledger?.retries ?? 0;
  if (!activated || ledger?.cancelled || retries >= scheduleMs.length) return { retries };
  return { retries, nextRetryAt: new Date(Date.parse(failedAt) + scheduleMs[retries]!).toISOString() };
}

/** Whether the schedule of a dead letter with `retries` scheduled retries is spent. */
export const isExhausted = (retries: number, scheduleMs: readonly number[]) => retries >= scheduleMs.length;

/**
 * Whether a new dead letter begins a failing streak: the subscription had none, or a delivery
 * succeeded since its streak began (the attempts consumer's lastDeliveredAt, shared/attempts/).
 */
export function beginsStreak(record: Record<string, unknown>): boolean {
  const failingSince = record[FAILING_SINCE_ATTRIBUTE];
  const lastDeliveredAt = record.lastDeliveredAt;
  if (typeof failingSince !== 'string') return true;
  return typeof lastDeliveredAt === 'string' && lastDeliveredAt > failingSince;
}

/** Dead-letter attributes of the retry schedule. */
export const RETRIES_ATTRIBUTE = 'retries';
export const NEXT_RETRY_ATTRIBUTE = 'nextRetryAt';

/** Record attributes of the failing streak and of a disabling (what list shows, what activate clears). */
export const FAILING_SINCE_ATTRIBUTE = 'failingSince';
export const DISABLED_REASON_ATTRIBUTE = 'disabledReason';
export const DISABLED_AT_ATTRIBUTE = 'disabledAt';
/** What activating a subscription removes from its record: a disabling, and its streak (the count starts again). */
export const CLEARED_BY_ACTIVATION = [DISABLED_REASON_ATTRIBUTE, DISABLED_AT_ATTRIBUTE, FAILING_SINCE_ATTRIBUTE] as const;
/** The one reason the service disables a subscription for. */
export const DISABLED_FOR_FAILING = 'failing';

/** Protocols whose endpoints report no successes (SNS logs no delivery status for e-mail): never disabled for failing. */
export const NEVER_DISABLED_PROTOCOLS: readonly string[] = ['email', 'email-json'];
