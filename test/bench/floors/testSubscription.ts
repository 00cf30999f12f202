/** Floor of test: the portal's rate-limit token, GetItem (find the record), GetSubscriptionAttributes (only a confirmed endpoint gets it), Publish, and its log (the message log's BatchWriteItem). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { GetSubscriptionAttributesCommand, PublishCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { type FloorEvent, TABLE_NAME, bodyOf, logMessage, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  const { config_id: configId } = bodyOf<{ config_id: string }>(event);
  await takePortalToken(portalId, 'testSubscription');
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: TABLE_NAME, Key: { portalId, sk: `subscription#${configId}` }, ConsistentRead: true }),
  );
  await snsClient.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: Item!.subscriptionArn }));
  const message = { event: 'webhooks.test', portalId, configId, occurredAt: new Date().toISOString(), eventId: randomUUID(), data: { name: Item!.name } };
  const { MessageId } = await snsClient.send(
    new PublishCommand({
      TopicArn: Item!.topicArn,
      Message: JSON.stringify(message),
      MessageAttributes: { event: { DataType: 'String', StringValue: 'webhooks.test' } },
    }),
  );
  await logMessage({ portalId, configId, messageId: MessageId!, eventId: message.eventId, event: message.event, occurredAt: message.occurredAt, body: JSON.stringify(message) });
  return ok({ message: 'Test event sent.', messageId: MessageId });
}
