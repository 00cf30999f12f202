/**
 * Floor of the dead-letter forwarder: the batch's records sent on to the queue of dead letters by
 * portal in SendMessageBatch calls of at most 10 entries (SQS API Reference, "SendMessageBatch",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html),
 * each with its body, SNS's attributes and its portal as group. No check of the body, no 1 MiB
 * split, no partial batch response: nothing but the calls.
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsClient } from '../../../shared/aws/sqs';

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const entries = event.Records.map((record, index) => ({
    Id: String(index),
    MessageBody: record.body,
    MessageAttributes: {
      ...Object.fromEntries(Object.entries(record.messageAttributes).map(([name, value]) => [name, { DataType: value.dataType, StringValue: value.stringValue }])),
      // When SNS gave up on it, as the forwarder sends it: the second queue's SentTimestamp is the forward's.
      DeadLetteredAt: { DataType: 'Number', StringValue: record.attributes.SentTimestamp },
    },
    MessageGroupId: JSON.parse(JSON.parse(record.body).Message).portalId,
  }));
  for (let start = 0; start < entries.length; start += 10) {
    await sqsClient.send(new SendMessageBatchCommand({ QueueUrl: process.env.DEAD_LETTERS_BY_PORTAL_QUEUE_URL, Entries: entries.slice(start, start + 10) }));
  }
  return { batchItemFailures: [] };
}
