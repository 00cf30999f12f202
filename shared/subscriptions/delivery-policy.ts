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

/** The attributes a new SNS subscription is created with (Subscribe's Attributes). */
export function snsSubscriptionAttributesFor(
  subscription: Pick<Subscription, 'protocol'>,
  deadLetterQueueArn: string | undefined,
): Record<string, string> {
  return {
    ...(deadLetterQueueArn && { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterQueueArn }) }),
    ...(HTTP_PROTOCOLS.has(subscription.protocol) && { DeliveryPolicy: JSON.stringify(HTTP_DELIVERY_POLICY) }),
  };
}
