/**
 * The dead-letter forwarder as Lambda's SQS event source calls it, sending through the real SQS
 * client to the local SQS stand-in: each message of the delivery dead-letter queue reaches the
 * dead letters by portal with its body unchanged, SNS's attributes, DeadLetteredAt (when SNS put
 * it in the first queue) and its portal as message group; batches stay within SendMessageBatch's
 * 10 entries and 1 MiB; a record not sent is reported failed alone, a batch none of whose records
 * went fails the invocation; and the recorder keeps a forwarded dead letter with the time it failed,
 * not the time it was forwarded.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { EventQueue } from '../../infra/local/events/event-queue';
import { newConfigId } from '../../shared/subscriptions/config-id';
import { type SqsStandIn, startSqsStandIn } from '../../infra/local/events/sqs-stand-in';
import { call, freshPortal, newSubscription } from '../support/api';
import { injectFault } from '../support/faults';
import { lambdaContext } from '../support/lambda-context';
import { waitFor } from '../support/wait-for';

/** The queue name DEAD_LETTERS_BY_PORTAL_QUEUE_URL ends with in the suites (test-env.ts). */
const BY_PORTAL = 'webhooks-dead-letters-by-portal';

interface Forwarded {
  record: SQSRecord;
  groupId: string | undefined;
}

let standIn: SqsStandIn;
let byPortal: EventQueue;
let forwarded: Forwarded[] = [];
let forward: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
let sqsClient: typeof import('../../shared/aws/sqs').sqsClient;
let support: typeof import('../support/dead-letters');
let sendCalls: number[] = [];
let original: EventQueue['send'];

beforeAll(async () => {
  standIn = await startSqsStandIn({ accountId: '000000000000' });
  // The functions' SQS client takes its endpoint at its creation: the stand-in's, before they load.
  process.env.AWS_ENDPOINT_URL_SQS = standIn.endpoint;
  byPortal = new EventQueue({
    queueArn: `arn:aws:sqs:us-east-1:000000000000:${BY_PORTAL}`,
    region: 'us-east-1',
    // Nothing consumes it here: the suite reads what was sent, with its group, from send().
    handler: async () => ({ batchItemFailures: [] }),
    context: () => ({}) as Context,
  });
  original = byPortal.send.bind(byPortal);
  byPortal.send = (body, attributes, groupId) => {
    forwarded.push({ record: { body, messageAttributes: attributes } as unknown as SQSRecord, groupId });
    return true;
  };
  standIn.route(BY_PORTAL, byPortal);
  ({ handler: forward } = (await import('../../functions/forwardDeadLetters')) as unknown as { handler: typeof forward });
  ({ sqsClient } = await import('../../shared/aws/sqs'));
  support = await import('../support/dead-letters');
  sqsClient.middlewareStack.add(
    (next) => async (args) => {
      const { input } = args as { input: { Entries?: unknown[] } };
      sendCalls.push(input.Entries?.length ?? 0);
      return next(args);
    },
    { step: 'initialize', name: 'countSendMessageBatch' },
  );
});
afterAll(async () => {
  byPortal.send = original;
  await standIn.close();
  await byPortal.close();
});
beforeEach(() => {
  forwarded = [];
  sendCalls = [];
});

/** A subscription's topic of the service (TOPIC_PREFIX webhooks-test) and the portal it belongs to. */
function target(portalId = freshPortal()) {
  const configId = newConfigId();
  return { portalId, configId, topicArn: `arn:aws:sns:us-east-1:000000000000:webhooks-test-${configId}` };
}
const run = (records: SQSRecord[]) => forward({ Records: records }, lambdaContext('forwardDeadLetters'));

it('sends each dead letter on unchanged, with SNS attributes, DeadLetteredAt and its portal as group', async () => {
  const [a, b] = [target(), target()];
  const failedAt = Date.now() - 60_000;
  const records = [support.deadLetterRecord(a, { sentAt: failedAt }), support.deadLetterRecord(b, { sentAt: failedAt + 1 })];

  const answer = await run(records);

  expect(answer).toEqual({ batchItemFailures: [] });
  expect(forwarded.map(({ record, groupId }) => ({ body: record.body, groupId }))).toEqual([
    { body: records[0]!.body, groupId: a.portalId },
    { body: records[1]!.body, groupId: b.portalId },
  ]);
  expect(forwarded[0]!.record.messageAttributes).toEqual({
    RequestID: { dataType: 'String', stringValue: records[0]!.messageAttributes.RequestID!.stringValue },
    ErrorCode: { dataType: 'String', stringValue: '500' },
    ErrorMessage: { dataType: 'String', stringValue: 'HTTP 500' },
    DeadLetteredAt: { dataType: 'Number', stringValue: String(failedAt) },
  });
  expect(sendCalls).toEqual([2]);
});

it('sends a body that is no notification of a service topic without a group, for the recorder to log and drop', async () => {
  const answer = await run([support.rawDeadLetterRecord('not json at all')]);

  expect(answer).toEqual({ batchItemFailures: [] });
  expect(forwarded).toEqual([{ record: expect.objectContaining({ body: 'not json at all' }), groupId: undefined }]);
});

it('sends a dead letter whose portal SQS would not take as a group id without one, rather than have it refused at every try', async () => {
  const odd = target('portal with spaces');
  const fine = target();
  const records = [support.deadLetterRecord(odd), support.deadLetterRecord(fine)];

  const answer = await run(records);

  expect(answer).toEqual({ batchItemFailures: [] });
  expect(forwarded.map(({ record, groupId }) => ({ body: record.body, groupId }))).toEqual([
    { body: records[0]!.body, groupId: undefined },
    { body: records[1]!.body, groupId: fine.portalId },
  ]);
});

