/**
 * A subscription's health, readable from its record alone, so list gets it in the Query it reads
 * the records with (no read per entry). The consumer keeps on the record, in the transaction that
 * stores the attempts:
 * - `lastDeliveredAt` and `lastFailedAt`, the latest attempt of each outcome (ISO 8601);
 * - hourly counters `attemptsDelivered@2026-11-25T10` and `attemptsFailed@…`: the last 24 hours
 *   are the sum of the counters of the current hour and the 23 before (so up to 24 hours and the
 *   current hour's minutes); older ones are removed when the consumer next writes the record;
 * - daily counters `attemptsKept@2026-11-25` of the attempts kept, as dead letters have, for the
 *   cap: every attempt of a day expires at the same moment (the end of that day plus the keeping
 *   time), so a day's counter stops counting exactly when its attempts stop being read.
 */
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export const LAST_DELIVERED_ATTRIBUTE = 'lastDeliveredAt';
export const LAST_FAILED_ATTRIBUTE = 'lastFailedAt';
export const DELIVERED_HOUR_PREFIX = 'attemptsDelivered@';
export const FAILED_HOUR_PREFIX = 'attemptsFailed@';
export const KEPT_DAY_PREFIX = 'attemptsKept@';

/** The hourly counter of an outcome for an ISO time. */
export const hourCounterOf = (status: 'delivered' | 'failed', isoTime: string) =>
  `${status === 'delivered' ? DELIVERED_HOUR_PREFIX : FAILED_HOUR_PREFIX}${isoTime.slice(0, 13)}`;

export const keptDayCounterOf = (isoTime: string) => `${KEPT_DAY_PREFIX}${isoTime.slice(0, 10)}`;

/** When the attempts of that UTC day expire, in epoch seconds (the table's TTL attribute). */
export function attemptExpiryOf(isoTime: string, keepDays: number): number {
  const startOfDay = Date.parse(`${isoTime.slice(0, 10)}T00:00:00.000Z`);
  return (startOfDay + DAY_MS * (1 + keepDays)) / 1000;
}

const hourStartOf = (attribute: string, prefix: string) => Date.parse(`${attribute.slice(prefix.length)}:00:00.000Z`);

/** The counters of a record: attempts kept (live days), the 24-hour counts, and the counters past their time. */
export function attemptCountersOf(record: Record<string, unknown>, keepDays: number, nowMs = Date.now()) {
  let kept = 0;
  let delivered = 0;
  let failed = 0;
  const stale: string[] = [];
  const windowStart = Math.floor(nowMs / HOUR_MS) * HOUR_MS - 23 * HOUR_MS;
  for (const [attribute, value] of Object.entries(record)) {
    if (typeof value !== 'number') continue;
    if (attribute.startsWith(KEPT_DAY_PREFIX)) {
      if (attemptExpiryOf(attribute.slice(KEPT_DAY_PREFIX.length), keepDays) * 1000 > nowMs) kept += value;
      else stale.push(attribute);
      continue;
    }
    for (const [prefix, add] of [
      [DELIVERED_HOUR_PREFIX, (count: number) => (delivered += count)],
      [FAILED_HOUR_PREFIX, (count: number) => (failed += count)],
    ] as const) {
      if (!attribute.startsWith(prefix)) continue;
      const start = hourStartOf(attribute, prefix);
      if (start >= windowStart) add(value);
      else stale.push(attribute);
    }
  }
  return { kept: Math.max(0, kept), deliveredLast24h: delivered, failedLast24h: failed, stale };
}

/** What list shows of a subscription's deliveries. */
export function attemptHealthOf(record: Record<string, unknown>, keepDays: number, nowMs = Date.now()) {
  const { deliveredLast24h, failedLast24h } = attemptCountersOf(record, keepDays, nowMs);
  const time = (name: string) => (typeof record[name] === 'string' ? (record[name] as string) : null);
  return { lastDeliveredAt: time(LAST_DELIVERED_ATTRIBUTE), lastFailedAt: time(LAST_FAILED_ATTRIBUTE), deliveredLast24h, failedLast24h };
}
