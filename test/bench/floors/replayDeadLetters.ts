/**
 * Floor of POST /replay: the portal's rate-limit token, GetItem (the record), GetSubscriptionAttributes
 * (confirmed?), one Query of the kept dead letters, then per message a conditional UpdateItem claiming
 * it, a Publish and a transaction removing it and its count.
 */
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { GetSubscriptionAttributesCommand, PublishCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { type FloorEvent, TABLE_NAME, bodyOf, logMessage, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  const { config_id: configId } = bodyOf<{ config_id: string }>(event);
  await takePortalToken(portalId, 'replayDeadLetters');
  const { Item } = await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key: { portalId, sk: `subscription#${configId}` }, ConsistentRead: true }));
  await snsClient.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: Item!.subscriptionArn }));
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':portalId': portalId, ':prefix': `deadletter#${configId}#` },
      ConsistentRead: true,
      Limit: 100,
    }),
  );
  await Promise.all(
    Items.map(async (letter) => {
      const until = Date.now() + 60_000;
      await documentClient.send(
        new UpdateCommand({
          TableName: TABLE_NAME,
          Key: { portalId, sk: letter.sk },
          UpdateExpression: 'SET replayClaimedUntil = :until, replayClaimedBy = :by',
          ConditionExpression: 'attribute_exists(sk) AND (attribute_not_exists(replayClaimedUntil) OR replayClaimedUntil <= :now)',
          ExpressionAttributeValues: { ':until': until, ':by': 'floor', ':now': Date.now() },
        }),
      ).catch(() => undefined); // a floor takes the claim's cost, not its verdict
      const { MessageId } = await snsClient.send(
        new PublishCommand({ TopicArn: Item!.topicArn, Message: letter.message, MessageAttributes: { event: { DataType: 'String', StringValue: letter.event } } }),
      );
      await logMessage({ portalId, configId, messageId: MessageId!, eventId: letter.eventId, event: letter.event, occurredAt: letter.occurredAt, body: letter.message });
      await documentClient.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: TABLE_NAME, Key: { portalId, sk: letter.sk } } },
            {
              Update: {
                TableName: TABLE_NAME,
                Key: { portalId, sk: `subscription#${configId}` },
                UpdateExpression: 'ADD #day :minusOne',
                ExpressionAttributeNames: { '#day': `deadLetters@${String(letter.failedAt).slice(0, 10)}` },
                ExpressionAttributeValues: { ':minusOne': -1 },
              },
            },
          ],
        }),
      );
    }),
  );
  return ok({ message: `${Items.length} sent again.`, replayed: Items.length, remaining: 0 });
}
