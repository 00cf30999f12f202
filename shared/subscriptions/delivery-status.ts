/**
 * Delivery status logging of a subscription's topic: SNS writes a record of each delivery to an
 * http/https, sqs or lambda endpoint to CloudWatch Logs (log groups `sns/<region>/<account>/<topic>`
 * and `.../Failure`), which the attempts consumer keeps for the tenant (shared/attempts/). The topic
 * attributes are those of "Amazon SNS message delivery status" (SNS Developer Guide,
 * "Configuring delivery status logging using the AWS SDKs"); e-mail has none, SNS logs nothing for it.
 * One role for success and failure: SNS needs the same rights for both.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { SetTopicAttributesCommand } from '../aws/sns-commands';

export interface DeliveryStatusLogging {
  /** The role SNS assumes to write the logs (iam:PassRole needed to name it). */
  readonly roleArn: string;
  /** Percentage of successful deliveries logged; failures are always logged. */
  readonly successSampleRate: number;
}

/** The protocols SNS logs delivery status for, by the prefix of their topic attributes, among those the service offers. */
const LOGGED_PROTOCOLS = ['HTTP', 'SQS', 'Lambda'] as const;

/** The topic attributes that turn delivery status logging on for every protocol SNS logs. */
export function deliveryStatusAttributes({ roleArn, successSampleRate }: DeliveryStatusLogging): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const protocol of LOGGED_PROTOCOLS) {
    attributes[`${protocol}SuccessFeedbackRoleArn`] = roleArn;
    attributes[`${protocol}SuccessFeedbackSampleRate`] = String(successSampleRate);
    attributes[`${protocol}FailureFeedbackRoleArn`] = roleArn;
  }
  return attributes;
}

/**
 * What a record remembers of the logging its topic was given (attribute DELIVERY_STATUS_ATTRIBUTE),
 * so the reconciler sets it again only when the role or the sample rate changed, or was never set.
 */
export const DELIVERY_STATUS_ATTRIBUTE = 'deliveryStatusLogging';
export const deliveryStatusMarkOf = ({ roleArn, successSampleRate }: DeliveryStatusLogging) => `${roleArn}|${successSampleRate}`;

/** Sets the logging on an existing topic: SetTopicAttributes takes one attribute a call. */
export async function enableDeliveryStatus(sns: SNSClient, topicArn: string, logging: DeliveryStatusLogging): Promise<void> {
  for (const [AttributeName, AttributeValue] of Object.entries(deliveryStatusAttributes(logging))) {
    await sns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName, AttributeValue }));
  }
}

/** The logging of the configuration, or none when no role is configured. */
export function deliveryStatusOf(config: { deliveryStatusRoleArn: string | undefined; deliveryStatusSuccessSampleRate: number }): DeliveryStatusLogging | undefined {
  return config.deliveryStatusRoleArn ? { roleArn: config.deliveryStatusRoleArn, successSampleRate: config.deliveryStatusSuccessSampleRate } : undefined;
}
