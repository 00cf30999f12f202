/**
 * The local SQS stand-in (SendMessage, SendMessageBatch) against SQS as recorded
 * (recordings/sqs.json: LocalStack's snapshot tests recorded against AWS, the JSON protocol's
 * answers): the same requests through @aws-sdk/client-sqs get the same codes, messages and
 * statuses; and a batch's messages reach the routed queue with their attributes and group.
 */
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { EventQueue } from '../../infra/local/events/event-queue';
import { type SqsStandIn, startSqsStandIn } from '../../infra/local/events/sqs-stand-in';
import { waitFor } from '../support/wait-for';
import { answer, expectConforms, recordings } from './support';

const recorded = recordings('sqs.json');
/** SQS's default and largest message size, bodies and attributes together. */
const MAX = 1_048_576;
const handed: SQSRecord[] = [];
let standIn: SqsStandIn;
let queue: EventQueue;
let sqs: SQSClient;
let queueUrl: string;

beforeAll(async () => {
  queue = new EventQueue({
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:conformance-sqs',
    region: 'us-east-1',
    handler: async (event: SQSEvent) => {
      handed.push(...event.Records);
    },
    context: () => ({}) as Context,
  });
  standIn = await startSqsStandIn({ accountId: '000000000000' });
  standIn.route('conformance-sqs', queue);
  queueUrl = standIn.queueUrl('conformance-sqs');
  sqs = new SQSClient({ region: 'us-east-1', endpoint: standIn.endpoint, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
});
afterAll(async () => {
  sqs.destroy();
  await standIn.close();
  await queue.close();
});

/** The SDK's answer as the recordings have it: the error's query code, message and shape, and the status. */
async function recordedShape(call: Promise<object>): Promise<Record<string, unknown>> {
  const got = await answer(call);
  const failure = await call.then(
    () => undefined,
    (error: { __type?: string; Code?: string; Type?: string; message: string }) => error,
  );
  if (!failure) return got;
  return {
    Error: { Code: failure.Code, Message: failure.message, QueryErrorCode: failure.__type?.split('#').pop(), Type: failure.Type },
    ResponseMetadata: got.ResponseMetadata,
  };
}

const send = (entries: object[]) => sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries as never }));

it('refuses a batch of 20 entries as SQS does', async () => {
  const entries = Array.from({ length: 20 }, (_, i) => ({ Id: `message-${i}`, MessageBody: `messageBody-${i}` }));
  expectConforms(recorded.get('SendMessageBatch of 20 entries'), { test_too_many_entries_in_batch_request: await recordedShape(send(entries)) });
});

it('refuses an entry id holding a colon as SQS does', async () => {
  expectConforms(recorded.get('SendMessageBatch with an entry id holding a colon'), {
    test_invalid_batch_id: await recordedShape(send([{ Id: 'message:a1b2c3', MessageBody: 'messageBody-a1b2c3' }])),
  });
});

it('counts bodies and attributes (name, type, value) towards the 1 MiB of a batch, as SQS does', async () => {
  const attributes = { k: { DataType: 'String', StringValue: 'x' } };
  const body = 'a'.repeat(MAX - ('k'.length + 'String'.length + 'x'.length));
  expectConforms(recorded.get('SendMessageBatch of 1,048,577 bytes in all'), {
    send_oversized_message_batch: await recordedShape(send([{ Id: '1', MessageBody: body, MessageAttributes: attributes }, { Id: '2', MessageBody: 'a' }])),
  });
  // One byte less is taken: the limit is inclusive.
  const taken = await send([{ Id: '1', MessageBody: body, MessageAttributes: attributes }]);
  expect([taken.Successful?.length, taken.Failed ?? []]).toEqual([1, []]);
});

it('refuses a message over 1 MiB, an empty String attribute and an empty body as SQS does', async () => {
  const attributes = { k: { DataType: 'String', StringValue: 'x' } };
  const body = 'a'.repeat(MAX - 8 + 1);
  expectConforms(recorded.get('SendMessage of 1,048,577 bytes'), {
    send_oversized_message: await recordedShape(sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageAttributes: attributes }))),
  });
  expectConforms(recorded.get('SendMessage with an empty String attribute'), {
    'empty-string-attr': await recordedShape(
      sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'test', MessageAttributes: { ErrorDetails: { DataType: 'String', StringValue: '' } } })),
    ),
  });
  expectConforms(recorded.get('SendMessage with an empty body'), {
    send_empty_message: await recordedShape(sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '' }))),
  });
});

