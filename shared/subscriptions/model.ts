import { attemptHealthOf, deadLetterSummaryOf, disablingOf, type Subscription, type SubscriptionState } from '../data/subscription-record';
import { maskCredentials } from '../masked-credentials';

/** A webhook subscription as the service stores it: the record's one typed interface (shared/data/). */
export { ACTIVATED, PROTOCOLS, type Protocol, type Subscription, type SubscriptionStatus } from '../data/subscription-record';

/**
 * The record as create answers it. `subscriptionState`: SNS's side of it (sns-subscription.ts);
 * nothing is delivered until it is `confirmed`. `confirmed` says the same as a boolean.
 */
export function recordView(subscription: Subscription, subscriptionState: SubscriptionState) {
  const { configId, endpoint, events, name, portalId, protocol, subscriptionArn, topicArn, status } = subscription;
  const confirmed = subscriptionState === 'confirmed';
  // Stored masked; masked again for a record written before passwords were (docs/security.md).
  return {
    configId,
    endpoint: maskCredentials(endpoint),
    events,
    name,
    portalId,
    protocol,
    subscriptionArn,
    topicArn,
    status,
    confirmed,
    subscriptionState,
    ...throttleOf(subscription),
    ...filterOf(subscription),
  };
}

/**
 * One entry of the list answer. Its dead-letter counts and its health come from counters on the
 * record itself (shared/data/subscription-record.ts), read in the same Query.
 */
export function listEntryView(subscription: Subscription, subscriptionState: SubscriptionState) {
  const { configId, name, endpoint, protocol, events, status } = subscription;
  const { deadLetters, deadLettersRetrying, lastDeadLetterAt, deadLettersDropped } = deadLetterSummaryOf(subscription);
  return {
    configId,
    name,
    endpoint: maskCredentials(endpoint),
    protocol,
    events,
    status,
    confirmed: subscriptionState === 'confirmed',
    subscriptionState,
    deadLetters,
    deadLettersRetrying,
    lastDeadLetterAt,
    deadLettersDropped,
    ...attemptHealthOf(subscription),
    ...throttleOf(subscription),
    ...filterOf(subscription),
    ...disablingOf(subscription),
  };
}

/** `maxReceivesPerSecond` when the subscription has a throttle; nothing otherwise. */
export function throttleOf(subscription: Pick<Subscription, 'maxReceivesPerSecond'>): { maxReceivesPerSecond?: number } {
  return subscription.maxReceivesPerSecond === undefined ? {} : { maxReceivesPerSecond: subscription.maxReceivesPerSecond };
}

/** `filter` (the policy, as sent) when the subscription has one; nothing otherwise. */
export function filterOf(subscription: Pick<Subscription, 'filter'>): { filter?: Record<string, unknown> } {
  return subscription.filter === undefined ? {} : { filter: JSON.parse(subscription.filter) as Record<string, unknown> };
}
