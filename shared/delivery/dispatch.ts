import type { SNSClient } from '@aws-sdk/client-sns';
import { ACTIVATED, type Subscription } from '../subscriptions/model';
import type { SubscriptionRepository } from '../subscriptions/repository';
import type { PortalEvent } from './portal-event';
import { publishToTopic } from './publish';

export interface DispatchDeps {
  repository: SubscriptionRepository;
  sns: SNSClient;
}

/** The subscriptions an event goes to: activated, and listing its kind. */
export function recipientsOf(subscriptions: readonly Subscription[], kind: string): Subscription[] {
  return subscriptions.filter((subscription) => subscription.status === ACTIVATED && subscription.events.includes(kind));
}

/** Raised when some of an event's publications failed; the event is then retried as a whole. */
export class DispatchFailedError extends Error {
  override readonly name = 'DispatchFailedError';
  constructor(
    readonly failedConfigIds: string[],
    readonly causes: unknown[],
  ) {
    super(`publishing to ${failedConfigIds.length} subscription(s) failed: ${failedConfigIds.join(', ')}`);
  }
}

/**
 * Publishes the event once to the topic of each of its portal's recipients, concurrently: one
 * Query of the portal's partition and one Publish per recipient. When any Publish fails the
 * whole event fails, to be retried by its queue; recipients that already got it may get it
 * again then (delivery is at least once: receivers deduplicate on eventId).
 */
export async function dispatchPortalEvent({ repository, sns }: DispatchDeps, event: PortalEvent) {
  const recipients = recipientsOf(await repository.listFor(event.portalId), event.kind);
  const outcomes = await Promise.allSettled(
    recipients.map((subscription) =>
      publishToTopic(sns, subscription.topicArn, {
        event: event.kind,
        portalId: event.portalId,
        configId: subscription.configId,
        occurredAt: event.occurredAt,
        eventId: event.eventId,
        data: event.data,
      }),
    ),
  );
  const failed = recipients.flatMap((subscription, index) => (outcomes[index]!.status === 'rejected' ? [subscription.configId] : []));
  if (failed.length > 0) {
    const causes = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    throw new DispatchFailedError(failed, causes);
  }
  return { recipients: recipients.map((subscription) => subscription.configId) };
}
