import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type DeliveryMessage, publishInputFor } from './message';

/** Publishes one message to a subscription's topic; answers SNS's message id. */
export async function publishToTopic(sns: SNSClient, topicArn: string, message: DeliveryMessage): Promise<string> {
  const { MessageId } = await sns.send(new PublishCommand(publishInputFor(topicArn, message)));
  return MessageId!;
}
