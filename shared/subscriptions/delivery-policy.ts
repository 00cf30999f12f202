/**
 * How SNS treats each subscription's deliveries, as the attributes of its SNS subscription:
 * which messages it admits (the filter policy, so SNS enforces a subscription's events and
 * status whoever publishes), how often http/https deliveries are retried, and where messages go
 * when every retry failed.
 */
import { EVENT_ATTRIBUTE, TEST_EVENT_KIND } from '../delivery/message';
import { ACTIVATED, type Protocol, type Subscription } from './model';

/**
 * Admits the subscription's event kinds while it is activated, and the test event always, so
 * `POST /test` reaches a deactivated subscription too.
 */
export function filterPolicyFor({ events, status }: Pick<Subscription, 'events' | 'status'>): string {
  return JSON.stringify({ [EVENT_ATTRIBUTE]: status === ACTIVATED ? [...events, TEST_EVENT_KIND] : [TEST_EVENT_KIND] });
}

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
  subscription: Pick<Subscription, 'events' | 'status' | 'protocol'>,
  deadLetterQueueArn: string | undefined,
): Record<string, string> {
  return {
    FilterPolicy: filterPolicyFor(subscription),
    ...(deadLetterQueueArn && { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterQueueArn }) }),
    ...(HTTP_PROTOCOLS.has(subscription.protocol) && { DeliveryPolicy: JSON.stringify(HTTP_DELIVERY_POLICY) }),
  };
}

/**
 * Whether SNS confirms a new subscription itself, as it does for sqs and lambda endpoints in
 * the topic's own account; every other one stays pending until the endpoint confirms (http/https
 * by visiting SubscribeURL, e-mail by a click, a queue or function of another account by its
 * owner). `topicAccount` is the account of the service's topics.
 */
export function confirmedAtCreation({ protocol, endpoint }: Pick<Subscription, 'protocol' | 'endpoint'>, topicAccount: string): boolean {
  return (protocol === 'sqs' || protocol === 'lambda') && endpoint.split(':')[4] === topicAccount;
}
