/**
 * How many dead letters a subscription keeps, readable from its record alone, so that list gets
 * every count in the Query it reads the records with. The recorder ADDs one to the counter of the
 * UTC day a dead letter failed (`deadLetters@2026-11-24`, a top-level attribute of the record) in
 * the transaction that stores it; replay and the cap subtract one. Every dead letter of a day
 * expires at the same moment, the end of that day plus the keeping time, so a day's counter
 * stops counting exactly when its dead letters stop being read. Counters past that are removed
 * by the recorder when it next writes the record.
 */

/** How long a dead letter is kept: 14 days after the end of the UTC day it failed on. */
export const KEEP_DAYS = 14;
/** Dead letters kept per subscription; past this the oldest give way. */
export const MAX_KEPT_PER_SUBSCRIPTION = 1_000;

const DAY_MS = 86_400_000;
export const DAY_COUNTER_PREFIX = 'deadLetters@';
/** Record attributes beside the day counters. */
export const LAST_DEAD_LETTER_ATTRIBUTE = 'lastDeadLetterAt';
export const DROPPED_ATTRIBUTE = 'deadLettersDropped';

/** The counter attribute of the UTC day of an ISO time. */
export const dayCounterOf = (isoTime: string) => `${DAY_COUNTER_PREFIX}${isoTime.slice(0, 10)}`;

/** When the dead letters of that day expire, in epoch seconds (the table's TTL attribute). */
export function expiryOf(isoTime: string): number {
  const startOfDay = Date.parse(`${isoTime.slice(0, 10)}T00:00:00.000Z`);
  return (startOfDay + DAY_MS * (1 + KEEP_DAYS)) / 1000;
}

const isLive = (attribute: string, nowMs: number) => expiryOf(attribute.slice(DAY_COUNTER_PREFIX.length)) * 1000 > nowMs;

/** The day counters of a record: live ones (still counting) and stale ones (to remove). */
export function dayCountersOf(record: Record<string, unknown>, nowMs = Date.now()) {
  const live: Record<string, number> = {};
  const stale: string[] = [];
  for (const [attribute, value] of Object.entries(record)) {
    if (!attribute.startsWith(DAY_COUNTER_PREFIX) || typeof value !== 'number') continue;
    if (isLive(attribute, nowMs)) live[attribute] = value;
    else stale.push(attribute);
  }
  return { live, stale };
}

/** What a record says of its dead letters: how many are kept, the latest failure, how many gave way to the cap. */
export function deadLetterSummaryOf(record: Record<string, unknown>, nowMs = Date.now()) {
  const { live } = dayCountersOf(record, nowMs);
  const deadLetters = Math.max(0, Object.values(live).reduce((sum, count) => sum + count, 0));
  const last = record[LAST_DEAD_LETTER_ATTRIBUTE];
  const lastDeadLetterAt = typeof last === 'string' && expiryOf(last) * 1000 > nowMs ? last : null;
  const dropped = record[DROPPED_ATTRIBUTE];
  return { deadLetters, lastDeadLetterAt, deadLettersDropped: typeof dropped === 'number' ? dropped : 0 };
}
