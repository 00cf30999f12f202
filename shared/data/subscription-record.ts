/**
 * The subscription record as stored: one typed interface, its health and disabling included, and
 * the pure readers of the counters it carries. Its writes are built by subscription-records.ts alone.
 *
 * Counters are top-level attributes named by their day or hour, so list reads every count with the
 * records in one Query (no read per entry):
 * - `deadLetters@2026-11-24`: dead letters of a UTC day, ADDed by the transaction that stores one,
 *   taken back by replay, a retry and the cap. Every dead letter of a day expires at the same moment
 *   (the end of that day plus DEAD_LETTER_KEEP_DAYS), so a day's counter stops counting exactly when
 *   its dead letters stop being read; counters past that are removed when the recorder next writes.
 * - `retryingDeadLetters@2026-11-24`: those of the day's dead letters whose scheduled retry is out
 *   (published again, SNS's verdict not in yet), counted in and out as the dead letters are.
 * - `attemptsDelivered@2026-11-25T10`, `attemptsFailed@…`: attempts of an hour; the last 24 hours are
 *   the current hour's and the 23 before. `attemptsKept@2026-11-25`: attempts kept, as dead letters
 *   are counted, for the cap.
 */

export const PROTOCOLS = ['https', 'http', 'email', 'email-json', 'sqs', 'lambda'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** 1 = activated, 0 = deactivated. New subscriptions start activated. */
export type SubscriptionStatus = 0 | 1;
export const ACTIVATED: SubscriptionStatus = 1;

/**
 * SNS's side of a subscription: `confirmed` (SNS delivers), `pending` (waiting for the endpoint to
 * confirm), `unsubscribed` (SNS no longer has it; only POST /confirm subscribes it again).
 */
export type SubscriptionState = 'confirmed' | 'pending' | 'unsubscribed';

/** The one reason the service disables a subscription for. */
export const DISABLED_FOR_FAILING = 'failing';

export interface Subscription {
  portalId: string;
  /** UUIDv7: sorts by creation time. */
  configId: string;
  name: string;
  endpoint: string;
  protocol: Protocol;
  /** Event kinds from the catalog, without duplicates, in the order given. */
  events: string[];
  status: SubscriptionStatus;
  /** Written by create and the reconciler only. */
  topicArn: string;
  subscriptionArn: string;
  createdAt: string;
  /** As last learned from SNS (docs/api.md#subscription-state); absent on records older than it: list asks SNS. */
  subscriptionState?: SubscriptionState;
  /** When `subscriptionState` was observed; no writer overwrites a newer one. */
  subscriptionStateAt?: string;
  /** http/https only: SNS's `throttlePolicy.maxReceivesPerSecond`. Absent: none. */
  maxReceivesPerSecond?: number;
  /**
   * The SNS filter policy the dispatcher applies to each event's `data` (shared/filters/), as its
   * JSON text: a map would hold numbers the SDK cannot read back (over 2^53), which would stop the
   * portal's whole dispatch. Absent: every event of the chosen kinds.
   */
  filter?: string;
  /** What the reconciler set on the topic: its delivery status logging, its access policy (marks). */
  deliveryStatusLogging?: string;
  topicPolicy?: string;
  /** POST /confirm's turns: when the last request went out, its UTC day and how many that day. */
  confirmationRequestedAt?: string;
  confirmationRequestsDay?: string;
  confirmationRequestsThatDay?: number;
  /** Health from the dead letters: the latest, and how many gave way to the cap. */
  lastDeadLetterAt?: string;
  deadLettersDropped?: number;
  /** Health from the delivery attempts: the latest of each outcome. */
  lastDeliveredAt?: string;
  lastFailedAt?: string;
  /** The latest success of a message that is not a test event: the only kind that ends a failing streak. */
  lastEventDeliveredAt?: string;
  /** When the current failing streak began: its first dead letter since a success (or since created). */
  failingSince?: string;
  /** Why and when the service deactivated it; cleared by activation. */
  disabledReason?: typeof DISABLED_FOR_FAILING;
  disabledAt?: string;
  [deadLettersOfDay: `deadLetters@${string}`]: number;
  [retryingOfDay: `retryingDeadLetters@${string}`]: number;
  [deliveredInHour: `attemptsDelivered@${string}`]: number;
  [failedInHour: `attemptsFailed@${string}`]: number;
  [keptOfDay: `attemptsKept@${string}`]: number;
}

export const FAILING_SINCE_ATTRIBUTE = 'failingSince';
export const DISABLED_REASON_ATTRIBUTE = 'disabledReason';
export const DISABLED_AT_ATTRIBUTE = 'disabledAt';
export const LAST_DEAD_LETTER_ATTRIBUTE = 'lastDeadLetterAt';
export const DROPPED_ATTRIBUTE = 'deadLettersDropped';
export const LAST_DELIVERED_ATTRIBUTE = 'lastDeliveredAt';
export const LAST_FAILED_ATTRIBUTE = 'lastFailedAt';
export const LAST_EVENT_DELIVERED_ATTRIBUTE = 'lastEventDeliveredAt';
export const DAY_COUNTER_PREFIX = 'deadLetters@';
export const RETRYING_DAY_PREFIX = 'retryingDeadLetters@';
export const DELIVERED_HOUR_PREFIX = 'attemptsDelivered@';
export const FAILED_HOUR_PREFIX = 'attemptsFailed@';
export const KEPT_DAY_PREFIX = 'attemptsKept@';
/** What activating a subscription removes: a disabling, and its streak (the count starts again). */
export const CLEARED_BY_ACTIVATION = [DISABLED_REASON_ATTRIBUTE, DISABLED_AT_ATTRIBUTE, FAILING_SINCE_ATTRIBUTE] as const;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** How long a dead letter is kept: 14 days after the end of the UTC day it failed on. */
export const DEAD_LETTER_KEEP_DAYS = 14;

/** The dead-letter counter of the UTC day of an ISO time. */
export const dayCounterOf = (isoTime: string) => `${DAY_COUNTER_PREFIX}${isoTime.slice(0, 10)}` as const;
/** The counter of the dead letters of the UTC day of an ISO time whose retry is out. */
export const retryingDayCounterOf = (isoTime: string) => `${RETRYING_DAY_PREFIX}${isoTime.slice(0, 10)}` as const;
/** The hourly attempt counter of an outcome for an ISO time. */
export const hourCounterOf = (status: 'delivered' | 'failed', isoTime: string) =>
  `${status === 'delivered' ? DELIVERED_HOUR_PREFIX : FAILED_HOUR_PREFIX}${isoTime.slice(0, 13)}` as const;
export const keptDayCounterOf = (isoTime: string) => `${KEPT_DAY_PREFIX}${isoTime.slice(0, 10)}` as const;

/** When the items of an ISO time's UTC day expire, kept `keepDays` after it, in epoch seconds (the TTL attribute). */
export function dayExpiryOf(isoTime: string, keepDays: number): number {
  return (Date.parse(`${isoTime.slice(0, 10)}T00:00:00.000Z`) + DAY_MS * (1 + keepDays)) / 1000;
}

/**
 * The dead-letter day counters of a record (`prefix`: those of every kept one, or of those whose
 * retry is out): live ones (still counting) and stale ones (to remove, of both kinds by default).
 */
export function dayCountersOf(record: Partial<Subscription>, nowMs = Date.now(), prefix: string = DAY_COUNTER_PREFIX) {
  const live: Record<string, number> = {};
  const stale: string[] = [];
  for (const [attribute, value] of Object.entries(record)) {
    const of = [DAY_COUNTER_PREFIX, RETRYING_DAY_PREFIX].find((one) => attribute.startsWith(one));
    if (!of || typeof value !== 'number') continue;
    if (dayExpiryOf(attribute.slice(of.length), DEAD_LETTER_KEEP_DAYS) * 1000 <= nowMs) stale.push(attribute);
    else if (of === prefix) live[attribute] = value;
  }
  return { live, stale };
}

const sumOf = (counters: Record<string, number>) => Math.max(0, Object.values(counters).reduce((sum, count) => sum + count, 0));

/**
 * What a record says of its dead letters: how many are kept (those being retried included), how
 * many of them are being retried, the latest failure, how many gave way to the cap.
 */
export function deadLetterSummaryOf(record: Partial<Subscription>, nowMs = Date.now()) {
  const deadLetters = sumOf(dayCountersOf(record, nowMs).live);
  const deadLettersRetrying = sumOf(dayCountersOf(record, nowMs, RETRYING_DAY_PREFIX).live);
  const last = record.lastDeadLetterAt;
  const lastDeadLetterAt = typeof last === 'string' && dayExpiryOf(last, DEAD_LETTER_KEEP_DAYS) * 1000 > nowMs ? last : null;
  return { deadLetters, deadLettersRetrying, lastDeadLetterAt, deadLettersDropped: record.deadLettersDropped ?? 0 };
}

/** The attempt counters of a record: attempts kept (live days), the 24-hour counts, and the counters past their time. */
export function attemptCountersOf(record: Partial<Subscription>, keepDays: number, nowMs = Date.now()) {
  let kept = 0;
  let delivered = 0;
  let failed = 0;
  const stale: string[] = [];
  const windowStart = Math.floor(nowMs / HOUR_MS) * HOUR_MS - 23 * HOUR_MS;
  const hourStartOf = (attribute: string, prefix: string) => Date.parse(`${attribute.slice(prefix.length)}:00:00.000Z`);
  for (const [attribute, value] of Object.entries(record)) {
    if (typeof value !== 'number') continue;
    if (attribute.startsWith(KEPT_DAY_PREFIX)) {
      if (dayExpiryOf(attribute.slice(KEPT_DAY_PREFIX.length), keepDays) * 1000 > nowMs) kept += value;
      else stale.push(attribute);
    } else if (attribute.startsWith(DELIVERED_HOUR_PREFIX) || attribute.startsWith(FAILED_HOUR_PREFIX)) {
      const delivery = attribute.startsWith(DELIVERED_HOUR_PREFIX);
      if (hourStartOf(attribute, delivery ? DELIVERED_HOUR_PREFIX : FAILED_HOUR_PREFIX) < windowStart) stale.push(attribute);
      else if (delivery) delivered += value;
      else failed += value;
    }
  }
  return { kept: Math.max(0, kept), deliveredLast24h: delivered, failedLast24h: failed, stale };
}

/** What list shows of a subscription's deliveries (the 24-hour counts do not depend on how long attempts are kept). */
export function attemptHealthOf(record: Partial<Subscription>, nowMs = Date.now()) {
  const { deliveredLast24h, failedLast24h } = attemptCountersOf(record, 1, nowMs);
  return { lastDeliveredAt: record.lastDeliveredAt ?? null, lastFailedAt: record.lastFailedAt ?? null, deliveredLast24h, failedLast24h };
}

/** Why and when the service deactivated the subscription; nulls when it did not. */
export function disablingOf(record: Partial<Subscription>) {
  return {
    disabledReason: record.disabledReason === DISABLED_FOR_FAILING ? DISABLED_FOR_FAILING : null,
    disabledAt: typeof record.disabledAt === 'string' ? record.disabledAt : null,
  };
}
