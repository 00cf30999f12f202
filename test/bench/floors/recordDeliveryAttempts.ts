/**
 * Floor of the attempts consumer: the subscription event unzipped, the records' messages (so their
 * portal) read from the message log in one BatchGetItem, then one transaction of the batch's Puts
 * and its record's counters (conditional on the record having the topic), and each message's
 * delivery state set. No read of the record, no cap, no parsing checks.
 */
import { BatchGetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { gunzipSync } from 'node:zlib';
import { documentClient } from '../../../shared/aws/dynamodb';
import { TABLE_NAME } from './floor-http';

export async function handler(event: { awslogs: { data: string } }) {
  const { logEvents } = JSON.parse(gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8'));
  const records = logEvents.map((logEvent: { timestamp: number; message: string }) => ({ at: new Date(logEvent.timestamp).toISOString(), ...JSON.parse(logEvent.message) }));
  const topicArn: string = records[0].notification.topicArn;
  const configId = topicArn.split(':')[5]!.slice(-36);
  const { Responses = {} } = await documentClient.send(
    new BatchGetCommand({
      RequestItems: { [TABLE_NAME]: { Keys: records.map((record: { notification: { messageId: string } }) => ({ portalId: `message-id#${record.notification.messageId}`, sk: 'message' })), ConsistentRead: true } },
    }),
  );
  const owners = Responses[TABLE_NAME] ?? [];
  const portalId = String(owners[0]!.subscriptionPortalId);
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        ...records.map((record: { at: string; status: string; notification: { messageId: string }; delivery: Record<string, number> }) => ({
          Put: {
            TableName: TABLE_NAME,
            Item: {
              portalId,
              sk: `attempt#${configId}#${record.at}#${record.notification.messageId}`,
              at: record.at,
              status: record.status === 'SUCCESS' ? 'delivered' : 'failed',
              statusCode: record.delivery.statusCode,
              dwellTimeMs: record.delivery.dwellTimeMs,
              attempts: record.delivery.attempts,
              messageId: record.notification.messageId,
            },
            ConditionExpression: 'attribute_not_exists(sk)',
          },
        })),
        {
          Update: {
            TableName: TABLE_NAME,
            Key: { portalId, sk: `subscription#${configId}` },
            UpdateExpression: 'SET lastDeliveredAt = :at ADD #kept :count',
            ConditionExpression: 'topicArn = :topicArn',
            ExpressionAttributeNames: { '#kept': `attemptsKept@${records[0].at.slice(0, 10)}` },
            ExpressionAttributeValues: { ':at': records.at(-1).at, ':count': records.length, ':topicArn': topicArn },
          },
        },
      ],
    }),
  );
  await Promise.all(
    owners.map((owner, index) =>
      documentClient.send(
        new UpdateCommand({
          TableName: TABLE_NAME,
          Key: { portalId, sk: owner.messageSk },
          UpdateExpression: 'SET deliveryState = :state, lastAttemptAt = :at, statusCode = :code, attempts = :attempts',
          ExpressionAttributeValues: { ':state': 'delivered', ':at': records[index].at, ':code': 200, ':attempts': 1 },
        }),
      ),
    ),
  );
  return { stored: records.length, dropped: 0 };
}
