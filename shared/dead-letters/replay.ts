/**
 * Sends a subscription's dead letters again: each published to its topic with the body it had
 * (same eventId, same `event` attribute, shared/delivery/message.ts), then removed from the store
 * once SNS accepted it. At least once: a dead letter published and not removed (the removal
 * failed) is sent again by the next replay, and a receiver that deduplicates on (configId,
 * eventId) sees it once. One that fails again comes back from the dead-letter queue as a new one.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import { publishBody } from '../delivery/publish';
import { deadLetterSummaryOf } from './day-counts';
import type { DeadLetterStore, KeptDeadLetter } from './store';

/** Dead letters sent per request; `remaining` tells the caller how many are left for another. */
export const MAX_REPLAYED_PER_REQUEST = 100;
/** Publish calls in flight at a time. */
const PUBLISHES_IN_FLIGHT = 10;

export interface ReplayDeps {
  store: DeadLetterStore;
  sns: SNSClient;
}

export interface ReplayOutcome {
  /** Published again (and removed, or left to be removed by the next replay). */
  replayed: number;
  /** Kept for the subscription after this replay: its count when it began, less those removed. */
  remaining: number;
  /** Chosen dead letters SNS did not accept, with its error: still kept. */
  failed: { letter: KeptDeadLetter; error: unknown }[];
  /** Published, yet not removed: the next replay sends them again. */
  notRemoved: { letter: KeptDeadLetter; error: unknown }[];
  /** Of the eventIds asked for, those no kept dead letter has. */
  notFound: string[];
}

/**
 * Replays the subscription's dead letters: those with the given eventIds (all of them, however
 * many share one), or without eventIds all kept ones; oldest first, at most MAX_REPLAYED_PER_REQUEST.
 */
export async function replayDeadLetters(
  deps: ReplayDeps,
  subscription: { portalId: string; configId: string; topicArn: string },
  eventIds?: readonly string[],
): Promise<ReplayOutcome> {
  // The record as read before (its day counters with it): how many were kept when the replay began.
  const keptBefore = deadLetterSummaryOf(subscription as unknown as Record<string, unknown>).deadLetters;
  const { portalId, configId, topicArn } = subscription;
  const wanted = eventIds && new Set(eventIds);
  const chosen = await deps.store.select(portalId, configId, MAX_REPLAYED_PER_REQUEST, (letter) => !wanted || wanted.has(letter.eventId));
  const failed: ReplayOutcome['failed'] = [];
  const notRemoved: ReplayOutcome['notRemoved'] = [];
  const results = await mapWithConcurrency(chosen, PUBLISHES_IN_FLIGHT, async (letter): Promise<'replayed' | 'removed' | 'failed'> => {
    try {
      await publishBody(deps.sns, topicArn, letter.message, letter.event);
    } catch (error) {
      failed.push({ letter, error });
      return 'failed';
    }
    try {
      // False when a concurrent replay removed it first: it is gone all the same.
      await deps.store.remove(letter);
      return 'removed';
    } catch (error) {
      notRemoved.push({ letter, error });
      return 'replayed';
    }
  });
  const found = new Set(chosen.map((letter) => letter.eventId));
  const removed = results.filter((result) => result === 'removed').length;
  return {
    replayed: results.filter((result) => result !== 'failed').length,
    remaining: Math.max(0, keptBefore - removed),
    failed,
    notRemoved,
    notFound: eventIds ? eventIds.filter((eventId) => !found.has(eventId)) : [],
  };
}
