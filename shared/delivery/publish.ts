import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type DeliveryMessage, EVENT_ATTRIBUTE, publishInputFor } from './message';

/** Publishes one message to a subscription's topic; answers SNS's message id. */
export async function publishToTopic(sns: SNSClient, topicArn: string, message: DeliveryMessage): Promise<string> {
  return publish(sns, publishInputFor(topicArn, message));
}

/**
 * Publishes a body the service published before (a dead letter's), byte for byte, with the
 * same `event` attribute publishInputFor sets; answers SNS's message id.
 */
export async function publishBody(sns: SNSClient, topicArn: string, body: string, event: string): Promise<string> {
  return publish(sns, { TopicArn: topicArn, Message: body, MessageAttributes: { [EVENT_ATTRIBUTE]: { DataType: 'String', StringValue: event } } });
}

/** Publishes an input made by publishInputFor; answers SNS's message id. */
export async function publish(sns: SNSClient, input: ReturnType<typeof publishInputFor>): Promise<string> {
  const { MessageId } = await sns.send(new PublishCommand(input));
  return MessageId!;
}

/**
 * Whether a Publish failed because its topic does not exist (SNS API Reference, "Publish":
 * NotFound), as when its subscription was deleted after the event's recipients were read.
 */
export function isTopicGone(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'NotFoundException';
}
