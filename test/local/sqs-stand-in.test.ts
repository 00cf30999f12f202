/**
 * The local SQS stand-in (SendMessage, SendMessageBatch) through two independent clients: the JS
 * SDK (@aws-sdk/client-sqs) and the AWS CLI (botocore). What it takes reaches the routed queue
 * (body, attributes, group) and is answered with SQS's digests, held to values published for
 * SQS's MD5OfMessageAttributes, not to the stand-in's own function; what SQS refuses it refuses,
 * with the codes each client shows. The answers SQS gives are in the SQS API Reference,
 * "SendMessageBatch" (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html)
 * and "SendMessage"; test/conformance/sqs.test.ts holds the messages to recordings of AWS.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { EventQueue } from '../../infra/local/events/event-queue';
import { type SqsStandIn, startSqsStandIn } from '../../infra/local/events/sqs-stand-in';
import { AWS_CLI, awsCliEnvironment } from '../support/aws-cli-env';
import { waitFor } from '../support/wait-for';

const run = promisify(execFile);
const cliEnv = awsCliEnvironment();
const MIB = 1_048_576;

/**
 * MD5OfMessageAttributes as published with the npm package aws-md5-of-message-attributes
 * (https://npmjs.com/package/aws-md5-of-message-attributes, README), computed there by SQS's
 * documented algorithm apart from this project: one String, one Number with a custom type, one
 * Binary attribute ("Hello binary world!"), and the three together.
 */
const PUBLISHED = {
  string: { attributes: { attribName1: { DataType: 'String', StringValue: 'attribValue 1' } }, md5: '19e27d4e946b072f3f58da80d94fd778' },
  number: { attributes: { customNumberTypeAttrib: { DataType: 'Number.float', StringValue: '4563442423554324324264524243.32543234' } }, md5: '9fe1b90bbd9965bdf77bac517c7d2495' },
  binary: { attributes: { binaryAttribute: { DataType: 'Binary', BinaryValue: 'Hello binary world!' } }, md5: '31a92b15d92f8db860eda32aceb656c3' },
  all: { md5: 'c932db14a896c663f83c260297d594ff' },
};

interface Queued {
  body: string;
  groupId: string | undefined;
}

let standIn: SqsStandIn;
let queue: EventQueue;
let sqs: SQSClient;
let queueUrl: string;
/** What the stand-in put on the queue (with the group, which records do not show), and what the queue handed on. */
let queued: Queued[] = [];
let handed: SQSRecord[] = [];
let scratch: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'sqs-stand-in-suite-'));
  queue = new EventQueue({
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:stand-in-suite',
    region: 'us-east-1',
    handler: async (event: SQSEvent) => {
      handed.push(...event.Records);
    },
    context: () => ({}) as Context,
  });
  // Watches each send and passes it on: the queue takes and hands out the message as ever.
  const send = queue.send.bind(queue);
  queue.send = (body, attributes, groupId) => {
    queued.push({ body, groupId });
    return send(body, attributes, groupId);
  };
  standIn = await startSqsStandIn({ accountId: '000000000000' });
  standIn.route('stand-in-suite', queue);
  queueUrl = standIn.queueUrl('stand-in-suite');
  sqs = new SQSClient({ region: 'us-east-1', endpoint: standIn.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
});
afterAll(async () => {
  sqs.destroy();
  await standIn.close();
  await queue.close();
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  queued = [];
  handed = [];
});

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
const batch = (entries: SendMessageBatchRequestEntry[], url = queueUrl) => sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
const entries = (count: number, body = 'x') => Array.from({ length: count }, (_, n) => ({ Id: `m${n}`, MessageBody: body }));
/** The handed record of each body, once all are handed on. */
async function handedOf(bodies: string[]): Promise<SQSRecord[]> {
  return waitFor(`${bodies.length} messages handed on`, () => {
    const records = bodies.map((body) => handed.find((record) => record.body === body));
    return records.every((record) => record !== undefined) ? (records as SQSRecord[]) : undefined;
  });
}

