/**
 * The EventBridge stand-in, the local SQS-like queue and the gateway's event builder against AWS
 * as recorded (recordings/eventbridge.json: LocalStack's snapshot tests recorded against AWS;
 * recordings/lambda-events.json: an SQS record Lambda handed a function, recorded the same way,
 * and AWS's sample HTTP API event). PutEvents goes through @aws-sdk/client-eventbridge.
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

it('An SQS record as Lambda hands it to a function', async () => {
  expect(queue.send(JSON.stringify({ foo: 'bar' }))).toBe(true);
  const record = await waitFor('the record', () => handed.at(-1));
  const scenario = recordedLambda.get('An SQS record as Lambda hands it to a function')!;
  expectConforms(scenario, { [Object.keys(scenario.values)[0]!]: record });
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
