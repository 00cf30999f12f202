/**
 * The life of a failing subscription, as decisions from the record and the time alone (no I/O):
 * a dead letter's place in its retry schedule, the failing streak it may begin, and what a due
 * notice or disabling check comes to. The recorder stores what `onDeadLetter` decides; the retry
 * sweep carries out what `onFailingDue` and `onDisableDue` return (docs/failed-deliveries.md).
 *
 * - A streak begins with the first dead letter since the subscription's last successful delivery
 *   (or since it was created, or activated: activation clears the streak). Its `failing` notice is
 *   due at once.
 * - A dead letter whose event spent its schedule (and no replay ended it) brings a check at
 *   `failingSince + DISABLE_FAILING_AFTER`: still no success by then, the subscription is disabled.
 * - A success after the streak began, an activation, or a deletion drops the streak's work. Only a
 *   success of a message that is not a test event counts (`lastEventDeliveredAt`): an endpoint that
 *   answers test events alone is failing all the same; a test's outcome still shows in its attempts.
 * - E-mail endpoints report no successes (SNS logs no delivery status for e-mail): never disabled.
 */
import type { DueWork, DueWorkOf } from '../data/due-work';
import type { RetryLedger } from '../data/retry-ledgers';
import { ACTIVATED, DISABLED_FOR_FAILING, type Subscription } from '../data/subscription-record';
import { deadLetterKeyOf } from '../data/table';

export interface FailingSettings {
  /** The waits of the scheduled retries after SNS's own (DELIVERY_RETRY_SCHEDULE), in ms. */
  readonly deliveryRetryScheduleMs: readonly number[];
  /** How long a subscription may fail with no success before it is disabled (DISABLE_FAILING_AFTER), in ms. */
  readonly disableFailingAfterMs: number;
}

/** Protocols whose endpoints report no successes: never disabled for failing. */
export const NEVER_DISABLED_PROTOCOLS: readonly string[] = ['email', 'email-json'];

type RecordHealth = Pick<Subscription, 'status' | 'protocol' | 'failingSince' | 'lastEventDeliveredAt'> & Partial<Pick<Subscription, 'disabledReason' | 'disabledAt'>>;

/** Whether a new dead letter begins a failing streak: the subscription had none, or a delivery succeeded since it began. */
export function beginsStreak(record: Pick<Subscription, 'failingSince' | 'lastEventDeliveredAt'>): boolean {
  if (record.failingSince === undefined) return true;
  return record.lastEventDeliveredAt !== undefined && record.lastEventDeliveredAt > record.failingSince;
}

/** What a new dead letter of the subscription means. */
export interface DeadLetterDecision {
  /** Scheduled retries its event had. */
  retries: number;
  /** When the next is due; none once they are all spent, after a replay, or while deactivated. */
  nextRetryAt?: string;
  beginsStreak: boolean;
  /** The sweep's work it brings. */
  dueWork: DueWorkOf[];
}

export function onDeadLetter(
  record: RecordHealth,
  letter: { portalId: string; configId: string; failedAt: string; messageId: string },
  ledger: RetryLedger | undefined,
  { deliveryRetryScheduleMs: schedule, disableFailingAfterMs }: FailingSettings,
): DeadLetterDecision {
  const retries = ledger?.retries ?? 0;
  const activated = record.status === ACTIVATED;
  const failedMs = Date.parse(letter.failedAt);
  const nextRetryAt = activated && !ledger?.cancelled && retries < schedule.length ? new Date(failedMs + schedule[retries]!).toISOString() : undefined;
  const newStreak = beginsStreak(record);
  const failingSince = newStreak ? letter.failedAt : record.failingSince!;
  const spent = !ledger?.cancelled && retries >= schedule.length;
  const whose = { subscriptionPortalId: letter.portalId, configId: letter.configId };
  const dueWork: DueWorkOf[] = [];
  if (nextRetryAt) dueWork.push({ kind: 'retry', dueAt: nextRetryAt, ...whose, letterSk: deadLetterKeyOf(letter.configId, letter.failedAt, letter.messageId) });
  if (newStreak) dueWork.push({ kind: 'failing', dueAt: letter.failedAt, ...whose, failingSince: letter.failedAt });
  if (spent && activated && !NEVER_DISABLED_PROTOCOLS.includes(record.protocol)) {
    const at = new Date(Math.max(Date.parse(failingSince) + disableFailingAfterMs, failedMs)).toISOString();
    dueWork.push({ kind: 'disable', dueAt: at, ...whose, failingSince });
  }
  return { retries, ...(nextRetryAt && { nextRetryAt }), beginsStreak: newStreak, dueWork };
}

/** Whether a due `failing` or `disable` piece still belongs to the subscription's streak (not deleted, not ended since). */
const ofCurrentStreak = (record: RecordHealth | undefined, work: Pick<DueWork, 'failingSince'>): record is RecordHealth =>
  record !== undefined && record.failingSince === work.failingSince;

/** What a due `failing` notice comes to: sent, or dropped (the streak is over). */
export function onFailingDue(record: RecordHealth | undefined, work: Pick<DueWork, 'failingSince'>): 'notify' | 'drop' {
  return ofCurrentStreak(record, work) ? 'notify' : 'drop';
}

export type DisableDecision =
  | { action: 'drop' }
  /** Not yet: DISABLE_FAILING_AFTER has not passed since the streak began. */
  | { action: 'wait' }
  | { action: 'disable'; disabledAt: string }
  /** Disabled already by an earlier sweep whose notice failed: the notice again. */
  | { action: 'notify'; disabledAt: string };

/** What a due `disable` check comes to at `now`. */
export function onDisableDue(record: RecordHealth | undefined, work: Pick<DueWork, 'failingSince'>, now: number, { disableFailingAfterMs }: Pick<FailingSettings, 'disableFailingAfterMs'>): DisableDecision {
  if (!ofCurrentStreak(record, work)) return { action: 'drop' };
  const failingSince = work.failingSince!;
  const succeededSince = record.lastEventDeliveredAt !== undefined && record.lastEventDeliveredAt > failingSince;
  const alreadyDisabled = record.status !== ACTIVATED && record.disabledReason === DISABLED_FOR_FAILING && typeof record.disabledAt === 'string';
  if (succeededSince || NEVER_DISABLED_PROTOCOLS.includes(record.protocol) || (record.status !== ACTIVATED && !alreadyDisabled)) return { action: 'drop' };
  if (now < Date.parse(failingSince) + disableFailingAfterMs) return { action: 'wait' };
  return alreadyDisabled ? { action: 'notify', disabledAt: record.disabledAt! } : { action: 'disable', disabledAt: new Date(now).toISOString() };
}
