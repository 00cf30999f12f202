/**
 * A scheduled retry of a dead letter (its `retry` due work): while the subscription is activated,
 * the dead letter is claimed as a replay claims it (so a replay and a retry never both send it),
 * published again to the subscription's own topic with its original body and `event` attribute,
 * then marked retrying in one transaction with its due work, its ledger's new retry count and the
 * `settle` work that ends the wait for SNS's verdict. It stays kept and counted, shown as retrying,
 * until the verdict: delivered, it leaves (the attempts consumer); failed again, the retry's own
 * dead letter takes its place (the recorder), with the next wait of the schedule; no verdict by
 * RETRY_VERDICT_WAIT_MS (an e-mail endpoint, a success SNS did not log), it leaves as delivered. A
 * subscription deleted or deactivated meanwhile stops the schedule: the dead letter stays, with no
 * next retry.
 */
import { claim, findDeadLetter, markRetrying, removeRetrying, stopRetries, unclaim } from '../data/dead-letters';
import { finishDueWork } from '../data/due-work';
import { markMessageRetried } from '../data/messages';
import { markRetrySending } from '../data/retry-ledgers';
import { ACTIVATED } from '../data/subscription-record';
import { logPublished, type PublishedMessage, publishToLog } from '../delivery/logged-publish';
import { isTopicGone } from '../delivery/publish';
import { logger } from '../logger';
import { CLAIM_LEASE_MS, messageOf } from './replay';
import type { SweepDeps, WorkInHand, WorkOutcome } from './sweep-work';

/**
 * How long a retry waits for SNS's verdict before its dead letter leaves as delivered. SNS tries an
 * http/https delivery for about 26 minutes under the service's delivery policy, then dead-letters
 * it (docs/delivery.md); an hour leaves room for the dead-letter queue and its recorder.
 */
export const RETRY_VERDICT_WAIT_MS = 60 * 60_000;

export async function retryDeadLetter({ table, sns, messages }: SweepDeps, { work, claimant, record, now }: WorkInHand): Promise<WorkOutcome> {
  const letter = await findDeadLetter(table, { portalId: work.subscriptionPortalId, sk: work.letterSk! });
  if (!letter) {
    // Replayed, expired or pushed out by the cap meanwhile: nothing left to send.
    await finishDueWork(table, work, claimant);
    return 'dropped';
  }
  const stop = async (): Promise<WorkOutcome> => {
    await stopRetries(table, letter);
    await finishDueWork(table, work, claimant);
    return 'stopped';
  };
  if (!record || record.status !== ACTIVATED || typeof record.topicArn !== 'string') return stop();
  const claimedUntil = Date.now() + CLAIM_LEASE_MS;
  if (!(await claim(table, letter, claimant, claimedUntil))) return 'busy';
  let published: PublishedMessage;
  try {
    // Before the publish: a dead letter of this retry that comes before the mark below is held back
    // by the recorder until the mark names it, so it replaces this one rather than being counted beside it.
    await markRetrySending(table, letter, claimedUntil);
    published = await publishToLog(sns, messageOf(letter, record.topicArn));
  } catch (error) {
    await unclaim(table, letter, claimant).catch(() => undefined);
    if (isTopicGone(error)) return stop();
    throw error;
  }
  try {
    const settleAt = new Date(Math.max(now, Date.parse(published.sentAt)) + RETRY_VERDICT_WAIT_MS).toISOString();
    const settle = { kind: 'settle' as const, dueAt: settleAt, subscriptionPortalId: letter.portalId, configId: letter.configId, letterSk: letter.sk };
    // Removed meanwhile (a replay that took it after this claim lapsed, the subscription deleted): its work is over.
    if (!(await markRetrying(table, letter, work, published, settle))) await finishDueWork(table, work, claimant);
  } finally {
    // After the mark, which names the retry in its ledger (logPublished never throws). The retry is
    // logged as the retry of its dead letter, so that its delivery ends the dead letter's wait.
    await logPublished(messages, [{ ...published, retryOf: letter.sk }]);
    // The message that became the dead letter reads `retried` in the log: the retry is the newer one.
    await markMessageRetried(table, letter).catch((error: unknown) =>
      logger.warn('retried message not marked in the message log', { portalId: letter.portalId, configId: letter.configId, eventId: letter.eventId, error: error as Error }),
    );
  }
  return 'retried';
}

/** A dead letter's wait for its retry's verdict is over (`settle` due work): it leaves, as delivered, if still waiting. */
export async function settleRetry({ table }: SweepDeps, { work, claimant }: WorkInHand): Promise<WorkOutcome> {
  const settled = await removeRetrying(table, { portalId: work.subscriptionPortalId, configId: work.configId, sk: work.letterSk! });
  await finishDueWork(table, work, claimant);
  return settled ? 'settled' : 'dropped';
}
