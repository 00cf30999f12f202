/** The shapes of SNS's names and ARNs, as the emulator checks them. */
import { invalidParameter, malformedArn } from './errors';

export const TOPIC_NAME = /^(?:[A-Za-z0-9_-]{1,256}|[A-Za-z0-9_-]{1,251}\.fifo)$/;
export const TOPIC_ARN = /^arn:[^:]+:sns:[^:]*:[^:]+:[A-Za-z0-9_-]+(?:\.fifo)?$/;
const SUBSCRIPTION_ARN = /^(arn:[^:]+:sns:[^:]*:[^:]+:[A-Za-z0-9_-]+(?:\.fifo)?):[0-9a-f-]{36}$/;

/**
 * The ARN, once its shape is a subscription's: fewer than 6 elements is a malformed ARN, a topic's
 * ARN (no subscription id) is "Invalid parameter: SubscriptionId", as SNS answers them.
 */
export function checkedSubscriptionArn(arn: string): string {
  const malformed = malformedArn('SubscriptionArn', arn);
  if (malformed) throw malformed;
  if (TOPIC_ARN.test(arn)) throw invalidParameter('SubscriptionId');
  if (!SUBSCRIPTION_ARN.test(arn)) throw invalidParameter('SubscriptionArn');
  return arn;
}

/** A subscription's ARN is its topic's ARN and one more segment. */
export function topicArnOfSubscription(subscriptionArn: string): string {
  return subscriptionArn.slice(0, subscriptionArn.lastIndexOf(':'));
}
