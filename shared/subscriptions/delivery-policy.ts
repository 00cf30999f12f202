/**
 * How SNS treats each subscription's deliveries, as the attributes of its SNS subscription: how
 * often http/https deliveries are retried, and where messages go when every retry failed.
 *
 * No filter policy: which events reach a subscription is decided by the dispatcher alone
 * (shared/delivery/dispatch.ts), from the record, at the moment it publishes. SNS allows 10,000
 * filter policies per account ("Filter policy constraints in Amazon SNS"), which would cap the
 * service at 10,000 subscriptions, and a change of one takes up to 15 minutes to take effect
 * ("Amazon SNS subscription filter policies"), during which matching events would be dropped
 * silently. What a filter policy also guaranteed, that nobody else's messages reach an endpoint,
 * the topic's access policy guarantees instead (topic-policy.ts).
 */
import type { Protocol, Subscription } from './model';

/**
 * Retries of http/https deliveries, in SNS's delivery policy format (docs/delivery.md): two
 * quick retries after 5 s, then exponential backoff up to 5 minutes, then 5-minute retries:
 * 12 retries over about 26 minutes, enough to ride out an endpoint's deploy or short outage
 * while staying within SNS's 1-hour limit. Receivers get `Content-Type: application/json`.
 */
export const HTTP_DELIVERY_POLICY = {
  healthyRetryPolicy: {
    minDelayTarget: 5,
    maxDelayTarget: 300,
    numRetries: 12,
    numNoDelayRetries: 0,
    numMinDelayRetries: 2,
    numMaxDelayRetries: 4,
    backoffFunction: 'exponential',
  },
  requestPolicy: { headerContentType: 'application/json' },
} as const;

const HTTP_PROTOCOLS: ReadonlySet<Protocol> = new Set(['http', 'https']);

/** Whether SNS takes a delivery policy (and so a throttle) for the protocol: http/https only. */
export const takesDeliveryPolicy = (protocol: Protocol): boolean => HTTP_PROTOCOLS.has(protocol);

type PolicyInputs = Pick<Subscription, 'protocol'> & Partial<Pick<Subscription, 'maxReceivesPerSecond'>>;

/**
 * The delivery policy of an http/https subscription: the retries above and, when the tenant chose
 * one, SNS's throttle (`throttlePolicy.maxReceivesPerSecond`: SNS sends at most that many
 * deliveries per second to the subscription, and the rest wait; "Amazon SNS message delivery
 * retries", section "Creating an HTTP/S delivery policy").
 */
export function deliveryPolicyFor(subscription: PolicyInputs): string {
  const { maxReceivesPerSecond } = subscription;
  return JSON.stringify({ ...HTTP_DELIVERY_POLICY, ...(maxReceivesPerSecond !== undefined && { throttlePolicy: { maxReceivesPerSecond } }) });
}

/** The attributes a new SNS subscription is created with (Subscribe's Attributes). */
export function snsSubscriptionAttributesFor(subscription: PolicyInputs, deadLetterQueueArn: string | undefined): Record<string, string> {
  return {
    ...(deadLetterQueueArn && { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterQueueArn }) }),
    ...(takesDeliveryPolicy(subscription.protocol) && { DeliveryPolicy: deliveryPolicyFor(subscription) }),
  };
}

/**
 * Whether the DeliveryPolicy SNS holds (GetSubscriptionAttributes, stored as SNS normalizes it:
 * the policies not given as null, `guaranteed` false) is the one `deliveryPolicyFor` gives.
 * Compared policy by policy, so SNS's normalization is no difference; a missing one is.
 */
export function deliveryPolicyHolds(stored: string | undefined, subscription: PolicyInputs): boolean {
  let held: Record<string, unknown>;
  try {
    held = JSON.parse(stored ?? 'null') as Record<string, unknown>;
  } catch {
    return false;
  }
  if (typeof held !== 'object' || held === null) return false;
  const wanted = JSON.parse(deliveryPolicyFor(subscription)) as Record<string, unknown>;
  return ['healthyRetryPolicy', 'throttlePolicy', 'requestPolicy'].every((name) => sameJson(held[name] ?? null, wanted[name] ?? null));
}

/** Deep equality of JSON values, whatever the order of object keys. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  }
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  return aKeys.length === Object.keys(b).length && aKeys.every((key) => key in bRecord && sameJson((a as Record<string, unknown>)[key], bRecord[key]));
}
