import { attemptHealthOf } from '../attempts/counts';
import { deadLetterSummaryOf } from '../dead-letters/day-counts';
import { DISABLED_AT_ATTRIBUTE, DISABLED_REASON_ATTRIBUTE } from '../dead-letters/due-work';
import { maskCredentials } from '../masked-credentials';
import type { SubscriptionState } from './sns-subscription';

/** A webhook subscription as the service stores it. */
export interface Subscription {
  portalId: string;
  /** UUIDv7: sorts by creation time. */
  configId: string;
  name: string;
  endpoint: string;
  protocol: Protocol;
  /** Event kinds from the catalog, without duplicates, in the order given. */
  events: string[];
  status: SubscriptionStatus;
  topicArn: string;
  subscriptionArn: string;
  createdAt: string;
  /**
   * Whether the endpoint confirmed, as last known: set by create and confirm, refreshed by list
   * for a record not known to be confirmed and by every reconciler run (docs/api.md#subscription-state).
   * Absent on records written before it was stored: list asks SNS for those.
   */
  subscriptionState?: SubscriptionState;
  /** When `subscriptionState` was observed (ISO 8601); the reconciler never overwrites a newer one. */
  subscriptionStateAt?: string;
  /** http/https only: SNS's `throttlePolicy.maxReceivesPerSecond` of its delivery policy (delivery-policy.ts). Absent: none. */
  maxReceivesPerSecond?: number;
}

export const PROTOCOLS = ['https', 'http', 'email', 'email-json', 'sqs', 'lambda'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** 1 = activated, 0 = deactivated. New subscriptions start activated. */
export type SubscriptionStatus = 0 | 1;
export const ACTIVATED: SubscriptionStatus = 1;

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
  };
}

/**
 * One entry of the list answer. Its dead-letter counts and its health come from counters on the
 * record itself (dead-letters/day-counts.ts, attempts/counts.ts), read in the same Query.
 */
export function listEntryView(subscription: Subscription, subscriptionState: SubscriptionState) {
  const { configId, name, endpoint, protocol, events, status } = subscription;
  const { deadLetters, lastDeadLetterAt, deadLettersDropped } = deadLetterSummaryOf(subscription as unknown as Record<string, unknown>);
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
    lastDeadLetterAt,
    deadLettersDropped,
    // The 24-hour counts do not depend on how long attempts are kept: any keeping time will do.
    ...attemptHealthOf(subscription as unknown as Record<string, unknown>, 1),
    ...throttleOf(subscription),
    ...disablingOf(subscription as unknown as Record<string, unknown>),
  };
}

/** `maxReceivesPerSecond` when the subscription has a throttle; nothing otherwise. */
export function throttleOf(subscription: Pick<Subscription, 'maxReceivesPerSecond'>): { maxReceivesPerSecond?: number } {
  return subscription.maxReceivesPerSecond === undefined ? {} : { maxReceivesPerSecond: subscription.maxReceivesPerSecond };
}

/** Why and when the service deactivated the subscription (shared/dead-letters/sweep.ts); nulls when it did not. */
function disablingOf(record: Record<string, unknown>) {
  const reason = record[DISABLED_REASON_ATTRIBUTE];
  const at = record[DISABLED_AT_ATTRIBUTE];
  return { disabledReason: reason === 'failing' ? ('failing' as const) : null, disabledAt: typeof at === 'string' ? at : null };
}
