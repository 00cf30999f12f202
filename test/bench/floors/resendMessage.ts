/**
 * Floor of POST /resend: the portal's rate-limit token, GetItem (find the record), GetSubscriptionAttributes (only a
 * confirmed endpoint gets it), one Query of its messages for the event's latest, Publish of its body, and its log (the
 * message log's BatchWriteItem).
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { GetSubscriptionAttributesCommand, PublishCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { type FloorEvent, TABLE_NAME, bodyOf, logMessage, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  const { config_id: configId, event_id: eventId } = bodyOf<{ config_id: string; event_id: string }>(event);
  await takePortalToken(portalId, 'resendMessage');
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: TABLE_NAME, Key: { portalId, sk: `subscription#${configId}` }, ConsistentRead: true }),
  );
  await snsClient.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: Item!.subscriptionArn }));
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
      FilterExpression: 'eventId = :eventId',
      ExpressionAttributeValues: { ':portalId': portalId, ':prefix': `message#${configId}#`, ':eventId': eventId },
      ScanIndexForward: false,
      ConsistentRead: true,
    }),
  );
  const original = Items[0]!;
  const { MessageId } = await snsClient.send(
    new PublishCommand({
      TopicArn: Item!.topicArn,
      Message: String(original.body),
      MessageAttributes: { event: { DataType: 'String', StringValue: String(original.event) } },
    }),
  );
  await logMessage({ portalId, configId, messageId: MessageId!, eventId, event: String(original.event), occurredAt: String(original.occurredAt), body: String(original.body) });
  return ok({ message: 'Message sent again.', eventId, messageId: MessageId });
}