/** `aws sqs <args>` against the stand-in: its JSON output, or its complaint and exit code. */
async function aws(...args: string[]): Promise<{ output?: any; complaint?: string; code?: number }> {
  try {
    const { stdout } = await run(AWS_CLI, ['sqs', ...args, '--endpoint-url', standIn.endpoint, '--output', 'json', '--cli-read-timeout', '20'], { env: cliEnv, timeout: 30_000 });
    return { output: JSON.parse(stdout) };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string; code?: number | string };
    if (failure.code === 'ENOENT') throw new Error('The AWS CLI (`aws`) is not installed or not on PATH; this suite needs it.');
    return { complaint: (failure.stderr ?? '').trim(), code: Number(failure.code) };
  }
}
/** The error code the CLI prints: "An error occurred (CODE) when calling ...". */
const cliCode = (complaint: string | undefined) => /An error occurred \(([^)]+)\)/.exec(complaint ?? '')?.[1];

describe('through the JS SDK', () => {
  it('SendMessage and SendMessageBatch put body, attributes and group on the queue, answered with the published digests', async () => {
    const all = { ...PUBLISHED.string.attributes, ...PUBLISHED.number.attributes, binaryAttribute: { DataType: 'Binary', BinaryValue: Buffer.from('Hello binary world!') } };
    const one = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'sdk one', MessageAttributes: all, MessageGroupId: 'portal-a' }));
    const two = await batch([
      { Id: 'string', MessageBody: 'sdk two', MessageAttributes: PUBLISHED.string.attributes, MessageGroupId: 'portal-b' },
      { Id: 'number', MessageBody: 'sdk three', MessageAttributes: PUBLISHED.number.attributes },
      { Id: 'plain', MessageBody: '{"portalId":"portal-c"} ✓', MessageGroupId: 'portal-c' },
    ]);
    const [first, second, third, fourth] = await handedOf(['sdk one', 'sdk two', 'sdk three', '{"portalId":"portal-c"} ✓']);

    expect([one.MD5OfMessageBody, one.MD5OfMessageAttributes]).toEqual([md5('sdk one'), PUBLISHED.all.md5]);
    expect(two.Failed ?? []).toEqual([]);
    expect(two.Successful?.map(({ Id, MD5OfMessageBody, MD5OfMessageAttributes }) => [Id, MD5OfMessageBody, MD5OfMessageAttributes])).toEqual([
      ['string', md5('sdk two'), PUBLISHED.string.md5],
      ['number', md5('sdk three'), PUBLISHED.number.md5],
      ['plain', md5('{"portalId":"portal-c"} ✓'), undefined],
    ]);
    expect(queued).toEqual([
      { body: 'sdk one', groupId: 'portal-a' },
      { body: 'sdk two', groupId: 'portal-b' },
      { body: 'sdk three', groupId: undefined },
      { body: '{"portalId":"portal-c"} ✓', groupId: 'portal-c' },
    ]);
    // As Lambda hands them to the consumer, with the digest SQS gave the sender.
    expect(first!.messageAttributes).toEqual({
      attribName1: { dataType: 'String', stringValue: 'attribValue 1', stringListValues: [], binaryListValues: [] },
      customNumberTypeAttrib: { dataType: 'Number.float', stringValue: '4563442423554324324264524243.32543234', stringListValues: [], binaryListValues: [] },
      binaryAttribute: { dataType: 'Binary', binaryValue: Buffer.from('Hello binary world!').toString('base64'), stringListValues: [], binaryListValues: [] },
    });
    expect([first, second, third, fourth].map((record) => record!.md5OfMessageAttributes)).toEqual([PUBLISHED.all.md5, PUBLISHED.string.md5, PUBLISHED.number.md5, null]);
  });

  it('refuses what SQS refuses, with the codes the SDK shows, and queues none of it', async () => {
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => 'taken',
        (error: { name: string; Code?: string; $metadata?: { httpStatusCode?: number } }) => [error.name, error.Code, error.$metadata?.httpStatusCode],
      );
    const send = (input: Record<string, unknown>) => sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'refused', ...input }));
    const attribute = (name: string, DataType: string, StringValue: string) => ({ MessageAttributes: { [name]: { DataType, StringValue } } });
    const answers = {
      empty: await refusal(batch([])),
      eleven: await refusal(batch(entries(11))),
      repeatedIds: await refusal(batch([{ Id: 'a', MessageBody: '1' }, { Id: 'a', MessageBody: '2' }])),
      badId: await refusal(batch([{ Id: 'a.b', MessageBody: '1' }])),
      longId: await refusal(batch([{ Id: 'i'.repeat(81), MessageBody: '1' }])),
      overOneMiBInAll: await refusal(batch([{ Id: 'a', MessageBody: 'a'.repeat(MIB / 2) }, { Id: 'b', MessageBody: 'b'.repeat(MIB / 2 + 1) }])),
      unknownQueue: await refusal(batch(entries(1), standIn.queueUrl('no-such-queue'))),
      unknownQueueSend: await refusal(sqs.send(new SendMessageCommand({ QueueUrl: standIn.queueUrl('no-such-queue'), MessageBody: 'x' }))),
      reservedName: await refusal(send(attribute('AWS.Trace', 'String', 'v'))),
      nameWithSpace: await refusal(send(attribute('a name', 'String', 'v'))),
      nameWithDots: await refusal(send(attribute('a..b', 'String', 'v'))),
      badType: await refusal(send(attribute('n', 'Integer', '1'))),
      notANumber: await refusal(send(attribute('n', 'Number', 'twelve'))),
      elevenAttributes: await refusal(send({ MessageAttributes: Object.fromEntries(Array.from({ length: 11 }, (_, n) => [`a${n}`, { DataType: 'String', StringValue: 'v' }])) })),
      controlCharacter: await refusal(send({ MessageBody: 'bell \u0007' })),
      loneSurrogate: await refusal(send({ MessageBody: 'half \uD800' })),
      groupWithSpace: await refusal(send({ MessageGroupId: 'portal a' })),
      groupTooLong: await refusal(send({ MessageGroupId: 'g'.repeat(129) })),
      delayTooLong: await refusal(send({ DelaySeconds: 901 })),
      deduplicationId: await refusal(send({ MessageDeduplicationId: 'd-1' })),
      thirtyNineDigits: await refusal(send(attribute('n', 'Number', '1234567890123456789012345678901234567891'))),
      overTenTo126: await refusal(send(attribute('n', 'Number', `11${'0'.repeat(125)}`))),
      negativeOverTenTo126: await refusal(send(attribute('n', 'Number', `-2${'0'.repeat(126)}`))),
      underTenToMinus128: await refusal(send(attribute('n', 'Number', `0.${'0'.repeat(128)}9`))),
      controlInString: await refusal(send(attribute('s', 'String', 'bell \u0007'))),
      surrogateInString: await refusal(send(attribute('s', 'String.text', 'half \uDC00'))),
      controlInTypeLabel: await refusal(send(attribute('s', 'String.\u0001', 'v'))),
    };

    const invalid = ['InvalidParameterValue', 'InvalidParameterValue', 400];
    expect(answers).toEqual({
      empty: ['EmptyBatchRequest', 'AWS.SimpleQueueService.EmptyBatchRequest', 400],
      eleven: ['TooManyEntriesInBatchRequest', 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest', 400],
      repeatedIds: ['BatchEntryIdsNotDistinct', 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct', 400],
      badId: ['InvalidBatchEntryId', 'AWS.SimpleQueueService.InvalidBatchEntryId', 400],
      longId: ['InvalidBatchEntryId', 'AWS.SimpleQueueService.InvalidBatchEntryId', 400],
      overOneMiBInAll: ['BatchRequestTooLong', 'AWS.SimpleQueueService.BatchRequestTooLong', 400],
      unknownQueue: ['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 400],
      unknownQueueSend: ['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 400],
      reservedName: invalid,
      nameWithSpace: invalid,
      nameWithDots: invalid,
      badType: invalid,
      notANumber: invalid,
      elevenAttributes: invalid,
      controlCharacter: ['InvalidMessageContents', 'InvalidMessageContents', 400],
      loneSurrogate: ['InvalidMessageContents', 'InvalidMessageContents', 400],
      groupWithSpace: invalid,
      groupTooLong: invalid,
      delayTooLong: invalid,
      deduplicationId: invalid,
      thirtyNineDigits: invalid,
      overTenTo126: invalid,
      negativeOverTenTo126: invalid,
      underTenToMinus128: invalid,
      controlInString: invalid,
      surrogateInString: invalid,
      controlInTypeLabel: invalid,
    });
    expect(queued).toEqual([]);
  });

  it("takes what SQS takes at its attributes' edges: 38 digits, 10^+126 and 10^-128 either sign, zeroes trimmed, any XML character", async () => {
    const edges = {
      digits38: { DataType: 'Number', StringValue: '-1234567890123456789012345678901234567.8' },
      tenTo126: { DataType: 'Number', StringValue: `1${'0'.repeat(126)}.000` },
      minusTenTo126: { DataType: 'Number', StringValue: `-1${'0'.repeat(126)}` },
      tenToMinus128: { DataType: 'Number.float', StringValue: `-0.${'0'.repeat(127)}1` },
      zeroesTrimmed: { DataType: 'Number', StringValue: `000.5${'0'.repeat(80)}` },
      zero: { DataType: 'Number', StringValue: `0.${'0'.repeat(200)}` },
      text: { DataType: 'String', StringValue: 'tab\t line\n return\r \uFFFD \u{1F600} \uE000' },
      spacedLabel: { DataType: 'String.my label ü', StringValue: 'v' },
    };
    const one = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'edges', MessageAttributes: edges }));
    const [record] = await handedOf(['edges']);
    expect(one.MD5OfMessageAttributes).toBe(record!.md5OfMessageAttributes);
    // Taken as sent (whether SQS hands a Number back with its zeroes trimmed, no recording shows).
    expect(Object.keys(record!.messageAttributes)).toEqual(Object.keys(edges));
    expect(record!.messageAttributes.text!.stringValue).toBe(edges.text.StringValue);
  });

  it("answers a batch's refused entries in Failed, each with its code, and queues the others", async () => {
    const result = await batch([
      { Id: 'good', MessageBody: 'goes' },
      { Id: 'badName', MessageBody: 'stays', MessageAttributes: { 'bad name': { DataType: 'String', StringValue: 'v' } } },
      { Id: 'badNumber', MessageBody: 'stays', MessageAttributes: { n: { DataType: 'Number', StringValue: '1,5' } } },
      { Id: 'badBody', MessageBody: 'nul \u0000' },
      { Id: 'badGroup', MessageBody: 'stays', MessageGroupId: 'portal é' },
      { Id: 'deduplicated', MessageBody: 'stays', MessageDeduplicationId: 'd-1' },
      { Id: 'overRange', MessageBody: 'stays', MessageAttributes: { n: { DataType: 'Number', StringValue: `9${'9'.repeat(38)}` } } },
      { Id: 'badString', MessageBody: 'stays', MessageAttributes: { s: { DataType: 'String', StringValue: 'nul \u0000' } } },
      { Id: 'alsoGood', MessageBody: 'goes too', MessageGroupId: 'portal-b' },
    ]);
    await handedOf(['goes', 'goes too']);

    expect(result.Successful?.map(({ Id }) => Id)).toEqual(['good', 'alsoGood']);
    expect(result.Failed?.map(({ Id, Code, SenderFault }) => [Id, Code, SenderFault])).toEqual([
      ['badName', 'InvalidParameterValue', true],
      ['badNumber', 'InvalidParameterValue', true],
      ['badBody', 'InvalidMessageContents', true],
      ['badGroup', 'InvalidParameterValue', true],
      ['deduplicated', 'InvalidParameterValue', true],
      ['overRange', 'InvalidParameterValue', true],
      ['badString', 'InvalidParameterValue', true],
    ]);
    // As AWS words a batch entry's deduplication id on a standard queue (test/conformance/sqs.test.ts).
    expect(result.Failed?.find(({ Id }) => Id === 'deduplicated')?.Message).toBe('The request include parameter that is not valid for this queue type');
    expect(queued).toEqual([
      { body: 'goes', groupId: undefined },
      { body: 'goes too', groupId: 'portal-b' },
    ]);
  });

  it('takes a batch of exactly 10 entries and 1 MiB in all', async () => {
    const body = 'z'.repeat(Math.floor(MIB / 10));
    const tenth = 'y'.repeat(MIB - 9 * body.length);
    const result = await batch([...entries(9, body), { Id: 'last', MessageBody: tenth }]);
    expect([result.Successful?.length, result.Failed ?? []]).toEqual([10, []]);
    expect(queued.map(({ body: queuedBody }) => queuedBody.length).reduce((sum, length) => sum + length, 0)).toBe(MIB);
  });
});

