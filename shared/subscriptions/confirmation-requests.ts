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
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TooSoonError } from '../refusal-error';
import { SubscriptionNotFoundError } from './errors';
import type { Subscription } from './model';
import { find, type RecordTable } from './repository';
import { subscriptionKeyOf } from './table';


const ATTRIBUTES = {
  '#at': 'confirmationRequestedAt',
  '#day': 'confirmationRequestsDay',
  '#count': 'confirmationRequestsThatDay',
} as const;

type Recorded = Subscription & { confirmationRequestedAt?: string; confirmationRequestsDay?: string; confirmationRequestsThatDay?: number };

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
      let record = subscription as Recorded;
      for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
        if (attempt > 0) {
          const again = await find(table, subscription.portalId, subscription.configId);
          if (!again) throw new SubscriptionNotFoundError(subscription.configId);
          record = again as Recorded;
        }
        const now = new Date();
        // Another confirm sent one since SNS was asked: the endpoint is pending again, whatever SNS said before.
        const sentSince = record.confirmationRequestedAt !== undefined && record.confirmationRequestedAt >= observedAt;
        checkAllowed(record, sentSince ? 'pending' : observedState, limits, now);
        const today = now.toISOString().slice(0, 10);
        const sameDay = record.confirmationRequestsDay === today;
        const taken = { at: now.toISOString(), day: today, count: sameDay ? (record.confirmationRequestsThatDay ?? 0) + 1 : 1 };
        try {
          await write(table, record, taken);
          // Given back only while no other request took it since.
          return () => giveBack(table, record, taken);
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      }
      throw new ConfirmationRequestTooSoonError(subscription.configId, new Date(Date.now() + 1000), { pendingSince: new Date().toISOString(), intervalMs: limits.intervalMs });
    },
  };
}

function checkAllowed(record: Recorded, state: 'pending' | 'unsubscribed', { perDay, intervalMs }: ConfirmationRequestLimits, now: Date): void {
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

/** Stores `taken` on the record only if its three attributes are still as `record` has them. */
async function write(table: RecordTable, record: Recorded, taken: { at: string; day: string; count: number }): Promise<void> {
  const { condition, values } = unchanged(record);
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: { portalId: record.portalId, sk: subscriptionKeyOf(record.configId) },
      UpdateExpression: 'SET #at = :at, #day = :day, #count = :count',
      ConditionExpression: `attribute_exists(sk) AND ${condition}`,
      ExpressionAttributeNames: ATTRIBUTES,
      ExpressionAttributeValues: { ...values, ':at': taken.at, ':day': taken.day, ':count': taken.count },
    }),
  );
}

/** The record's three attributes back as they were, only while they are still as `taken` wrote them. */
async function giveBack(table: RecordTable, before: Recorded, taken: { at: string; day: string; count: number }): Promise<void> {
  const set: string[] = [];
  const remove: string[] = [];
  const values: Record<string, unknown> = { ':takenAt': taken.at, ':takenDay': taken.day, ':takenCount': taken.count };
  for (const [name, value] of [
    ['#at', before.confirmationRequestedAt],
    ['#day', before.confirmationRequestsDay],
    ['#count', before.confirmationRequestsThatDay],
  ] as const) {
    if (value === undefined) remove.push(name);
    else {
      set.push(`${name} = :before${name.slice(1)}`);
      values[`:before${name.slice(1)}`] = value;
    }
  }
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId: before.portalId, sk: subscriptionKeyOf(before.configId) },
        UpdateExpression: [set.length > 0 ? `SET ${set.join(', ')}` : '', remove.length > 0 ? `REMOVE ${remove.join(', ')}` : ''].join(' ').trim(),
        ConditionExpression: '#at = :takenAt AND #day = :takenDay AND #count = :takenCount',
        ExpressionAttributeNames: ATTRIBUTES,
        ExpressionAttributeValues: values,
      }),
    );
  } catch (error) {
    // Another request took one since (or the record is gone): nothing to give back.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

function unchanged(record: Recorded): { condition: string; values: Record<string, unknown> } {
  const parts: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, value] of [
    ['#at', record.confirmationRequestedAt],
    ['#day', record.confirmationRequestsDay],
    ['#count', record.confirmationRequestsThatDay],
  ] as const) {
    if (value === undefined) parts.push(`attribute_not_exists(${name})`);
    else {
      parts.push(`${name} = :was${name.slice(1)}`);
      values[`:was${name.slice(1)}`] = value;
    }
  }
  return { condition: parts.join(' AND '), values };
}
