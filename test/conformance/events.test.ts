/**
 * The EventBridge stand-in, the local SQS-like queue and the gateway's event builder against AWS
 * as recorded (recordings/eventbridge.json: LocalStack's snapshot tests recorded against AWS;
 * recordings/lambda-events.json: SQS records Lambda handed a function, recorded the same way,
 * and AWS's sample HTTP API event; recordings/sqs.json: SQS's MD5OfMessageAttributes of
 * messages recorded the same way). PutEvents goes through @aws-sdk/client-eventbridge.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { IncomingMessage } from 'node:http';
import { type EventBus, startEventBus } from '../../infra/local/events/event-bus';
import { EventQueue } from '../../infra/local/events/event-queue';
import { httpApiEvent } from '../../infra/local/gateway/event';
import type { RouteMatch } from '../../infra/local/gateway/routes';
import { waitFor } from '../support/wait-for';
import { answer, expectConforms, recordings, tally } from './support';

const recordedEvents = recordings('eventbridge.json');
const recordedLambda = recordings('lambda-events.json');
const recordedSqs = recordings('sqs.json');
const handed: SQSRecord[] = [];
let queue: EventQueue;
let bus: EventBus;
let client: EventBridgeClient;

beforeAll(async () => {
  queue = new EventQueue({
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:conformance-events',
    region: 'us-east-1',
    handler: async (event: SQSEvent) => {
      handed.push(...event.Records);
    },
    context: () => ({}) as Context,
  });
  bus = await startEventBus({ port: 0, busName: 'conformance-bus', region: 'us-east-1', accountId: '000000000000', queue });
  client = new EventBridgeClient({ endpoint: bus.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
});
afterAll(async () => {
  client.destroy();
  await bus.close();
  await queue.close();
  console.log(
    `EventBridge and Lambda events conformance: ${tally.recorded} recorded values compared, ${tally.documented} resting on documentation alone`,
  );
});

const putEvents = (Entries: PutEventsRequestEntry[]) => answer(client.send(new PutEventsCommand({ Entries })));
const detail = JSON.stringify({ command: 'update-account', payload: { acc_id: '0a787ecb-4015', sf_id: 'baz' } });

it.each([
  ['STRING', 'NotJSON'],
  ['ARRAY', '[]'],
  ['MALFORMED_JSON', '{{}'],
  ['SERIALIZED_STRING', JSON.stringify('NotJSON')],
])('PutEvents refuses a %s Detail per entry', async (kind, Detail) => {
  expectConforms(recordedEvents.get(`PutEvents with a ${kind.toLowerCase().replace('_', ' ')} Detail`), {
    'put-events': await putEvents([{ Source: 'core.update-account-command', DetailType: 'core.update-account-command', Detail }]),
  });
});

it('PutEvents with 11 entries', async () => {
  const entry = { Source: 'core.update-account-command', DetailType: 'core.update-account-command', Detail: detail, EventBusName: 'conformance-bus' };
  // Python's json.dumps, which wrote the recorded Detail, puts a space after each separator.
  const pythonDetail = '{"command": "update-account", "payload": {"acc_id": "0a787ecb-4015", "sf_id": "baz"}}';
  expectConforms(recordedEvents.get('PutEvents with 11 entries'), {
    'put-events-exceed-limit-error': await putEvents(Array.from({ length: 11 }, () => ({ ...entry, Detail: pythonDetail }))),
  });
});

it('PutEvents without a Source, without a DetailType, and over 256 KiB', async () => {
  expectConforms(recordedEvents.get('PutEvents without a Source'), {
    'put-events': await putEvents([{ DetailType: 'core.update-account-command', Detail: detail }]),
  });
  expectConforms(recordedEvents.get('PutEvents without a DetailType'), {
    'put-events': await putEvents([{ Source: 'some.source', Detail: detail, DetailType: '' }]),
  });
  const big = JSON.stringify({ data: 'x'.repeat(256 * 1024) });
  expectConforms(recordedEvents.get('PutEvents over 256 KiB'), {
    'put-events-too-big-detail-error': await putEvents([{ Source: 'some.source', DetailType: 'some.type', Detail: big }]),
  });
});

/** The record the queue hands over for a message of this body (each case sends its own). */
const handedWith = (body: string) => waitFor(`the record of ${body}`, () => handed.find((record) => record.body === body));

it('An SQS record as Lambda hands it to a function', async () => {
  expect(queue.send(JSON.stringify({ foo: 'bar' }))).toBe(true);
  const record = await handedWith(JSON.stringify({ foo: 'bar' }));
  const scenario = recordedLambda.get('An SQS record as Lambda hands it to a function')!;
  expectConforms(scenario, { [Object.keys(scenario.values)[0]!]: record });
});

it('An SQS record with message attributes as Lambda hands it to a function', async () => {
  // The recorded test's message: its body named the queue the function sends its event to.
  const body = JSON.stringify({ destination: 'https://sqs.us-east-1.amazonaws.com/000000000000/destination', fail_attempts: 0 }).replace(/([:,])/g, '$1 ');
  const sent = queue.send(body, {
    Title: { dataType: 'String', stringValue: 'The Whistler' },
    Author: { dataType: 'String', stringValue: 'John Grisham' },
    WeeksOn: { dataType: 'Number', stringValue: '6' },
  });
  expect(sent).toBe(true);
  expectConforms(recordedLambda.get('An SQS record with message attributes as Lambda hands it to a function'), { record: await handedWith(body) });
});

it('MD5OfMessageAttributes as SQS computes it: a Binary attribute, three String ones', async () => {
  const binary = Buffer.from('traceparent\x1e00-774062d6c37081a5a0b9b5b88e30627c-2d2482211f6489da-01', 'latin1');
  expect(queue.send('binary', { attr1: { dataType: 'Binary', binaryValue: binary.toString('base64') } })).toBe(true);
  expectConforms(recordedSqs.get('MD5OfMessageAttributes of a Binary attribute'), {
    'binary-attrs-msg': { MD5OfMessageAttributes: (await handedWith('binary')).md5OfMessageAttributes },
  });
  expect(queue.send('msg', { Hello: 'There', General: 'Kenobi', 'Help.Me': 'Me' })).toBe(true);
  const record = await handedWith('msg');
  expectConforms(recordedSqs.get('MD5OfMessageAttributes of three String attributes'), {
    all_name: {
      MD5OfMessageAttributes: record.md5OfMessageAttributes,
      // SQS's ReceiveMessage names the fields as the API does; Lambda's record in camel case.
      MessageAttributes: Object.fromEntries(
        Object.entries(record.messageAttributes).map(([name, { dataType, stringValue }]) => [name, { DataType: dataType, StringValue: stringValue }]),
      ),
    },
  });
});

it('An HTTP API (payload 2.0) event with a JWT authorizer', () => {
  const request = {
    url: '/my/path',
    headersDistinct: {},
    socket: { remoteAddress: '127.0.0.1', localPort: 3000 },
    httpVersion: '1.1',
  } as unknown as IncomingMessage;
  const match = { route: { routeKey: 'GET /my/path', method: 'GET' } } as unknown as RouteMatch;
  const event = httpApiEvent({
    request,
    match,
    body: Buffer.alloc(0),
    claims: { claim1: 'value1', claim2: 'value2' },
    scopes: ['scope1', 'scope2'],
    requestId: 'id',
    receivedAt: new Date(),
  });
  expectConforms(recordedLambda.get('An HTTP API (payload 2.0) event with a JWT authorizer'), { authorizer: event.requestContext.authorizer });
});