describe('through the AWS CLI', () => {
  it('send-message and send-message-batch put body, attributes and group on the queue, answered with the published digests', async () => {
    const [one, two] = await Promise.all([
      aws('send-message', '--queue-url', queueUrl, '--message-body', 'cli one', '--message-group-id', 'portal-a', '--message-attributes', JSON.stringify(PUBLISHED.string.attributes)),
      aws(
        'send-message-batch',
        '--queue-url', queueUrl,
        '--entries', JSON.stringify([
          // The CLI v1 sends a blob given in JSON as its text's bytes.
          { Id: 'binary', MessageBody: 'cli two', MessageAttributes: PUBLISHED.binary.attributes, MessageGroupId: 'portal-b' },
          { Id: 'number', MessageBody: 'cli three', MessageAttributes: PUBLISHED.number.attributes },
        ]),
      ),
    ]);
    const [first, second, third] = await handedOf(['cli one', 'cli two', 'cli three']);

    expect(one.output).toMatchObject({ MD5OfMessageBody: md5('cli one'), MD5OfMessageAttributes: PUBLISHED.string.md5 });
    expect(two.output.Failed ?? []).toEqual([]);
    expect(two.output.Successful.map(({ Id, MD5OfMessageAttributes }: { Id: string; MD5OfMessageAttributes: string }) => [Id, MD5OfMessageAttributes])).toEqual([
      ['binary', PUBLISHED.binary.md5],
      ['number', PUBLISHED.number.md5],
    ]);
    expect(queued.sort((a, b) => a.body.localeCompare(b.body))).toEqual([
      { body: 'cli one', groupId: 'portal-a' },
      { body: 'cli three', groupId: undefined },
      { body: 'cli two', groupId: 'portal-b' },
    ]);
    expect(second!.messageAttributes.binaryAttribute).toMatchObject({ dataType: 'Binary', binaryValue: Buffer.from('Hello binary world!').toString('base64') });
    expect([first, second, third].map((record) => record!.md5OfMessageAttributes)).toEqual([PUBLISHED.string.md5, PUBLISHED.binary.md5, PUBLISHED.number.md5]);
  });

  it('refuses what SQS refuses, with the codes the CLI prints, and queues none of it', async () => {
    // A batch of over 1 MiB exceeds what one command-line argument may hold: it goes as a file.
    const batchOf = (list: object[], url = queueUrl) => {
      const text = JSON.stringify(list);
      if (text.length < 100_000) return ['send-message-batch', '--queue-url', url, '--entries', text];
      const file = join(scratch, `entries-${list.length}-${text.length}.json`);
      writeFileSync(file, text);
      return ['send-message-batch', '--queue-url', url, '--entries', `file://${file}`];
    };
    const calls: Record<string, string[]> = {
      empty: batchOf([]),
      eleven: batchOf(entries(11)),
      repeatedIds: batchOf([{ Id: 'a', MessageBody: '1' }, { Id: 'a', MessageBody: '2' }]),
      badId: batchOf([{ Id: 'a:b', MessageBody: '1' }]),
      overOneMiBInAll: batchOf([{ Id: 'a', MessageBody: 'a'.repeat(MIB / 2) }, { Id: 'b', MessageBody: 'b'.repeat(MIB / 2 + 1) }]),
      unknownQueue: batchOf(entries(1), standIn.queueUrl('no-such-queue')),
      reservedName: ['send-message', '--queue-url', queueUrl, '--message-body', 'x', '--message-attributes', JSON.stringify({ 'Amazon.x': { DataType: 'String', StringValue: 'v' } })],
      badType: ['send-message', '--queue-url', queueUrl, '--message-body', 'x', '--message-attributes', JSON.stringify({ n: { DataType: 'Text', StringValue: 'v' } })],
      notANumber: ['send-message', '--queue-url', queueUrl, '--message-body', 'x', '--message-attributes', JSON.stringify({ n: { DataType: 'Number', StringValue: '12abc' } })],
      controlCharacter: ['send-message', '--queue-url', queueUrl, '--message-body', 'bell \u0007'],
      groupWithSpace: ['send-message', '--queue-url', queueUrl, '--message-body', 'x', '--message-group-id', 'portal a'],
      deduplicationId: ['send-message', '--queue-url', queueUrl, '--message-body', 'x', '--message-deduplication-id', 'd-1'],
      overTenTo126: ['send-message', '--queue-url', queueUrl, '--message-body', 'x', '--message-attributes', JSON.stringify({ n: { DataType: 'Number', StringValue: `3${'0'.repeat(126)}` } })],
      thirtyNineDigits: ['send-message', '--queue-url', queueUrl, '--message-body', 'x', '--message-attributes', JSON.stringify({ n: { DataType: 'Number', StringValue: `0.${'1'.repeat(39)}` } })],
      controlInString: ['send-message', '--queue-url', queueUrl, '--message-body', 'x', '--message-attributes', JSON.stringify({ s: { DataType: 'String', StringValue: 'bell \u0007' } })],
    };
    const names = Object.keys(calls);
    const answers = await Promise.all(names.map((name) => aws(...calls[name]!)));
    const printed = Object.fromEntries(names.map((name, n) => [name, [cliCode(answers[n]!.complaint), answers[n]!.code]]));

    const invalid = ['InvalidParameterValue', 255];
    expect(printed).toEqual({
      empty: ['AWS.SimpleQueueService.EmptyBatchRequest', 255],
      eleven: ['AWS.SimpleQueueService.TooManyEntriesInBatchRequest', 255],
      repeatedIds: ['AWS.SimpleQueueService.BatchEntryIdsNotDistinct', 255],
      badId: ['AWS.SimpleQueueService.InvalidBatchEntryId', 255],
      overOneMiBInAll: ['AWS.SimpleQueueService.BatchRequestTooLong', 255],
      unknownQueue: ['AWS.SimpleQueueService.NonExistentQueue', 255],
      reservedName: invalid,
      badType: invalid,
      notANumber: invalid,
      controlCharacter: ['InvalidMessageContents', 255],
      groupWithSpace: invalid,
      deduplicationId: invalid,
      overTenTo126: invalid,
      thirtyNineDigits: invalid,
      controlInString: invalid,
    });
    expect(answers[names.indexOf('deduplicationId')]!.complaint).toContain('Value d-1 for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type.');
    expect(answers[names.indexOf('controlCharacter')]!.complaint).toContain("Invalid binary character '#x7' was found in the message body");
    expect(queued).toEqual([]);
  });
});
