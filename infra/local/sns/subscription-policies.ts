/**
 * What a subscription's attributes ask of its deliveries (state.ts): its DeliveryPolicy (retries,
 * content type; else its topic's) and its RedrivePolicy (the dead-letter queue).
 */
import type { SubscriptionRecord, TopicRecord } from './types';

/** SNS's limit on a delivery policy's numRetries. */
const MAX_POLICY_RETRIES = 100;

export interface DeliveryPolicy {
  healthyRetryPolicy?: { numRetries?: unknown } | null;
  throttlePolicy?: { maxReceivesPerSecond?: unknown } | null;
  requestPolicy?: { headerContentType?: unknown } | null;
}

/**
 * The subscription's throttle: its delivery policy's `throttlePolicy.maxReceivesPerSecond`, else
 * its topic's `http.defaultThrottlePolicy`; a value SNS would not take (below 1, not whole) is none.
 */
export function maxReceivesPerSecondOf(policy: DeliveryPolicy | undefined, topic: TopicRecord | undefined): number | undefined {
  const valid = (rate: unknown) => (typeof rate === 'number' && Number.isInteger(rate) && rate >= 1 ? rate : undefined);
  const own = valid(policy?.throttlePolicy?.maxReceivesPerSecond);
  if (own !== undefined || !topic?.attributes.DeliveryPolicy) return own;
  try {
    const topicPolicy = JSON.parse(topic.attributes.DeliveryPolicy) as { http?: { defaultThrottlePolicy?: { maxReceivesPerSecond?: unknown } } } | null;
    return valid(topicPolicy?.http?.defaultThrottlePolicy?.maxReceivesPerSecond);
  } catch {
    return undefined;
  }
}

/**
 * Parsed delivery policies by their text: every message, and every attempt (its throttle), reads
 * its subscription's policy, and a stack holds few distinct ones (the service gives all the same).
 * Cleared when it grows past a bound, so hand-made policies cannot grow it without end.
 */
const parsedPolicies = new Map<string, DeliveryPolicy | undefined>();
const PARSED_POLICIES_KEPT = 1_000;

/** The subscription's DeliveryPolicy (checked to be JSON when it was set), or undefined. */
export function deliveryPolicyOf(subscription: SubscriptionRecord): DeliveryPolicy | undefined {
  const text = subscription.attributes.DeliveryPolicy;
  if (!text) return undefined;
  if (parsedPolicies.has(text)) return parsedPolicies.get(text);
  let parsed: DeliveryPolicy | undefined;
  try {
    const policy: unknown = JSON.parse(text);
    parsed = typeof policy === 'object' && policy !== null ? (policy as DeliveryPolicy) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsedPolicies.size >= PARSED_POLICIES_KEPT) parsedPolicies.clear();
  parsedPolicies.set(text, parsed);
  return parsed;
}

/**
 * The content type a notification is sent with: the subscription's delivery policy's, else its
 * topic's (`http.defaultRequestPolicy.headerContentType`), else SNS's text/plain.
 */
export function notificationContentType(policy: DeliveryPolicy | undefined, topic: TopicRecord | undefined): unknown {
  const own = policy?.requestPolicy?.headerContentType;
  if (typeof own === 'string') return own;
  try {
    const topicPolicy = JSON.parse(topic?.attributes.DeliveryPolicy || 'null') as { http?: { defaultRequestPolicy?: { headerContentType?: unknown } } } | null;
    return topicPolicy?.http?.defaultRequestPolicy?.headerContentType;
  } catch {
    return undefined;
  }
}

/** The retries a delivery policy asks for; undefined leaves the emulator's default. */
export function retriesOf(policy: DeliveryPolicy | undefined): number | undefined {
  const retries = policy?.healthyRetryPolicy?.numRetries;
  return typeof retries === 'number' && Number.isInteger(retries) && retries >= 0 ? Math.min(retries, MAX_POLICY_RETRIES) : undefined;
}

/** The dead-letter queue of the subscription's RedrivePolicy, or undefined. */
export function deadLetterTargetOf(subscription: SubscriptionRecord): string | undefined {
  const text = subscription.attributes.RedrivePolicy;
  if (!text) return undefined;
  try {
    const target = (JSON.parse(text) as { deadLetterTargetArn?: unknown }).deadLetterTargetArn;
    return typeof target === 'string' && target !== '' ? target : undefined;
  } catch {
    return undefined;
  }
}
