/**
 * Floor of the attempts consumer: the subscription event unzipped, the topic's portal from its tag,
 * then one transaction of the batch's Puts and its record's counters (conditional on the record
 * having the topic). No read of the record, no cap, no parsing checks.
 */
import { ListTagsForResourceCommand } from '@aws-sdk/client-sns';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { gunzipSync } from 'node:zlib';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { TABLE_NAME } from './floor-http';

export async function handler(event: { awslogs: { data: string } }) {
  const { logEvents } = JSON.parse(gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8'));
  const records = logEvents.map((logEvent: { timestamp: number; message: string }) => ({ at: new Date(logEvent.timestamp).toISOString(), ...JSON.parse(logEvent.message) }));
  const topicArn: string = records[0].notification.topicArn;
  const configId = topicArn.split(':')[5]!.slice(-36);
  const { Tags = [] } = await snsClient.send(new ListTagsForResourceCommand({ ResourceArn: topicArn }));
  const portalId = Tags.find((tag) => tag.Key === 'portalId')!.Value!;
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
  return { stored: records.length, dropped: 0 };
}
