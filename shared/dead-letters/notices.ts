/**
 * The service's own event kinds about a portal's subscriptions, delivered like portal events by
 * the dispatcher's code (delivery/dispatch.ts) to the portal's other activated subscriptions that
 * chose them, never to the subscription they are about:
 * - `webhooks.subscription.failing`: a message to it became a dead letter, the first since a
 *   delivery succeeded (or since it was created);
 * - `webhooks.subscription.disabled`: it was deactivated for failing (DISABLE_FAILING_AFTER).
 * Their data: `{subscription: {configId, name}, lastDeliveredAt, failingSince, reason, disabledAt?}`.
 * The eventId follows from the subscription and its streak, so a notice sent again (its sending
 * failed for some recipient) is one a receiver deduplicates.
 */
import { createHash } from 'node:crypto';
import { type DueWork, finishDueWork } from '../data/due-work';
import type { Subscription } from '../data/subscription-record';
import { type DispatchDeps, type DispatchOutcome, dispatchPortalEvents, needsRetry } from '../delivery/dispatch';
import type { PortalEvent } from '../delivery/portal-event';
import { DISABLED_EVENT_KIND, FAILING_EVENT_KIND } from '../delivery/service-event-kinds';
import { onFailingDue } from './failing-evaluator';
import type { SweepDeps, WorkInHand, WorkOutcome } from './sweep-work';

export { DISABLED_EVENT_KIND, FAILING_EVENT_KIND };

export interface SubscriptionNotice {
  kind: typeof FAILING_EVENT_KIND | typeof DISABLED_EVENT_KIND;
  portalId: string;
  configId: string;
  name: string;
  lastDeliveredAt: string | null;
  failingSince: string;
  /** `dead-letter` for failing (a message became one), `failing` for disabled (the disabledReason). */
  reason: string;
  disabledAt?: string;
  /** When it happened: the streak's first dead letter, or the disabling. */
  occurredAt: string;
}

/** A UUID-shaped id derived from what the notice is about. */
function noticeIdOf(notice: SubscriptionNotice): string {
  const hex = createHash('sha256').update(`${notice.kind}\n${notice.portalId}\n${notice.configId}\n${notice.failingSince}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function noticeEventOf(notice: SubscriptionNotice): PortalEvent {
  return {
    kind: notice.kind,
    portalId: notice.portalId,
    eventId: noticeIdOf(notice),
    occurredAt: notice.occurredAt,
    data: {
      subscription: { configId: notice.configId, name: notice.name },
      lastDeliveredAt: notice.lastDeliveredAt,
      failingSince: notice.failingSince,
      reason: notice.reason,
      ...(notice.disabledAt && { disabledAt: notice.disabledAt }),
    },
  };
}

/** Nothing records which recipients got a notice: one sent again goes to all, with the same eventId. */
const NO_PROGRESS: DispatchDeps['progress'] = { deliveredTo: async () => new Set(), add: async () => undefined };

/** Sends the notice; throws when some recipient did not get it, so its due work stays to be done again. */
export async function sendNotice(deps: Omit<DispatchDeps, 'progress'>, notice: SubscriptionNotice): Promise<DispatchOutcome> {
  const [outcome] = await dispatchPortalEvents({ ...deps, progress: NO_PROGRESS }, [{ event: noticeEventOf(notice), afterEarlierTry: false, except: notice.configId, unfiltered: true }]);
  if (needsRetry(outcome!)) {
    const cause = 'unread' in outcome! ? outcome.unread : 'failed' in outcome! ? outcome.failed[0]?.error : undefined;
    throw new Error(`The ${notice.kind} notice of ${notice.configId} did not reach every recipient.`, { cause });
  }
  return outcome!;
}

/** The notice of a piece of due work about the subscription of `record`. */
export function noticeFor(
  kind: SubscriptionNotice['kind'],
  work: Pick<DueWork, 'subscriptionPortalId' | 'configId' | 'failingSince'>,
  record: Pick<Subscription, 'name' | 'lastDeliveredAt'>,
  extra: Pick<SubscriptionNotice, 'reason' | 'occurredAt' | 'disabledAt'>,
): SubscriptionNotice {
  return {
    kind,
    portalId: work.subscriptionPortalId,
    configId: work.configId,
    name: record.name ?? '',
    lastDeliveredAt: record.lastDeliveredAt ?? null,
    failingSince: work.failingSince!,
    ...extra,
  };
}

/** A due `failing` notice (the retry sweep's): sent unless the streak it belongs to is over. */
export async function sendFailingNotice(deps: SweepDeps, { work, claimant, record }: WorkInHand): Promise<WorkOutcome> {
  const decision = onFailingDue(record, work);
  if (decision === 'notify') await sendNotice(deps, noticeFor(FAILING_EVENT_KIND, work, record!, { reason: 'dead-letter', occurredAt: work.failingSince! }));
  await finishDueWork(deps.table, work, claimant);
  return decision === 'notify' ? 'notified' : 'dropped';
}
