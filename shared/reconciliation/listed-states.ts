/**
 * The state of each record's SNS subscription as the listing shows it, for the reconciler
 * (reconcile.ts): a record whose topic exists gets that state stored when it differs from the
 * stored one (confirmed, pending, unsubscribed), so that list, which trusts a stored `confirmed`,
 * shows a confirmation that lapsed within one run. A subscription gone (the endpoint
 * unsubscribed, or never confirmed in time) is only recorded so, never subscribed again.
 */
import { maskCredentials } from '../masked-credentials';
import type { Subscription } from '../subscriptions/model';
import type { SubscriptionState } from '../subscriptions/sns-subscription';
import { type ListedSubscription, PENDING_CONFIRMATION } from './sns-inventory';

export function groupByTopic(subscriptions: ListedSubscription[]): Map<string, ListedSubscription[]> {
  const byTopic = new Map<string, ListedSubscription[]>();
  for (const subscription of subscriptions) {
    const list = byTopic.get(subscription.topicArn) ?? [];
    list.push(subscription);
    byTopic.set(subscription.topicArn, list);
  }
  return byTopic;
}

/**
 * The state of the record's subscription as the listing shows it. SNS lists a confirmed
 * subscription by its ARN and an unconfirmed one (never confirmed, or an e-mail subscription SNS
 * deactivated) as `PendingConfirmation` (sns-inventory.ts), so a pending subscription of the
 * record's protocol and endpoint on its topic is the record's; one not listed at all is gone.
 * Endpoints are compared with their passwords masked: SNS lists an endpoint so (`user:****@`), and
 * the record stores it so.
 */
export function listedStateOf(record: Subscription, onTopic: ListedSubscription[] | undefined): SubscriptionState {
  const listed = onTopic ?? [];
  if (listed.some(({ subscriptionArn }) => subscriptionArn === record.subscriptionArn)) return 'confirmed';
  const pending = listed.some(
    ({ subscriptionArn, protocol, endpoint }) =>
      subscriptionArn === PENDING_CONFIRMATION && protocol === record.protocol && maskCredentials(endpoint) === maskCredentials(record.endpoint),
  );
  return pending ? 'pending' : 'unsubscribed';
}
