/**
 * Keeps the dead letters of one batch of the delivery dead-letter queue: each in its
 * subscription's portal, counted on its record, at most MAX_KEPT_PER_SUBSCRIPTION per
 * subscription (the oldest give way). One read of each subscription's record per batch, then one
 * transaction per dead letter; a Query of the oldest only when a subscription is at its cap.
 */
import { dayCountersOf, deadLetterSummaryOf, MAX_KEPT_PER_SUBSCRIPTION } from './day-counts';
import type { DeadLetter } from './dead-letter-message';
import { beginsStreak, FAILING_SINCE_ATTRIBUTE, isExhausted, NEVER_DISABLED_PROTOCOLS, scheduleOf } from './due-work';
import { type DeadLetterStore, type DeadLetterEntry, ledgerLookupKey, type ScheduleWrite } from './store';
import type { RetryLedger } from './due-work';

/** What the recorder does with the store. */
export type RecorderStore = Pick<DeadLetterStore, 'subscriptionRecord' | 'retryLedger' | 'retryLedgers' | 'oldest' | 'store'>;

/** The schedule of retries after SNS's own, and how long a subscription may fail before it is disabled. */
export interface RetrySettings {
  readonly deliveryRetryScheduleMs: readonly number[];
  readonly disableFailingAfterMs: number;
}

export type RecordOutcome =
  | { kind: 'stored'; evicted?: DeadLetterEntry; schedule: ScheduleWrite }
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
  /** The record itself as read (its status, protocol, failing streak and last success). */
  record: Record<string, unknown>;
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
    for (let attempt = 1; ; attempt++) {
      const state = await this.stateOf(letter);
      if (!state.exists || state.topicArn !== letter.topicArn) return { kind: 'subscription gone' };
      let evict: DeadLetterEntry | undefined;
      if (state.kept >= MAX_KEPT_PER_SUBSCRIPTION) {
        if (!state.oldest?.length) state.oldest = await this.store.oldest(letter.portalId, letter.configId, state.kept - MAX_KEPT_PER_SUBSCRIPTION + 10);
        evict = state.oldest.shift();
      }
      const lastDeadLetterAt = state.lastDeadLetterAt && state.lastDeadLetterAt > letter.failedAt ? state.lastDeadLetterAt : letter.failedAt;
      const schedule = await this.scheduleFor(letter, state.record);
      const outcome = await this.store.store(letter, { evict, staleCounters: state.staleCounters, lastDeadLetterAt, schedule });
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
        if (schedule.beginsStreak) state.record = { ...state.record, [FAILING_SINCE_ATTRIBUTE]: letter.failedAt };
        if (!evict) state.kept++;
        return { kind: 'stored', ...(evict && { evicted: evict }), schedule };
      }
      // The oldest was removed meanwhile (a replay): read the subscription again and retry.
      this.subscriptions.delete(keyOf(letter));
      if (attempt >= MAX_ATTEMPTS) throw new Error(`Dead letter ${letter.messageId} not stored: the oldest kept ones kept changing.`);
    }
  }

  /**
   * Where the dead letter stands in its schedule (its event's retries so far, from the ledger), and
   * what it means for its subscription: a new failing streak, or a spent schedule to check the
   * subscription for disabling after DISABLE_FAILING_AFTER.
   */
  private async scheduleFor(letter: DeadLetter, record: Record<string, unknown>): Promise<ScheduleWrite> {
    const { deliveryRetryScheduleMs: scheduleMs, disableFailingAfterMs } = this.settings;
    const lookup = ledgerLookupKey(letter);
    const ledger = this.ledgers.has(lookup) ? this.ledgers.get(lookup) : await this.store.retryLedger(letter.portalId, letter.configId, letter.eventId);
    const activated = record.status === 1;
    const schedule: ScheduleWrite = scheduleOf(letter.failedAt, ledger, scheduleMs, activated);
    const newStreak = beginsStreak(record);
    if (newStreak) schedule.beginsStreak = true;
    const failingSince = newStreak ? letter.failedAt : String(record[FAILING_SINCE_ATTRIBUTE]);
    const spent = !ledger?.cancelled && isExhausted(schedule.retries, scheduleMs);
    if (spent && activated && !NEVER_DISABLED_PROTOCOLS.includes(String(record.protocol))) {
      const at = new Date(Math.max(Date.parse(failingSince) + disableFailingAfterMs, Date.parse(letter.failedAt))).toISOString();
      schedule.disableCheck = { at, failingSince };
    }
    return schedule;
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
            record,
          }
        : { exists: false, kept: 0, lastDeadLetterAt: null, staleCounters: [], record: {} };
      this.subscriptions.set(key, state);
    }
    return state;
  }
}

const keyOf = ({ portalId, configId }: DeadLetter) => `${portalId}\n${configId}`;