it('refuses repeated entry ids, an empty batch and an unknown queue', async () => {
  const repeated = await recordedShape(send([{ Id: 'a', MessageBody: '1' }, { Id: 'a', MessageBody: '2' }]));
  const empty = await recordedShape(send([]));
  const unknown = await recordedShape(sqs.send(new SendMessageBatchCommand({ QueueUrl: standIn.queueUrl('no-such-queue'), Entries: [{ Id: 'a', MessageBody: '1' }] })));
  expect(repeated).toMatchObject({ Error: { Code: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct', Message: 'Id a repeated.' }, ResponseMetadata: { HTTPStatusCode: 400 } });
  expect(empty).toMatchObject({ Error: { Code: 'AWS.SimpleQueueService.EmptyBatchRequest' }, ResponseMetadata: { HTTPStatusCode: 400 } });
  expect(unknown).toMatchObject({ Error: { Code: 'AWS.SimpleQueueService.NonExistentQueue', QueryErrorCode: 'QueueDoesNotExist' }, ResponseMetadata: { HTTPStatusCode: 400 } });
});

it("puts a batch's messages on the routed queue with their attributes and group, each answered with SQS's digests", async () => {
  const attributes = { ErrorCode: { DataType: 'String', StringValue: '500' }, DeadLetteredAt: { DataType: 'Number', StringValue: '1764300000000' } };
  const result = await send([
    { Id: 'one', MessageBody: 'first', MessageAttributes: attributes, MessageGroupId: 'portal-a' },
    { Id: 'two', MessageBody: 'second', MessageGroupId: 'portal-b' },
  ]);
  await waitFor('both messages handed on', () => (handed.filter((record) => ['first', 'second'].includes(record.body)).length === 2 ? true : undefined));

  const first = handed.find((record) => record.body === 'first')!;
  expect(result.Failed ?? []).toEqual([]);
  expect(result.Successful?.map(({ Id, MD5OfMessageAttributes }) => [Id, MD5OfMessageAttributes])).toEqual([
    ['one', first.md5OfMessageAttributes],
    ['two', undefined],
  ]);
  expect(first.messageAttributes).toMatchObject({ ErrorCode: { dataType: 'String', stringValue: '500' }, DeadLetteredAt: { dataType: 'Number', stringValue: '1764300000000' } });
});

it('refuses a MessageGroupId SQS does not take on a standard queue as SQS does (empty, 129 characters, a space)', async () => {
  const sent = (MessageGroupId: string) => recordedShape(sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'message', MessageGroupId })));
  expectConforms(recorded.get('SendMessage to a standard queue with an empty MessageGroupId'), { 'error-response': await sent('') });
  expectConforms(recorded.get('SendMessage to a standard queue with a MessageGroupId of 129 characters'), { 'error-response': await sent('a'.repeat(129)) });
  expectConforms(recorded.get('SendMessage to a standard queue with a MessageGroupId holding a space'), { 'error-response': await sent('group 123') });
});

// Documented, with AWS's wording as users reported it (no recording): the scenarios' notes say which part is which.
it('refuses a MessageDeduplicationId on a standard queue: SendMessage in full, a batch entry in Failed (documented, reported)', async () => {
  expectConforms(recorded.get('SendMessage to a standard queue with a MessageDeduplicationId'), {
    refused: await recordedShape(sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'message', MessageDeduplicationId: 'dedup-1' }))),
  });
  const before = handed.length;
  const batch = await recordedShape(send([{ Id: 'plain', MessageBody: 'message' }, { Id: 'deduplicated', MessageBody: 'message', MessageDeduplicationId: 'dedup-1' }]));
  expectConforms(recorded.get('SendMessageBatch to a standard queue with a MessageDeduplicationId on one entry'), { 'send-message-batch': batch });
  await waitFor('the plain entry handed on', () => (handed.length > before ? true : undefined));
});

// Documented only: the page gives the rule, no recording or report gives AWS's message, so code, shape and status are compared, the message is not.
const withoutMessage = (shape: Record<string, unknown>) => {
  const { Message: _message, ...error } = shape.Error as Record<string, unknown>;
  return { ...shape, Error: error };
};
const refusedAttribute = async (DataType: string, StringValue: string) =>
  withoutMessage(await recordedShape(sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'message', MessageAttributes: { n: { DataType, StringValue } } }))));

it("refuses a Number attribute beyond SQS's 38 digits or 10^-128..10^+126 with SQS's code (documented)", async () => {
  expectConforms(recorded.get("SendMessage with a Number attribute beyond SQS's precision or range"), {
    '39-significant-digits': await refusedAttribute('Number', '1234567890123456789012345678901234567891'),
    'over-10^126': await refusedAttribute('Number', `2${'0'.repeat(126)}`),
    'under-10^-128': await refusedAttribute('Number', `0.${'0'.repeat(128)}1`),
  });
});

it("refuses a String attribute holding a character SQS refuses with SQS's code (documented)", async () => {
  expectConforms(recorded.get('SendMessage with a String attribute holding a character SQS refuses'), {
    'control-character': await refusedAttribute('String', 'Invalid-\u0008,\u000b'),
    'lone-surrogate': await refusedAttribute('String', 'half \uD800'),
  });
});
