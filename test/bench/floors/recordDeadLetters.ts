/**
 * Floor of the dead-letter recorder: the retry ledgers of the batch's events in one BatchGetItem
 * (how many scheduled retries each had), the batch's logged messages in another (each found one
 * marked dead-lettered), then per dead letter one transaction of its Put, its
 * next retry's due work and its record's day counter (conditional on the record having its topic). No record read, no cap, no
 * parsing checks.
 */
import { BatchGetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { TABLE_NAME } from './floor-http';

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const ledgerKeys = new Map<string, { portalId: string; sk: string }>();
  for (const record of event.Records) {
    try {
      const { portalId, configId, eventId } = JSON.parse(JSON.parse(record.body).Message);
      ledgerKeys.set(`${portalId}\n${configId}\n${eventId}`, { portalId, sk: `retried#${configId}#${eventId}` });
    } catch {
      // Counted as a failure below.
    }
  }
  if (ledgerKeys.size > 0) {
    await documentClient.send(new BatchGetCommand({ RequestItems: { [TABLE_NAME]: { Keys: [...ledgerKeys.values()], ConsistentRead: true } } }));
  }
  // The batch's messages in the message log, by SNS message id (the service marks each found one dead-lettered).
  const messageIds = event.Records.flatMap((record) => {
    try {
      return [String(JSON.parse(record.body).MessageId)];
    } catch {
      return [];
    }
  });
  const logged = messageIds.length === 0
    ? []
    : ((await documentClient.send(new BatchGetCommand({ RequestItems: { [TABLE_NAME]: { Keys: [...new Set(messageIds)].map((id) => ({ portalId: `message-id#${id}`, sk: 'message' })), ConsistentRead: true } } })))
        .Responses?.[TABLE_NAME] ?? []);
  for (const owner of logged) {
    await documentClient.send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key: { portalId: owner.subscriptionPortalId, sk: owner.messageSk },
        UpdateExpression: 'SET deliveryState = :deadLettered',
        ConditionExpression: 'attribute_exists(sk)',
        ExpressionAttributeValues: { ':deadLettered': 'dead-lettered' },
      }),
    );
  }
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
              // Its next scheduled retry, 5 minutes on (the schedule's first wait), in the sweep's partition.
              Put: {
                TableName: TABLE_NAME,
                Item: {
                  portalId: 'retry-due#0',
                  sk: `${new Date(Date.parse(failedAt) + 300_000).toISOString()}#retry#${portalId}#${configId}#${failedAt}#${MessageId}`,
                  kind: 'retry',
                  dueAt: new Date(Date.parse(failedAt) + 300_000).toISOString(),
                  subscriptionPortalId: portalId,
                  configId,
                  letterSk: `deadletter#${configId}#${failedAt}#${MessageId}`,
                },
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
