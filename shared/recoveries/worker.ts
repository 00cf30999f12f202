/**
 * One slice of work on a recovery (docs/decisions/recoveries-in-the-background.md): a job of the
 * recovery queue takes the recovery's lease, reads what is left to send (plan.ts), and sends it,
 * paced, in small batches, each logged as a new message and followed by a write of the cursor and
 * counts; when its time is up it queues the next slice and gives the lease back. A slice that
 * fails midway leaves the cursor at the last batch written: the queue delivers the job again and
 * it goes on from there, so at most the batch in hand is sent twice (receivers dedupe by eventId).
 *
 * The pace is kept by construction: the k-th send of a slice goes no earlier than its start plus k
 * intervals, at the slower of the portal's recovery pace (RECOVERY_SENDS_PER_SECOND) and the
 * subscription's maxReceivesPerSecond; and one recovery of a portal runs at a time (its oldest),
 * so a portal's recoveries together never go faster than its pace.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { isRefusal } from '../aws/refusals';
import { type MessageLog, messagesAt, type PublishedMessage } from '../data/messages';
import {
  claimRecovery,
  endRecovery,
  forgetRunning,
  recoveryOf,
  recoveryProgressed,
  recoverySliceFailed,
  releaseRecovery,
  runningRecoveriesOf,
  type StoredRecovery,
} from '../data/recoveries';
import type { RecordTable } from '../data/table';
import { logPublished, publishToLog } from '../delivery/logged-publish';
import { isTopicGone } from '../delivery/publish';
import { ACTIVATED, type Subscription } from '../subscriptions/model';
import type { RecoveryJob, RecoveryJobs } from './jobs';
import { planRecovery, WindowTooLargeError } from './plan';

/** Events sent between two writes of the cursor: at most these are sent twice after a failure. */
export const RECOVERY_BATCH = 10;
/** Slices that failed in a row before the recovery is given up as failed. */
export const MAX_FAILED_SLICES = 5;
/** How long a job waits, in seconds, while another recovery of its portal runs. */
const WAIT_FOR_PORTAL_SECONDS = 5;

/** Time as the worker sees it; the suites pass their own to count sends against a clock. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

export interface RecoveryWorkerDeps {
  table: RecordTable;
  sns: SNSClient;
  messages: MessageLog;
  jobs: RecoveryJobs;
  findSubscription(portalId: string, configId: string): Promise<Subscription | undefined>;
  /** RECOVERY_SENDS_PER_SECOND: a portal's recoveries send no faster. */
  portalSendsPerSecond: number;
  clock: Clock;
}

export type SliceOutcome =
  | { outcome: 'done' | 'continued'; sent: number; failed: number }
  | { outcome: 'waiting'; delaySeconds: number }
  | { outcome: 'ended' | 'failed'; error?: string };

/** The lease a slice holds past its last write: its next batch's time, twice, and ten seconds. */
const leaseMsFor = (intervalMs: number) => 10_000 + 2 * RECOVERY_BATCH * intervalMs;

/** Sends per second of a recovery of this subscription. */
export const paceOf = (subscription: Pick<Subscription, 'maxReceivesPerSecond'>, portalSendsPerSecond: number) =>
  Math.min(portalSendsPerSecond, subscription.maxReceivesPerSecond ?? Number.POSITIVE_INFINITY);

/**
 * Works a recovery for up to `budgetMs`. Throws when a send or a write failed for a reason that
 * may pass (the queue delivers the job again); gives the recovery up as failed after
 * MAX_FAILED_SLICES such slices in a row.
 */