it('keeps each call within 10 entries and 1 MiB: 12 dead letters of about 230 KB take three calls of four', async () => {
  const to = target();
  const data = 'x'.repeat(230_000);
  const records = Array.from({ length: 12 }, () => support.deadLetterRecord(to, { message: support.publishedBody(to, { data }) }));

  const answer = await run(records);

  expect(answer).toEqual({ batchItemFailures: [] });
  expect(forwarded).toHaveLength(12);
  // Five of about 230 KB come to more than 1 MiB: four a call.
  expect(sendCalls).toEqual([4, 4, 4]);
  expect(forwarded.map(({ record }) => record.body)).toEqual(records.map((record) => record.body));
});

it('reports the records of a failed call failed alone, and fails the invocation when none went', async () => {
  const to = target();
  const records = Array.from({ length: 12 }, () => support.deadLetterRecord(to));
  // The first call (10 records) fails; the second (2) goes.
  const removeFault = injectFault(sqsClient, /^SendMessageBatchCommand$/);
  let answer: SQSBatchResponse;
  try {
    answer = await run(records);
  } finally {
    removeFault();
  }
  expect(answer.batchItemFailures.map(({ itemIdentifier }) => itemIdentifier)).toEqual(records.slice(0, 10).map((record) => record.messageId));
  expect(forwarded.map(({ record }) => record.body)).toEqual(records.slice(10).map((record) => record.body));

  forwarded = [];
  const removeAll = injectFault(sqsClient, /^SendMessageBatchCommand$/, { times: 5 });
  try {
    await expect(run(records.slice(0, 3))).rejects.toThrow('No record of the batch was forwarded');
  } finally {
    removeAll();
  }
  expect(forwarded).toEqual([]);
});

it('reports an entry the queue refused failed alone', async () => {
  const to = target();
  const records = [support.deadLetterRecord(to), support.deadLetterRecord(to)];
  // The queue takes the first and refuses the second (a stopped local queue answers so).
  let taken = 0;
  const send = byPortal.send;
  byPortal.send = (...args) => (taken++ === 0 ? send(...args) : false);
  let answer: SQSBatchResponse;
  try {
    answer = await run(records);
  } finally {
    byPortal.send = send;
  }

  expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.messageId }] });
  expect(forwarded.map(({ record }) => record.body)).toEqual([records[0]!.body]);
});

it('is recorded with the time SNS gave up on it, not the time it was forwarded', async () => {
  const portalId = freshPortal();
  const created = await call('createSubscriptionRoute', { portalId, body: newSubscription() });
  expect(created.statusCode).toBe(200);
  const to = { portalId, configId: created.body.record.configId, topicArn: created.body.record.topicArn };
  const failedAt = Date.now() - 5 * 60_000;
  await run([support.deadLetterRecord(to, { sentAt: failedAt })]);
  const [sent] = forwarded;
  // As the dead letters by portal hands it to the recorder: sent now, with the attributes forwarded.
  const asForwarded: SQSRecord = {
    ...support.rawDeadLetterRecord(sent!.record.body, Date.now()),
    messageAttributes: Object.fromEntries(
      Object.entries(sent!.record.messageAttributes as unknown as Record<string, { dataType: string; stringValue: string }>).map(([name, value]) => [
        name,
        { ...value, stringListValues: [], binaryListValues: [] },
      ]),
    ),
  };

  expect(await support.recordBatch([asForwarded])).toEqual({ batchItemFailures: [] });
  const listed = await call('listDeadLettersRoute', { portalId, query: { config_id: to.configId } });
  expect(listed.body.deadLetters.map((letter: { failedAt: string }) => letter.failedAt)).toEqual([new Date(failedAt).toISOString()]);
});

it('reaches the recorder through the fair queue as SQS hands it on, and is listed with the time SNS gave up', async () => {
  const portalId = freshPortal();
  const created = await call('createSubscriptionRoute', { portalId, body: newSubscription() });
  expect(created.statusCode).toBe(200);
  const to = { portalId, configId: created.body.record.configId, topicArn: created.body.record.topicArn };
  const failedAt = Date.now() - 10 * 60_000;
  // The dead letters by portal, consumed by the recorder, as the local stack has it.
  const handed: SQSRecord[] = [];
  const toRecorder = new EventQueue({
    queueArn: `arn:aws:sqs:us-east-1:000000000000:${BY_PORTAL}`,
    region: 'us-east-1',
    handler: async (event: SQSEvent) => {
      handed.push(...event.Records);
      return support.recordBatch(event.Records);
    },
    context: () => lambdaContext('recordDeadLetters'),
  });
  standIn.route(BY_PORTAL, toRecorder);
  try {
    const record = support.deadLetterRecord(to, { sentAt: failedAt });
    expect(await run([record])).toEqual({ batchItemFailures: [] });
    const listed = await waitFor('the forwarded dead letter listed', async () => {
      const answer = await call('listDeadLettersRoute', { portalId, query: { config_id: to.configId } });
      return answer.body.deadLetters?.length === 1 ? answer.body.deadLetters : undefined;
    }, 10_000, 50);

    expect(listed[0]).toMatchObject({ failedAt: new Date(failedAt).toISOString() });
    expect(handed).toHaveLength(1);
    expect(handed[0]!.body).toBe(record.body);
    // Sent on now: the second queue's SentTimestamp is the forward's, not the failure's.
    expect(Number(handed[0]!.attributes.SentTimestamp)).toBeGreaterThan(failedAt + 60_000);
    expect(handed[0]!.messageAttributes.DeadLetteredAt).toMatchObject({ dataType: 'Number', stringValue: String(failedAt) });
  } finally {
    standIn.route(BY_PORTAL, byPortal);
    await toRecorder.close();
  }
});
