/**
 * Sends a subscription's dead letters again: each claimed for this replay (a conditional write),
 * then published to its topic with the body it had (same eventId, same `event` attribute,
 * shared/delivery/message.ts), then removed from the store once SNS accepted it. Concurrent
 * replays (a double click, a client's retry after a timeout) share the letters, and each is sent
 * once; a claim left by a replay that crashed lapses after CLAIM_LEASE_MS. At least once: a dead
 * letter published and not removed (the removal failed) keeps its claim, and is sent again by a
 * replay once that lapsed; a receiver that deduplicates on (configId, eventId) sees it once. One that fails again comes back from the dead-letter queue as a new one.
 * A Publish whose answer is late is sent again by the SDK (a timeout is retryable: AWS SDKs and
 * Tools Reference Guide, "Retry behavior"), and a standard topic delivers both (Amazon SNS
 * Developer Guide, "Message delivery": at least once): concurrent replays share the letters, the
 * SDK's resend is not theirs to prevent.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { randomUUID } from 'node:crypto';
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import { logPublished, type MessageLog, type PublishedMessage, publishToLog } from '../delivery/logged-publish';
import type { DeadLetterStore, KeptDeadLetter } from '../data/dead-letters';
import { deadLetterSummaryOf, type Subscription } from '../data/subscription-record';

/** Dead letters sent per request; `remaining` tells the caller how many are left for another. */
export const MAX_REPLAYED_PER_REQUEST = 100;
/** Publish calls in flight at a time. */
const PUBLISHES_IN_FLIGHT = 10;
/**
 * How long a replay holds the dead letters it claimed. A replay ends within its function's
 * timeout (10 s); a minute leaves room for that, and a claim its replay left when it crashed
 * lets the letter be replayed again a minute later.
 */
export const CLAIM_LEASE_MS = 60_000;

export interface ReplayDeps {
  store: Pick<DeadLetterStore, 'select' | 'claim' | 'unclaim' | 'remove'>;
  sns: SNSClient;
  messages: MessageLog;
}

export interface ReplayOutcome {
  /** Published again (and removed, or left to be removed by the next replay). */
  replayed: number;
  /** Kept for the subscription after this replay: its count when it began, less those removed. */
  remaining: number;
  /** Chosen dead letters SNS did not accept, with its error: still kept. */
  failed: { letter: KeptDeadLetter; error: unknown }[];
  /** Published, yet not removed: still claimed, and sent again by a replay once the claim lapsed. */
  notRemoved: { letter: KeptDeadLetter; error: unknown }[];
  /** Of the eventIds asked for, those no kept dead letter has. */
  notFound: string[];
  /** Chosen, but claimed by another replay running meanwhile (or gone since): that one sends them. */
  claimedElsewhere: number;
}

/**
 * Replays the subscription's dead letters: those with the given eventIds (all of them, however
 * many share one), or without eventIds all kept ones; oldest first, at most MAX_REPLAYED_PER_REQUEST.
 */
export async function replayDeadLetters(
  deps: ReplayDeps,
  subscription: Pick<Subscription, 'portalId' | 'configId' | 'topicArn'> & Partial<Subscription>,
  eventIds?: readonly string[],
): Promise<ReplayOutcome> {
  // The record as read before (its day counters with it): how many were kept when the replay began.
  const keptBefore = deadLetterSummaryOf(subscription).deadLetters;
  const { portalId, configId, topicArn } = subscription;
  const wanted = eventIds && new Set(eventIds);
  const chosen = await deps.store.select(portalId, configId, MAX_REPLAYED_PER_REQUEST, (letter) => !wanted || wanted.has(letter.eventId));
  const failed: ReplayOutcome['failed'] = [];
  const notRemoved: ReplayOutcome['notRemoved'] = [];
  const claimant = randomUUID();
  const results = await mapWithConcurrency(chosen, PUBLISHES_IN_FLIGHT, async (letter): Promise<'replayed' | 'removed' | 'failed' | 'elsewhere'> => {
    if (!(await deps.store.claim(letter, claimant, Date.now() + CLAIM_LEASE_MS))) return 'elsewhere';
    let published: PublishedMessage;
    try {
      published = await publishToLog(deps.sns, messageOf(letter, topicArn));
    } catch (error) {
      failed.push({ letter, error });
      await deps.store.unclaim(letter, claimant).catch(() => undefined);
      return 'failed';
    }
    try {
      // False when a concurrent replay removed it first: it is gone all the same.
      await deps.store.remove(letter);
      return 'removed';
    } catch (error) {
      notRemoved.push({ letter, error });
      return 'replayed';
    } finally {
      // After the removal, which ends its schedule (logPublished never throws).
      await logPublished(deps.messages, [published]);
    }
  });
  const found = new Set(chosen.map((letter) => letter.eventId));
  const removed = results.filter((result) => result === 'removed').length;
  const claimedElsewhere = results.filter((result) => result === 'elsewhere').length;
  return {
    replayed: results.filter((result) => result === 'removed' || result === 'replayed').length,
    // Those another replay claimed are on their way out too.
    remaining: Math.max(0, keptBefore - removed - claimedElsewhere),
    claimedElsewhere,
    failed,
    notRemoved,
    notFound: eventIds ? eventIds.filter((eventId) => !found.has(eventId)) : [],
  };
}

/** A dead letter as the message it is sent again as: its own body, eventId and event. */
export function messageOf(letter: Pick<KeptDeadLetter, 'portalId' | 'configId' | 'eventId' | 'event' | 'occurredAt' | 'message'>, topicArn: string) {
  const { portalId, configId, eventId, event, occurredAt, message: body } = letter;
  return { portalId, configId, topicArn, eventId, event, occurredAt, body };
}
