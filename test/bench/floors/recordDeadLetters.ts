/**
 * Floor of the dead-letter recorder: per dead letter, one transaction of its Put and its record's
 * day counter (conditional on the record having its topic). No read, no cap, no parsing checks.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { TABLE_NAME } from './floor-http';

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const { MessageId, TopicArn, Message } = JSON.parse(record.body);
      const { portalId, configId, eventId, event: kind, occurredAt } = JSON.parse(Message);
      const failedAt = new Date(Number(record.attributes.SentTimestamp)).toISOString();
      await documentClient.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: TABLE_NAME,
                Item: { portalId, sk: `deadletter#${configId}#${failedAt}#${MessageId}`, configId, eventId, event: kind, occurredAt, failedAt, messageId: MessageId, message: Message },
                ConditionExpression: 'attribute_not_exists(sk)',
              },
            },
            {
              Update: {
                TableName: TABLE_NAME,
                Key: { portalId, sk: `subscription#${configId}` },
                UpdateExpression: 'ADD #day :one',
                ConditionExpression: 'topicArn = :topicArn',
                ExpressionAttributeNames: { '#day': `deadLetters@${failedAt.slice(0, 10)}` },
                ExpressionAttributeValues: { ':one': 1, ':topicArn': TopicArn },
              },
            },
          ],
        }),
      );
    } catch {
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
