/**
 * Update: the event list, the throttle, the filter, or any of them together. The event list and
 * the filter live in the record alone (the dispatcher reads them for every batch, so the next
 * event sees them); the throttle lives in SNS too, in the delivery policy of
 * the record's SNS subscription, which SNS enforces (delivery-policy.ts).
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { SetSubscriptionAttributesCommand } from '../aws/sns-commands';
import { deliveryPolicyFor, takesDeliveryPolicy } from './delivery-policy';
import type { Subscription } from './model';
import type { SubscriptionChanges, SubscriptionRepository } from '../data/subscription-repository';

export interface UpdateSubscriptionDeps {
  repository: Pick<SubscriptionRepository, 'update'>;
  sns: SNSClient;
}

/** SNS's stand-in for the ARN of a subscription Subscribe was not asked to name. */
const PENDING_ARN = 'pending confirmation';

/**
 * Writes the record first (conditionally: it must exist in the portal and, for a throttle, be
 * http/https), then sets its SNS subscription's delivery policy from what the record now holds.
 * If SNS fails after the write, the caller gets the error and repeating the request completes it;
 * the reconciler sets a drifted policy again from the record too. An SNS subscription that is gone
 * (unsubscribed) is left so: `POST /confirm` subscribes the endpoint again with the record's policy.
 */
export async function updateSubscription(
  { repository, sns }: UpdateSubscriptionDeps,
  portalId: string,
  configId: string,
  changes: Pick<SubscriptionChanges, 'events' | 'maxReceivesPerSecond' | 'filter'>,
): Promise<Subscription> {
  const updated = await repository.update(portalId, configId, changes);
  if (changes.maxReceivesPerSecond !== undefined && takesDeliveryPolicy(updated.protocol)) await applyDeliveryPolicy(sns, updated);
  return updated;
}

/** Sets the delivery policy the record calls for on its SNS subscription; none to set on one that is gone. */
export async function applyDeliveryPolicy(sns: SNSClient, subscription: Subscription): Promise<void> {
  if (subscription.subscriptionArn.toLowerCase() === PENDING_ARN) return;
  try {
    await sns.send(
      new SetSubscriptionAttributesCommand({
        SubscriptionArn: subscription.subscriptionArn,
        AttributeName: 'DeliveryPolicy',
        AttributeValue: deliveryPolicyFor(subscription),
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'NotFoundException') throw error;
  }
}
