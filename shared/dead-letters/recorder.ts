/**
 * Keeps the dead letters of one batch of the delivery dead-letter queue: each in its
 * subscription's portal, counted on its record, at most MAX_KEPT_PER_SUBSCRIPTION per
 * subscription (the oldest give way). One read of each subscription's record per batch, then one
 * transaction per dead letter; a Query of the oldest only when a subscription is at its cap.
 */
import { type DeadLetter, type DeadLetterEntry, type DeadLetterStore, MAX_KEPT_PER_SUBSCRIPTION, type StoredSchedule } from '../data/dead-letters';
import { ledgerLookupKey, type RetryLedger, type RetryOut } from '../data/retry-ledgers';
import { dayCountersOf, deadLetterSummaryOf, type Subscription } from '../data/subscription-record';
import type { SubscriptionRepository } from '../data/subscription-repository';
import { type FailingSettings, onDeadLetter } from './failing-evaluator';

/** What the recorder does with the store, and the one read of a subscription's record per batch. */
export type RecorderStore = Pick<DeadLetterStore, 'retryLedger' | 'retryLedgers' | 'oldest' | 'store'> & Pick<SubscriptionRepository, 'find'>;

export type RetrySettings = FailingSettings;

export type RecordOutcome =
  /** `replaced`: the dead letter of the same event whose retry this one is, removed with it. */
  | { kind: 'stored'; evicted?: DeadLetterEntry; replaced?: RetryOut; schedule: StoredSchedule }
  | { kind: 'duplicate' }
  /** No record of that subscription in that portal, or one with another topic: nothing is kept. */
  | { kind: 'subscription gone' }
  /** A retry of its event is being sent and not yet named in its ledger: to be recorded again later. */
  | { kind: 'held back' };

/** What the batch knows of one subscription after reading its record once. */
interface SubscriptionState {
  exists: boolean;
  topicArn?: string;
  kept: number;
  lastDeadLetterAt: string | null;
  staleCounters: string[];
  /** The oldest kept ones, read when the cap is reached, to give way in that order. */
  oldest?: DeadLetterEntry[];
  /** The record itself as read (its status, protocol, failing streak and last success). */
  record: Subscription | undefined;
}

const MAX_ATTEMPTS = 3;

/** One per batch: it remembers what it read of each subscription. */
export class DeadLetterBatch {
  private readonly subscriptions = new Map<string, SubscriptionState>();
  /** The retry ledgers of the batch's events, read together (readLedgers); one missing here is read alone. */
  private ledgers = new Map<string, RetryLedger | undefined>();

  constructor(
    private readonly store: RecorderStore,
    private readonly settings: RetrySettings,
  ) {}

  /**
   * Reads the retry ledgers of the batch's dead letters in one BatchGetItem, instead of a GetItem
   * each as it is recorded: a ledger is written by the retry that published the message, long
   * before SNS gives up on it, so reading it first sees what reading it later would.
   */
  async readLedgers(letters: readonly DeadLetter[]): Promise<void> {
    this.ledgers = await this.store.retryLedgers(letters);
  }

  async record(letter: DeadLetter): Promise<RecordOutcome> {
    let replaceable = true;
    for (let attempt = 1; ; attempt++) {
      const state = await this.stateOf(letter);
      if (!state.exists || state.topicArn !== letter.topicArn) return { kind: 'subscription gone' };
      const ledger = await this.ledgerOf(letter);
      // The retry of a dead letter kept meanwhile as retrying: this one takes its place, one for the event.
      const replaces = replaceable && ledger?.retrying?.messageId === letter.messageId ? ledger.retrying : undefined;
      // A retry of the event is being sent and not yet named: this may be its dead letter, come
      // before the sweep's mark (an endpoint's 4xx is not retried by SNS). Held back until it is named.
      if (!replaces && replaceable && ledger?.sendingUntil !== undefined && ledger.sendingUntil > Date.now()) return { kind: 'held back' };
      let evict: DeadLetterEntry | undefined;
      if (!replaces && state.kept >= MAX_KEPT_PER_SUBSCRIPTION) {
        if (!state.oldest?.length) state.oldest = await this.store.oldest(letter.portalId, letter.configId, state.kept - MAX_KEPT_PER_SUBSCRIPTION + 10);
        evict = state.oldest.shift();
      }
      const lastDeadLetterAt = state.lastDeadLetterAt && state.lastDeadLetterAt > letter.failedAt ? state.lastDeadLetterAt : letter.failedAt;
      const schedule = onDeadLetter(state.record!, letter, ledger, this.settings);
      const outcome = await this.store.store(letter, { evict, replaces, staleCounters: state.staleCounters, lastDeadLetterAt, schedule });
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
        if (schedule.beginsStreak) state.record = { ...state.record!, failingSince: letter.failedAt };
        if (!evict && !replaces) state.kept++;
        return { kind: 'stored', ...(evict && { evicted: evict }), ...(replaces && { replaced: replaces }), schedule };
      }
      if (outcome === 'replaced one gone') {
        // Its retry's verdict came otherwise (delivered, settled) or it was replayed: kept as a new one.
        replaceable = false;
        continue;
      }
      // The oldest was removed meanwhile (a replay): read the subscription again and retry.
      this.subscriptions.delete(keyOf(letter));
      if (attempt >= MAX_ATTEMPTS) throw new Error(`Dead letter ${letter.messageId} not stored: the oldest kept ones kept changing.`);
    }
  }

  /** The retry ledger of the dead letter's event, from the batch's read or its own. */
  private async ledgerOf(letter: DeadLetter): Promise<RetryLedger | undefined> {
    const lookup = ledgerLookupKey(letter);
    return this.ledgers.has(lookup) ? this.ledgers.get(lookup) : this.store.retryLedger(letter.portalId, letter.configId, letter.eventId);
  }

  private async stateOf(letter: DeadLetter): Promise<SubscriptionState> {
    const key = keyOf(letter);
    let state = this.subscriptions.get(key);
    if (!state) {
      const record = await this.store.find(letter.portalId, letter.configId);
      state = record
        ? {
            exists: true,
            topicArn: record.topicArn,
            kept: deadLetterSummaryOf(record).deadLetters,
            lastDeadLetterAt: deadLetterSummaryOf(record).lastDeadLetterAt,
            staleCounters: dayCountersOf(record).stale,
            record,
          }
        : { exists: false, kept: 0, lastDeadLetterAt: null, staleCounters: [], record: undefined };
      this.subscriptions.set(key, state);
    }
    return state;
  }
}

const keyOf = ({ portalId, configId }: DeadLetter) => `${portalId}\n${configId}`;