export async function runRecoverySlice(deps: RecoveryWorkerDeps, job: RecoveryJob, holder: string, budgetMs: number): Promise<SliceOutcome> {
  const { table, clock } = deps;
  const recovery = await recoveryOf(table, job.portalId, job.configId, job.recoveryId);
  if (!recovery || recovery.state !== 'running') {
    await forgetRunning(table, job);
    return { outcome: 'ended' };
  }
  // One recovery of a portal at a time, its oldest: the portal's pace holds for all of them together.
  const [oldest] = await runningRecoveriesOf(table, job.portalId, 1);
  if (oldest && oldest.recoveryId !== job.recoveryId) return wait(deps, job, WAIT_FOR_PORTAL_SECONDS);
  const subscription = await deps.findSubscription(job.portalId, job.configId);
  if (!subscription || subscription.status !== ACTIVATED) {
    const error = subscription ? 'The subscription was deactivated; nothing more was sent.' : 'The subscription was deleted; nothing more was sent.';
    await endRecovery(table, recovery, undefined, { state: 'failed', error });
    return { outcome: 'failed', error };
  }
  const intervalMs = 1000 / paceOf(subscription, deps.portalSendsPerSecond);
  const leaseMs = leaseMsFor(intervalMs);
  if (!(await claimRecovery(table, recovery, holder, clock.now() + leaseMs, clock.now()))) {
    const held = await recoveryOf(table, job.portalId, job.configId, job.recoveryId);
    return wait(deps, job, Math.max(1, ((held?.leaseUntil ?? clock.now() + leaseMs) - clock.now()) / 1000));
  }
  try {
    return await sendSlice(deps, job, recovery, subscription, holder, { intervalMs, leaseMs, budgetMs });
  } catch (error) {
    if (error instanceof WindowTooLargeError) {
      await endRecovery(table, recovery, holder, { state: 'failed', error: error.message });
      return { outcome: 'failed', error: error.message };
    }
    const failures = await recoverySliceFailed(table, recovery, holder).catch(() => undefined);
    if (failures !== undefined && failures >= MAX_FAILED_SLICES) {
      // The tenant reads it: no SDK text (the worker's log line has the error).
      const message = `Stopped: ${failures} tries in a row could not send the next messages (SNS or the table unavailable). A new recovery since the last one sent sends the rest.`;
      await endRecovery(table, recovery, undefined, { state: 'failed', error: message });
      return { outcome: 'failed', error: message };
    }
    throw error;
  }
}

async function wait(deps: RecoveryWorkerDeps, job: RecoveryJob, delaySeconds: number): Promise<SliceOutcome> {
  await deps.jobs.send(job, delaySeconds);
  return { outcome: 'waiting', delaySeconds };
}

interface Pacing {
  intervalMs: number;
  leaseMs: number;
  budgetMs: number;
}

async function sendSlice(deps: RecoveryWorkerDeps, job: RecoveryJob, recovery: StoredRecovery, subscription: Subscription, holder: string, pacing: Pacing): Promise<SliceOutcome> {
  const { table, clock } = deps;
  const { matched, toSend } = await planRecovery(table, recovery);
  const start = Math.max(clock.now(), job.notBefore ?? 0);
  const counts = { matched, sent: recovery.sent, failed: recovery.failed };
  let index = 0;
  const dueAt = (k: number) => start + k * pacing.intervalMs;
  while (index < toSend.length && dueAt(index) < start + pacing.budgetMs) {
    const batch = toSend.slice(index, index + RECOVERY_BATCH).filter((_, k) => dueAt(index + k) < start + pacing.budgetMs);
    const bodies = await messagesAt(table, recovery.portalId, batch.map(({ sk }) => sk));
    const published: PublishedMessage[] = [];
    let cursor: string | undefined;
    let failure: unknown;
    for (const [k, planned] of batch.entries()) {
      const wait = dueAt(index + k) - clock.now();
      if (wait > 0) await clock.sleep(wait);
      const message = bodies.get(planned.sk);
      try {
        // A message gone since the plan (its time kept ran out) cannot be sent: counted failed.
        if (!message) throw Object.assign(new Error('The message is no longer kept.'), { $fault: 'client', name: 'MessageGone' });
        const { eventId, event, occurredAt, body } = message;
        published.push(await publishToLog(deps.sns, { portalId: recovery.portalId, configId: recovery.configId, topicArn: subscription.topicArn, eventId, event, occurredAt, body }));
        counts.sent++;
      } catch (error) {
        if (isTopicGone(error) || !isRefusal(error)) {
          failure = error;
          break;
        }
        counts.failed++;
      }
      cursor = planned.sk;
    }
    await logPublished(deps.messages, published);
    if (cursor !== undefined && !(await recoveryProgressed(table, recovery, holder, { cursor, ...counts, leaseUntil: clock.now() + pacing.leaseMs }))) {
      // The lease passed to another job (this one was too slow): that one goes on from what was written.
      return { outcome: 'ended' };
    }
    if (failure !== undefined) {
      if (isTopicGone(failure)) {
        const error = 'The subscription\'s topic is gone (the subscription was deleted); nothing more was sent.';
        await endRecovery(table, recovery, holder, { state: 'failed', error, counts });
        return { outcome: 'failed', error };
      }
      throw failure;
    }
    index += batch.length;
  }
  if (index >= toSend.length) {
    await endRecovery(table, recovery, holder, { state: 'done', counts });
    return { outcome: 'done', sent: counts.sent, failed: counts.failed };
  }
  await releaseRecovery(table, recovery, holder);
  // The next slice's first send keeps the pace from this one's last.
  await deps.jobs.send({ ...job, notBefore: Math.max(dueAt(index), clock.now()) });
  return { outcome: 'continued', sent: counts.sent, failed: counts.failed };
}
