/**
 * Dead letters forwarded by portal (docs/decisions/dead-letters-forwarded-by-portal.md). SNS puts
 * what it gives up on in the delivery dead-letter queue with no MessageGroupId, so that queue cannot
 * be fair per portal; the forwarder sends each of its messages on, unchanged, to the queue the
 * recorder consumes, a fair queue, with the portal its body names as MessageGroupId (SQS Developer
 * Guide, "Amazon SQS fair queues",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues.html).
 * SNS's attributes (ErrorCode, ErrorMessage, RequestID) go with it, and the time SNS gave up, the
 * first queue's SentTimestamp, as DEAD_LETTERED_AT: the second queue's SentTimestamp is the forward's.
 */
import { SendMessageBatchCommand, type MessageAttributeValue, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { DEAD_LETTERED_AT, readDeadLetter } from './dead-letter-message';

/**
 * SendMessageBatch takes 10 entries whose bodies and attributes come to at most 1 MiB (SQS API
 * Reference, "SendMessageBatch", https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html).
 */
const ENTRIES_PER_BATCH = 10;
const BYTES_PER_BATCH = 1_048_576;
/**
 * A MessageGroupId SQS takes: 1 to 128 letters, digits and punctuation (SQS API Reference,
 * "SendMessageBatchRequestEntry"). The service's portal ids fit (portal-id.ts); a body naming one
 * that does not would have its entry refused at every try.
 */
const MESSAGE_GROUP_ID = /^[\x21-\x7e]{1,128}$/;

/** Where a forwarded message goes, as the recorder's queue takes it. */
export interface ForwardedDeadLetter {
  entry: SendMessageBatchRequestEntry;
  /** What the entry counts towards the batch's 1 MiB: its body and its attributes' names, types and values. */
  bytes: number;
}

/**
 * One message of the delivery dead-letter queue as an entry of the recorder's queue: the same body
 * and SNS's attributes, DEAD_LETTERED_AT, and the portal as its group. A message whose body names no
 * portal of a service topic goes without a group (a tenant of its own), for the recorder to log and
 * drop; so does one whose portal SQS would not take as a group.
 */
export function forwardedDeadLetterOf(record: SQSRecord, topicPrefix: string, id: string): ForwardedDeadLetter {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, attribute] of Object.entries(record.messageAttributes ?? {})) {
    if (name === DEAD_LETTERED_AT) continue;
    attributes[name] = {
      DataType: attribute.dataType,
      ...(attribute.stringValue !== undefined && { StringValue: attribute.stringValue }),
      ...(attribute.binaryValue !== undefined && { BinaryValue: Buffer.from(attribute.binaryValue, 'base64') }),
    };
  }
  const sentAt = record.attributes?.SentTimestamp;
  if (sentAt) attributes[DEAD_LETTERED_AT] = { DataType: 'Number', StringValue: sentAt };
  const reading = readDeadLetter(record, topicPrefix);
  const entry: SendMessageBatchRequestEntry = {
    Id: id,
    MessageBody: record.body,
    MessageAttributes: attributes,
    ...('deadLetter' in reading && MESSAGE_GROUP_ID.test(reading.deadLetter.portalId) && { MessageGroupId: reading.deadLetter.portalId }),
  };
  let bytes = Buffer.byteLength(record.body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '') + Buffer.byteLength(value.StringValue ?? '') + (value.BinaryValue?.length ?? 0);
  }
  return { entry, bytes };
}

/** The entries in batches SendMessageBatch takes: at most 10, and at most 1 MiB together. */
export function forwardingBatches(forwarded: readonly ForwardedDeadLetter[]): SendMessageBatchRequestEntry[][] {
  const batches: SendMessageBatchRequestEntry[][] = [];
  let batch: SendMessageBatchRequestEntry[] = [];
  let bytes = 0;
  for (const item of forwarded) {
    if (batch.length === ENTRIES_PER_BATCH || (batch.length > 0 && bytes + item.bytes > BYTES_PER_BATCH)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(item.entry);
    bytes += item.bytes;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Sends the records on to the recorder's queue; answers the message ids of those not sent (an entry
 * SQS refused, or every entry of a call that failed), for the partial batch response.
 */
export async function forwardDeadLetters(sqs: SQSClient, queueUrl: string, records: readonly SQSRecord[], topicPrefix: string): Promise<{ notSent: string[]; errors: unknown[] }> {
  const forwarded = records.map((record, index) => forwardedDeadLetterOf(record, topicPrefix, String(index)));
  const notSent: string[] = [];
  const errors: unknown[] = [];
  for (const entries of forwardingBatches(forwarded)) {
    try {
      const answer = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      for (const failed of answer.Failed ?? []) {
        notSent.push(records[Number(failed.Id)]!.messageId);
        errors.push(new Error(`SendMessageBatch refused entry ${failed.Id}: ${failed.Code ?? ''} ${failed.Message ?? ''}`.trim()));
      }
    } catch (error) {
      for (const entry of entries) notSent.push(records[Number(entry.Id)]!.messageId);
      errors.push(error);
    }
  }
  return { notSent, errors };
}
