/**
 * Floor of the dispatcher: per portal of the batch, one Query; per recipient, its events in
 * PublishBatch calls of up to 10 entries; then the same message log writes as the service's (each
 * message and its owner by message id, 12 messages to a BatchWriteItem). A portal that fails fails its records.
 */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { PublishBatchCommand } from '@aws-sdk/client-sns';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { TABLE_NAME } from './floor-http';

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const byPortal = new Map<string, { record: SQSRecord; position: number; id: string; time: string; kind: string; data: Record<string, unknown> }[]>();
  event.Records.forEach((record, position) => {
    const { id, time, 'detail-type': kind, detail } = JSON.parse(record.body);
    const { portalId, ...data } = detail;
    byPortal.set(portalId, [...(byPortal.get(portalId) ?? []), { record, position, id, time, kind, data }]);
  });
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    [...byPortal].map(async ([portalId, events]) => {
      try {
        const { Items = [] } = await documentClient.send(
          new QueryCommand({
            TableName: TABLE_NAME,
            KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':portalId': portalId, ':prefix': 'subscription#' },
            ConsistentRead: true,
          }),
        );
        const logged: Record<string, unknown>[][] = [];
        await Promise.all(
          Items.filter((item) => item.status === 1).map(async (item) => {
            const chosen = events.filter(({ kind }) => (item.events as string[]).includes(kind));
            for (let start = 0; start < chosen.length; start += 10) {
              const entries = chosen.slice(start, start + 10).map(({ position, id, time, kind, data }) => ({
                Id: `event-${position}`,
                Message: JSON.stringify({ event: kind, portalId, configId: item.configId, occurredAt: time, eventId: id, data }),
                MessageAttributes: { event: { DataType: 'String', StringValue: kind } },
                eventId: id,
                kind,
                time,
              }));
              const { Successful = [] } = await snsClient.send(
                new PublishBatchCommand({ TopicArn: item.topicArn, PublishBatchRequestEntries: entries.map(({ Id, Message, MessageAttributes }) => ({ Id, Message, MessageAttributes })) }),
              );
              const sentAt = new Date().toISOString();
              for (const { Id, MessageId } of Successful) {
                const entry = entries.find((candidate) => candidate.Id === Id)!;
                const sk = `message#${item.configId}#${sentAt}#${MessageId}`;
                logged.push([
                  { portalId, sk, configId: item.configId, messageId: MessageId, eventId: entry.eventId, event: entry.kind, occurredAt: entry.time, sentAt, body: entry.Message, deliveryState: 'pending', attempts: 0 },
                  { portalId: `message-id#${MessageId}`, sk: 'message', subscriptionPortalId: portalId, configId: item.configId, messageId: MessageId, messageSk: sk, event: entry.kind, eventId: entry.eventId },
                ]);
              }
            }
          }),
        );
        for (let start = 0; start < logged.length; start += 12) {
          const items = logged.slice(start, start + 12).flat();
          await documentClient.send(new BatchWriteCommand({ RequestItems: { [TABLE_NAME]: items.map((Item) => ({ PutRequest: { Item } })) } }));
        }
      } catch {
        for (const { record } of events) batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures };
}
