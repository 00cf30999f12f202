import type { SNSClient } from '@aws-sdk/client-sns';
import { PublishBatchCommand, PublishCommand } from '../aws/sns-commands';
import { type DeliveryMessage, EVENT_ATTRIBUTE, MAX_PUBLISH_BYTES, publishInputFor, publishSizeOf } from './message';

type PublishInput = ReturnType<typeof publishInputFor>;

/** Publishes one message to a subscription's topic; answers SNS's message id. */
export async function publishToTopic(sns: SNSClient, topicArn: string, message: DeliveryMessage): Promise<string> {
  return publish(sns, publishInputFor(topicArn, message));
}

/**
 * Publishes a body the service published before (a dead letter's), byte for byte, with the
 * same `event` attribute publishInputFor sets; answers SNS's message id.
 */
export async function publishBody(sns: SNSClient, topicArn: string, body: string, event: string): Promise<string> {
  return publish(sns, { TopicArn: topicArn, Message: body, MessageAttributes: { [EVENT_ATTRIBUTE]: { DataType: 'String', StringValue: event } } });
}

/** Publishes an input made by publishInputFor; answers SNS's message id. */
export async function publish(sns: SNSClient, input: PublishInput): Promise<string> {
  const { MessageId } = await sns.send(new PublishCommand(input));
  return MessageId!;
}

/**
 * Whether a Publish (or a whole PublishBatch) failed because its topic does not exist (SNS API
 * Reference, "Publish" and "PublishBatch": NotFound), as when its subscription was deleted after
 * the event's recipients were read.
 */
export function isTopicGone(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'NotFoundException';
}

/** At most 10 entries per PublishBatch (SNS API Reference, "PublishBatch"). */
export const MAX_BATCH_ENTRIES = 10;

/** One message of a PublishBatch: its Id (unique in the request) and its Publish input, all to one topic. */
export interface BatchEntry {
  id: string;
  input: PublishInput;
}

/**
 * The entries for one topic cut into PublishBatch requests, in their order: at most 10 each, and
 * at most 256 KiB together, the sum of what each message counts alone ("The maximum allowed
 * individual message size and the maximum total payload size (the sum of the individual lengths
 * of all of the batched messages) are both 256 KB", SNS API Reference, "PublishBatch"). Each
 * entry is at most MAX_PUBLISH_BYTES itself (the dispatcher drops larger events first).
 */
export function batchesOf<Entry extends BatchEntry>(entries: readonly Entry[]): Entry[][] {
  const batches: Entry[][] = [];
  let current: Entry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = publishSizeOf(entry.input);
    if (current.length === MAX_BATCH_ENTRIES || (current.length > 0 && bytes + size > MAX_PUBLISH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** What SNS answered for one entry of a PublishBatch it accepted. */
export type EntryResult = { id: string; messageId: string } | { id: string; error: Error };

/**
 * Publishes up to 10 entries to their one topic with one PublishBatch; answers each entry's
 * result, as SNS reports them one by one ("you should check for batch errors even when the call
 * returns an HTTP status code of 200", SNS API Reference, "PublishBatch"). A request SNS refuses
 * whole (the topic gone, the caller denied, SNS unavailable) rejects, as Publish would.
 */
export async function publishBatch(sns: SNSClient, topicArn: string, entries: readonly BatchEntry[]): Promise<EntryResult[]> {
  const { Successful = [], Failed = [] } = await sns.send(
    new PublishBatchCommand({
      TopicArn: topicArn,
      PublishBatchRequestEntries: entries.map(({ id, input: { Message, MessageAttributes } }) => ({ Id: id, Message, MessageAttributes })),
    }),
  );
  const answered = new Map<string, EntryResult>();
  for (const { Id, MessageId } of Successful) if (Id && MessageId) answered.set(Id, { id: Id, messageId: MessageId });
  for (const { Id, Code, Message, SenderFault } of Failed) {
    if (Id) answered.set(Id, { id: Id, error: Object.assign(new Error(Message ?? Code), { name: Code ?? 'UnknownError', senderFault: SenderFault }) });
  }
  // An entry SNS answered neither way was not confirmed published: it counts as failed, to be tried again.
  return entries.map(({ id }) => answered.get(id) ?? { id, error: Object.assign(new Error('SNS answered nothing for this entry'), { name: 'NoEntryResult' }) });
}
