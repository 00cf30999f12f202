import type { SNSClient } from '@aws-sdk/client-sns';
import { ACTIVATED, type Subscription } from '../subscriptions/model';
import type { SubscriptionRepository } from '../subscriptions/repository';
import { MAX_PUBLISH_BYTES, publishInputFor, publishSizeOf } from './message';
import type { PortalEvent } from './portal-event';
import type { DeliveryProgress } from './progress';
import { isTopicGone, publish } from './publish';

export interface DispatchDeps {
  repository: Pick<SubscriptionRepository, 'listFor'>;
  sns: SNSClient;
  progress: DeliveryProgress;
}

/** The subscriptions an event goes to: activated, and listing its kind. */
export function recipientsOf(subscriptions: readonly Subscription[], kind: string): Subscription[] {
  return subscriptions.filter((subscription) => subscription.status === ACTIVATED && subscription.events.includes(kind));
}

/**
 * How long after its event's time a message can still be its event's first try. A message the
 * dead-letter queue redrives is new to SQS (receive count 1), but it comes at least four
 * visibility timeouts (4 x 180 s) after its event: a message older than this window has its
 * event's progress read whatever its receive count says.
 */
export const FIRST_TRY_WINDOW_MS = 10 * 60 * 1000;

/** Whether an earlier try may have reached some of the event's recipients. */
export function mayFollowEarlierTry(receiveCount: number, event: PortalEvent, now = Date.now()): boolean {
  // Written so that a missing count (NaN) counts as a retry.
  return !(receiveCount <= 1) || now - Date.parse(event.occurredAt) > FIRST_TRY_WINDOW_MS;
}

/** A recipient whose Publish failed, with SNS's error. */
export interface FailedPublish {
  configId: string;
  topicArn: string;
  error: unknown;
}

export type DispatchOutcome =
  /** Never published: SNS would refuse it whatever the tries. */
  | { refused: string }
  | {
      /** Recipients that got the event now. */
      delivered: string[];
      /** Recipients that got it on an earlier try, not published to again. */
      deliveredEarlier: string[];
      /** Recipients whose topic no longer exists (their subscription was deleted meanwhile): skipped. */
      gone: { configId: string; topicArn: string }[];
      /** Recipients to try again. */
      failed: FailedPublish[];
      /** Set when the delivered recipients could not be recorded: a retry publishes to them again. */
      progressNotSaved?: unknown;
    };

/** Raised by the dispatcher when some recipients' Publish failed: its queue retries the event for those. */
export class DispatchFailedError extends Error {
  override readonly name = 'DispatchFailedError';
  constructor(readonly failedConfigIds: string[]) {
    super(`publishing to ${failedConfigIds.length} subscription(s) failed: ${failedConfigIds.join(', ')}`);
  }
}

/**
 * Publishes the event once to the topic of each of its portal's recipients, concurrently: one
 * Query of the portal's partition and one Publish per recipient. After an earlier try (see
 * mayFollowEarlierTry), the recipients recorded as served are skipped (one GetItem, alongside
 * the Query); when some recipients fail and others get the event, those that got it are
 * recorded (one UpdateItem), so the queue's retry of the event reaches only the others.
 */
export async function dispatchPortalEvent(
  { repository, sns, progress }: DispatchDeps,
  event: PortalEvent,
  { afterEarlierTry }: { afterEarlierTry: boolean },
): Promise<DispatchOutcome> {
  const [subscriptions, earlier] = await Promise.all([
    repository.listFor(event.portalId),
    afterEarlierTry ? progress.deliveredTo(event.eventId) : new Set<string>(),
  ]);
  const recipients = recipientsOf(subscriptions, event.kind);
  const publications = recipients.map((subscription) => ({
    subscription,
    input: publishInputFor(subscription.topicArn, {
      event: event.kind,
      portalId: event.portalId,
      configId: subscription.configId,
      occurredAt: event.occurredAt,
      eventId: event.eventId,
      data: event.data,
    }),
  }));
  const largest = Math.max(0, ...publications.map(({ input }) => publishSizeOf(input)));
  if (largest > MAX_PUBLISH_BYTES) {
    return { refused: `its message would be ${largest} bytes, over SNS's limit of ${MAX_PUBLISH_BYTES}` };
  }

  const pending = publications.filter(({ subscription }) => !earlier.has(subscription.configId));
  const outcomes = await Promise.allSettled(pending.map(({ input }) => publish(sns, input)));
  const delivered: string[] = [];
  const gone: { configId: string; topicArn: string }[] = [];
  const failed: FailedPublish[] = [];
  pending.forEach(({ subscription: { configId, topicArn } }, index) => {
    const outcome = outcomes[index]!;
    if (outcome.status === 'fulfilled') delivered.push(configId);
    else if (isTopicGone(outcome.reason)) gone.push({ configId, topicArn });
    else failed.push({ configId, topicArn, error: outcome.reason });
  });

  let progressNotSaved: unknown;
  if (failed.length > 0 && delivered.length > 0) {
    try {
      await progress.add(event.eventId, delivered);
    } catch (error) {
      progressNotSaved = error;
    }
  }
  const deliveredEarlier = recipients.map(({ configId }) => configId).filter((configId) => earlier.has(configId));
  return { delivered, deliveredEarlier, gone, failed, ...(progressNotSaved !== undefined && { progressNotSaved }) };
}
