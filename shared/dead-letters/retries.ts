/**
 * A scheduled retry of a dead letter (its `retry` due work): while the subscription is activated,
 * the dead letter is claimed as a replay claims it (so a replay and a retry never both send it),
 * published again to the subscription's own topic with its original body and `event` attribute,
 * then removed in one transaction with its due work, its count, and its ledger's new retry count.
 * Should it fail again, SNS dead-letters it anew and the recorder gives it the next wait of the
 * schedule. A subscription deleted or deactivated meanwhile stops the schedule: the dead letter
 * stays, with no next retry.
 */
import { claim, findDeadLetter, removeRetried, stopRetries, unclaim } from '../data/dead-letters';
import { finishDueWork } from '../data/due-work';
import { ACTIVATED } from '../data/subscription-record';
import { logPublished, type PublishedMessage, publishToLog } from '../delivery/logged-publish';
import { isTopicGone } from '../delivery/publish';
import { CLAIM_LEASE_MS, messageOf } from './replay';
import type { SweepDeps, WorkInHand, WorkOutcome } from './sweep-work';

export async function retryDeadLetter({ table, sns, messages }: SweepDeps, { work, claimant, record }: WorkInHand): Promise<WorkOutcome> {
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
  if (!(await claim(table, letter, claimant, Date.now() + CLAIM_LEASE_MS))) return 'busy';
  let published: PublishedMessage;
  try {
    published = await publishToLog(sns, messageOf(letter, record.topicArn));
  } catch (error) {
    await unclaim(table, letter, claimant).catch(() => undefined);
    if (isTopicGone(error)) return stop();
    throw error;
  }
  try {
    // Removed meanwhile (a replay that took it after this claim lapsed, the subscription deleted): its work is over.
    if (!(await removeRetried(table, letter, work))) await finishDueWork(table, work, claimant);
  } finally {
    // After the removal, which counts the retry in its ledger (logPublished never throws).
    await logPublished(messages, [published]);
  }
  return 'retried';
}
