/**
 * How often POST /confirm may have SNS send a confirmation request to a subscription's endpoint,
 * which may belong to a stranger (any address can be given to create): not again while one sent
 * less than 5 minutes ago (CONFIRMATION_REQUEST_INTERVAL_SECONDS) is still pending, and at most
 * CONFIRMATION_REQUESTS_PER_DAY a UTC day.
 * An endpoint that SNS no longer has (it confirmed and left, or never confirmed in time) may be
 * asked again at once, within the day's count.
 *
 * Kept on the subscription's record (when the last request went out, and the day's count), and
 * taken with one conditional UpdateItem before Subscribe is called: the write succeeds only if
 * the record is as read, so concurrent confirms cannot both send. Create's own request counts as
 * the first one (the record's createdAt).
 */
import { find } from '../data/subscription-reads';
import { giveBackConfirmationTurn, takeConfirmationTurn } from '../data/subscription-records';
import type { RecordTable } from '../data/table';
import { TooSoonError } from '../refusal-error';
import { SubscriptionNotFoundError } from './errors';
import type { Subscription } from './model';

/** A confirmation request asked too soon after the last, or past the day's count: 429 with when. */
export class ConfirmationRequestTooSoonError extends TooSoonError {
  override readonly name = 'ConfirmationRequestTooSoonError';
  readonly code: 'CONFIRMATION_PENDING' | 'CONFIRMATION_REQUESTS_PER_DAY';
  constructor(
    readonly configId: string,
    readonly retryAt: Date,
    reason: { pendingSince: string; intervalMs: number } | { perDay: number },
  ) {
    const after = retryAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
    super(
      'pendingSince' in reason
        ? `A confirmation request was sent to the endpoint of subscription ${configId} at ${reason.pendingSince} and it has not ` +
            `confirmed yet; SNS sends another no sooner than ${minutes(reason.intervalMs)} after the last: ask again after ${after}.`
        : `The endpoint of subscription ${configId} was sent ${reason.perDay} confirmation requests today (UTC), the most a day; ask again after ${after}.`,
    );
    this.code = 'pendingSince' in reason ? 'CONFIRMATION_PENDING' : 'CONFIRMATION_REQUESTS_PER_DAY';
  }
}

export interface ConfirmationRequests {
  /**
   * Takes the right to send one confirmation request to the subscription's endpoint, whose SNS
   * state is `state`; throws ConfirmationRequestTooSoonError when it may not be sent now.
   * `subscription` is the record as just read, `observedAt` when SNS was asked for the state.
   * Answers how to give the right back (Subscribe failed).
   */
  take(subscription: Subscription, state: 'pending' | 'unsubscribed', observedAt: string): Promise<() => Promise<void>>;
}

/** How many times a take meets the record changed under it (another confirm, a state write) before giving up. */
const TAKE_ATTEMPTS = 4;

export interface ConfirmationRequestLimits {
  /** CONFIRMATION_REQUESTS_PER_DAY. */
  perDay: number;
  /** CONFIRMATION_REQUEST_INTERVAL_SECONDS, in ms: 5 minutes unless set otherwise. */
  intervalMs: number;
}

export function confirmationRequestsOf(table: RecordTable, limits: ConfirmationRequestLimits): ConfirmationRequests {
  return {
    async take(subscription, observedState, observedAt) {
      let record = subscription;
      for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
        if (attempt > 0) {
          const again = await find(table, subscription.portalId, subscription.configId);
          if (!again) throw new SubscriptionNotFoundError(subscription.configId);
          record = again;
        }
        const now = new Date();
        // Another confirm sent one since SNS was asked: the endpoint is pending again, whatever SNS said before.
        const sentSince = record.confirmationRequestedAt !== undefined && record.confirmationRequestedAt >= observedAt;
        checkAllowed(record, sentSince ? 'pending' : observedState, limits, now);
        const today = now.toISOString().slice(0, 10);
        const sameDay = record.confirmationRequestsDay === today;
        const taken = { at: now.toISOString(), day: today, count: sameDay ? (record.confirmationRequestsThatDay ?? 0) + 1 : 1 };
        // Stored only while the record's turn is still as read: concurrent confirms cannot both send.
        if (await takeConfirmationTurn(table, record, taken)) {
          // Given back only while no other request took it since.
          const taker = record;
          return () => giveBackConfirmationTurn(table, taker, taken);
        }
      }
      throw new ConfirmationRequestTooSoonError(subscription.configId, new Date(Date.now() + 1000), { pendingSince: new Date().toISOString(), intervalMs: limits.intervalMs });
    },
  };
}

function checkAllowed(record: Subscription, state: 'pending' | 'unsubscribed', { perDay, intervalMs }: ConfirmationRequestLimits, now: Date): void {
  const today = now.toISOString().slice(0, 10);
  const countToday = record.confirmationRequestsDay === today ? (record.confirmationRequestsThatDay ?? 0) : 0;
  if (countToday >= perDay) {
    throw new ConfirmationRequestTooSoonError(record.configId, new Date(`${nextDay(today)}T00:00:00.000Z`), { perDay });
  }
  if (state !== 'pending') return;
  const lastAt = record.confirmationRequestedAt ?? record.createdAt;
  const allowedAt = Date.parse(lastAt) + intervalMs;
  if (allowedAt > now.getTime()) throw new ConfirmationRequestTooSoonError(record.configId, new Date(allowedAt), { pendingSince: lastAt, intervalMs });
}

function minutes(ms: number): string {
  const count = Math.round(ms / 60_000);
  return ms % 60_000 === 0 ? `${count} minute${count === 1 ? '' : 's'}` : `${Math.round(ms / 1000)} seconds`;
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString().slice(0, 10);
}
