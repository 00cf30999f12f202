/**
 * Keeps the dead letters of one batch of the delivery dead-letter queue: each in its
 * subscription's portal, counted on its record, at most MAX_KEPT_PER_SUBSCRIPTION per
 * subscription (the oldest give way). One read of each subscription's record per batch, then one
 * transaction per dead letter; a Query of the oldest only when a subscription is at its cap.
 */
import { dayCountersOf, deadLetterSummaryOf, MAX_KEPT_PER_SUBSCRIPTION } from './day-counts';
import type { DeadLetter } from './dead-letter-message';
import type { DeadLetterStore, DeadLetterEntry } from './store';

/** What the recorder does with the store. */
export type RecorderStore = Pick<DeadLetterStore, 'subscriptionRecord' | 'oldest' | 'store'>;

export type RecordOutcome =
  | { kind: 'stored'; evicted?: DeadLetterEntry }
  | { kind: 'duplicate' }
  /** No record of that subscription in that portal, or one with another topic: nothing is kept. */
  | { kind: 'subscription gone' };

/** What the batch knows of one subscription after reading its record once. */
interface SubscriptionState {
  exists: boolean;
  topicArn?: string;
  kept: number;
  lastDeadLetterAt: string | null;
  staleCounters: string[];
  /** The oldest kept ones, read when the cap is reached, to give way in that order. */
  oldest?: DeadLetterEntry[];
}

const MAX_ATTEMPTS = 3;

/** One per batch: it remembers what it read of each subscription. */
export class DeadLetterBatch {
  private readonly subscriptions = new Map<string, SubscriptionState>();

  constructor(private readonly store: RecorderStore) {}

  async record(letter: DeadLetter): Promise<RecordOutcome> {
    for (let attempt = 1; ; attempt++) {
      const state = await this.stateOf(letter);
      if (!state.exists || state.topicArn !== letter.topicArn) return { kind: 'subscription gone' };
      let evict: DeadLetterEntry | undefined;
      if (state.kept >= MAX_KEPT_PER_SUBSCRIPTION) {
        if (!state.oldest?.length) state.oldest = await this.store.oldest(letter.portalId, letter.configId, state.kept - MAX_KEPT_PER_SUBSCRIPTION + 10);
        evict = state.oldest.shift();
      }
      const lastDeadLetterAt = state.lastDeadLetterAt && state.lastDeadLetterAt > letter.failedAt ? state.lastDeadLetterAt : letter.failedAt;
      const outcome = await this.store.store(letter, { evict, staleCounters: state.staleCounters, lastDeadLetterAt });
      if (outcome === 'duplicate') {
        if (evict) state.oldest!.unshift(evict);
        return { kind: 'duplicate' };
      }
      if (outcome === 'subscription gone') {
        state.exists = false;
        return { kind: 'subscription gone' };
      }
      if (outcome === 'stored') {
        state.staleCounters = [];
        state.lastDeadLetterAt = lastDeadLetterAt;
        if (!evict) state.kept++;
        return { kind: 'stored', ...(evict && { evicted: evict }) };
      }
      // The oldest was removed meanwhile (a replay): read the subscription again and retry.
      this.subscriptions.delete(keyOf(letter));
      if (attempt >= MAX_ATTEMPTS) throw new Error(`Dead letter ${letter.messageId} not stored: the oldest kept ones kept changing.`);
    }
  }

  private async stateOf(letter: DeadLetter): Promise<SubscriptionState> {
    const key = keyOf(letter);
    let state = this.subscriptions.get(key);
    if (!state) {
      const record = await this.store.subscriptionRecord(letter.portalId, letter.configId);
      state = record
        ? {
            exists: true,
            topicArn: record.topicArn,
            kept: deadLetterSummaryOf(record).deadLetters,
            lastDeadLetterAt: deadLetterSummaryOf(record).lastDeadLetterAt,
            staleCounters: dayCountersOf(record).stale,
          }
        : { exists: false, kept: 0, lastDeadLetterAt: null, staleCounters: [] };
      this.subscriptions.set(key, state);
    }
    return state;
  }
}

const keyOf = ({ portalId, configId }: DeadLetter) => `${portalId}\n${configId}`;
