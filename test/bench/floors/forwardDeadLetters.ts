/**
 * Floor of the dead-letter forwarder: the batch's messages sent on to the recorder's queue in one
 * SendMessageBatch, each with its body, its attributes and the time SNS gave up, keyed by the portal
 * its message names. No checks of the body, the group or the batch's size, no logging.
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsClient } from '../../../shared/aws/sqs';

const QUEUE_URL = process.env.DEAD_LETTERS_BY_PORTAL_QUEUE_URL!;

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const { Failed = [] } = await sqsClient.send(
    new SendMessageBatchCommand({
      QueueUrl: QUEUE_URL,
      Entries: event.Records.map((record, index) => ({
        Id: String(index),
        MessageBody: record.body,
        MessageGroupId: JSON.parse(JSON.parse(record.body).Message).portalId,
        MessageAttributes: {
          ...Object.fromEntries(Object.entries(record.messageAttributes).map(([name, value]) => [name, { DataType: value.dataType, StringValue: value.stringValue }])),
          DeadLetteredAt: { DataType: 'Number', StringValue: record.attributes.SentTimestamp },
        },
      })),
    }),
  );
  return { batchItemFailures: Failed.map((failed) => ({ itemIdentifier: event.Records[Number(failed.Id)]!.messageId })) };
}
