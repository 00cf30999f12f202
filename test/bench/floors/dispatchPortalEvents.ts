/** Floor of the dispatcher: per queued event, one Query of its portal and one Publish per recipient. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { PublishCommand } from '@aws-sdk/client-sns';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { TABLE_NAME } from './floor-http';

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const { id, time, 'detail-type': kind, detail } = JSON.parse(record.body);
      const { portalId, ...data } = detail;
      const { Items = [] } = await documentClient.send(
        new QueryCommand({
          TableName: TABLE_NAME,
          KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':portalId': portalId, ':prefix': 'subscription#' },
          ConsistentRead: true,
        }),
      );
      const recipients = Items.filter((item) => item.status === 1 && (item.events as string[]).includes(kind));
      await Promise.all(
        recipients.map((item) =>
          snsClient.send(
            new PublishCommand({
              TopicArn: item.topicArn,
              Message: JSON.stringify({ event: kind, portalId, configId: item.configId, occurredAt: time, eventId: id, data }),
              MessageAttributes: { event: { DataType: 'String', StringValue: kind } },
            }),
          ),
        ),
      );
    } catch {
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
