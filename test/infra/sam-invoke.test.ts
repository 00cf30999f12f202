/**
 * Each function of the synthesized stack, invoked as `sam local invoke -t
 * cdk.out/WebhookSubscriptions.template.json <function> -e events/<function>.json` would: the
 * bundle `cdk synth` produced, the environment of the template, the sample event, a separate
 * Node process, against DynamoDB Local and the SNS emulator (test/support/cdk-lambda-runner.ts).
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_SERVICE_ACCESS_KEY_ID } from '../../infra/aws/local-account';
import { PROJECT_ROOT } from '../../infra/aws/service-function';
import { STACK_NAME } from '../../infra/aws/webhook-subscriptions-app';
import { gunzipSync } from 'node:zlib';
import { logSubscriptionEventOf } from '../../shared/attempts/delivery-status-record';
import { documentClient } from '../../shared/aws/dynamodb';
import { logMessages } from '../../shared/data/messages';
import { ATTEMPTS_RECORDER, DEAD_LETTER_FORWARDER, DEAD_LETTER_RECORDER, DISPATCHER, OPERATIONS, RECONCILER, RECOVERY_WORKER, RETRY_SWEEPER } from '../../shared/operations';
import { freshPortal } from '../support/api';
import { allTopicArns, lastConfirmationRequestMinutesAgo, subscriptionItems } from '../support/aws-state';
import { REQUIRED_CONTEXT, serviceApp, validationReportsOf } from '../support/cdk-app';
import {
  invokeFunction,
  invokeFunctionRepeatedly,
  samEnvironment,
  type SynthesizedFunction,
  synthesizedFunctions,
} from '../support/cdk-lambda-runner';

/** The config_id the sample events carry (events/*.json). */
const SAMPLE_CONFIG_ID = '0192f8a4-7b3c-7d2e-9f01-23456789abcd';

let functions: Map<string, SynthesizedFunction>;

beforeAll(() => {
  // As a developer synthesizes for SAM: the template declares the local endpoints (here the
  // ones global setup started; with npm start, 127.0.0.1:8000 and :9911).
  const { app } = serviceApp({
    context: {
      ...REQUIRED_CONTEXT,
      localDynamoDbEndpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
      localSnsEndpoint: process.env.AWS_ENDPOINT_URL_SNS,
    },
  });
  const assembly = app.synth();
  // The warning such a template gets, kept by the suite's synth rather than printed: it is expected here.
  expect(validationReportsOf(app).join('\n')).toContain('this template is for sam local invoke only; do not deploy it.');
  functions = synthesizedFunctions(assembly.directory, assembly.getStackByName(STACK_NAME).template);
}, 120_000);

/** The sample event of a function, for this portal and (if given) this subscription. */
function sampleEvent(handlerName: string, { portalId, configId }: { portalId?: string; configId?: string } = {}) {
  const text = readFileSync(join(PROJECT_ROOT, 'events', `${handlerName}.json`), 'utf8');
  const event = JSON.parse(configId ? text.replaceAll(SAMPLE_CONFIG_ID, configId) : text) as APIGatewayProxyEventV2WithJWTAuthorizer;
  if (portalId) event.requestContext.authorizer.jwt.claims.portal_id = portalId;
  return event;
}

/** The function of the template, and the environment `sam local invoke` gives it. */
function samFunction(handlerName: string) {
  const fn = functions.get(handlerName);
  if (!fn) throw new Error(`No function ${handlerName} in the template (has: ${[...functions.keys()].join(', ')})`);
  const environment = samEnvironment(fn, {
    // --env-vars: the table's name and the recovery queue's URL are CloudFormation references; locally
    // the table global setup created, and a queue URL (the suite's samples never reach the queue).
    overrides: { TABLE_NAME: process.env.TABLE_NAME!, RECOVERY_QUEUE_URL: process.env.RECOVERY_QUEUE_URL! },
    // What SAM takes from the developer's AWS profile: the local credentials (docs/deploy.md), the
    // principal the template's topic policy names.
    region: process.env.AWS_REGION!,
    accessKeyId: LOCAL_SERVICE_ACCESS_KEY_ID,
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY!,
  });
  return { fn, environment };
}

/** `sam local invoke <handlerName> -e events/<handlerName>.json`: what the handler returned, and its logs. */
async function samLocalInvokeRaw(handlerName: string, event: unknown) {
  const { fn, environment } = samFunction(handlerName);
  const invocation = await invokeFunction(fn, event, environment);
  if (invocation.error) throw new Error(`${handlerName} failed: ${JSON.stringify(invocation.error)}\n${invocation.logs}`);
  return invocation;
}

/** The same, answered as an HTTP client sees it. */
async function samLocalInvoke(handlerName: string, event: unknown) {
  const invocation = await samLocalInvokeRaw(handlerName, event);
  const result = invocation.result as APIGatewayProxyStructuredResultV2;
  return { statusCode: result.statusCode, body: JSON.parse(result.body!), logs: invocation.logs };
}

/** A subscription created through the create function, in a portal of its own. */
async function createdSubscription() {
  const portalId = freshPortal('sam');
  const created = await samLocalInvoke('createSubscription', sampleEvent('createSubscription', { portalId }));
  expect(created.statusCode).toBe(200);
  const { configId, topicArn } = created.body.record as { configId: string; topicArn: string };
  return { portalId, configId, topicArn };
}

describe('the synthesized functions, invoked as sam local invoke does', () => {
  it('has one function per operation, the dispatcher, the dead-letter forwarder and recorder, the attempts consumer, the reconciler, the retry sweep and the recovery worker, each with its sample event in events/', () => {
    expect([...functions.keys()].sort()).toEqual(
      [...OPERATIONS.map((op) => op.handler), DISPATCHER.handler, DEAD_LETTER_FORWARDER.handler, DEAD_LETTER_RECORDER.handler, ATTEMPTS_RECORDER.handler, RECONCILER.handler, RETRY_SWEEPER.handler, RECOVERY_WORKER.handler].sort(),
    );
    expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${RETRY_SWEEPER.handler}.json`), 'utf8'))['detail-type']).toBe('Scheduled Event');
    expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${ATTEMPTS_RECORDER.handler}.json`), 'utf8')).awslogs.data).toEqual(expect.any(String));
    expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${DEAD_LETTER_RECORDER.handler}.json`), 'utf8')).Records).toHaveLength(1);
    // The recorder's sample is the forwarder's as the forwarder sends it on: the same body, and when SNS gave up.
    const [asSnsPutIt] = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${DEAD_LETTER_FORWARDER.handler}.json`), 'utf8')).Records;
    const [asForwarded] = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${DEAD_LETTER_RECORDER.handler}.json`), 'utf8')).Records;
    expect(asForwarded.body).toBe(asSnsPutIt.body);
    expect(asForwarded.messageAttributes.DeadLetteredAt.stringValue).toBe(asSnsPutIt.attributes.SentTimestamp);
    expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${RECONCILER.handler}.json`), 'utf8'))['detail-type']).toBe('Scheduled Event');
    expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${DISPATCHER.handler}.json`), 'utf8')).Records).toHaveLength(1);
    for (const op of OPERATIONS) {
      const event = sampleEvent(op.handler);
      expect(event.routeKey).toBe(`${op.method} ${op.paths[0]}`);
      expect(event.requestContext.authorizer.jwt.scopes).toEqual([op.scope]);
      expect(event.requestContext.authorizer.jwt.claims).toMatchObject({ portal_id: expect.any(String), scope: op.scope });
    }
  });

  it('runs them on the Node.js major version their runtime names', () => {
    for (const fn of functions.values()) {
      expect(fn.runtime).toBe(`nodejs${process.versions.node.split('.')[0]}.x`);
    }
  });

  it('create answers 200 with the record, and the record is stored', async () => {
    const portalId = freshPortal('sam');

    const answer = await samLocalInvoke('createSubscription', sampleEvent('createSubscription', { portalId }));

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toMatchObject({
      success: true,
      record: {
        portalId,
        name: 'Media updates',
        protocol: 'https',
        endpoint: 'https://hooks.example.com/assets',
        events: ['asset_bank.media.create', 'asset_bank.media.updated'],
        status: 1,
        // TOPIC_PREFIX as the template sets it.
        topicArn: expect.stringMatching(/:webhooks-[0-9a-f-]{36}$/),
      },
    });
    expect(await subscriptionItems(portalId)).toEqual([expect.objectContaining({ configId: answer.body.record.configId })]);
  });

  it('list answers 200 with the created subscription', async () => {
    const { portalId, configId } = await createdSubscription();

    const answer = await samLocalInvoke('listSubscriptions', sampleEvent('listSubscriptions', { portalId }));

    expect(answer.statusCode).toBe(200);
    expect(answer.body.configs).toEqual([expect.objectContaining({ configId, name: 'Media updates', status: 1 })]);
  });

  it('update answers 200 with the new event list', async () => {
    const { portalId, configId } = await createdSubscription();

    const answer = await samLocalInvoke('updateSubscription', sampleEvent('updateSubscription', { portalId, configId }));

    expect(answer.statusCode).toBe(200);
    expect(answer.body.record).toEqual({
      configId,
      portalId,
      events: ['asset_bank.media.create', 'asset_bank.media.deleted'],
    });
  });

  it('rename answers 200 and the name is stored', async () => {
    const { portalId, configId } = await createdSubscription();

    const answer = await samLocalInvoke('renameSubscription', sampleEvent('renameSubscription', { portalId, configId }));

    expect(answer.statusCode).toBe(200);
    expect(answer.body.success).toBe(true);
    expect((await subscriptionItems(portalId))[0]).toMatchObject({ name: 'Media updates (archive)' });
  });

  it('activate answers 200 and the status is stored', async () => {
    const { portalId, configId } = await createdSubscription();

    const answer = await samLocalInvoke('activateSubscription', sampleEvent('activateSubscription', { portalId, configId }));

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({ success: true, message: 'Subscription deactivated.' });
    expect((await subscriptionItems(portalId))[0]).toMatchObject({ status: 0 });
  });

  it('delete answers 200, and the record and its topic are gone', async () => {
    const { portalId, configId, topicArn } = await createdSubscription();

    const answer = await samLocalInvoke('deleteSubscription', sampleEvent('deleteSubscription', { portalId, configId }));

    expect(answer.statusCode).toBe(200);
    expect(answer.body.success).toBe(true);
    expect(await subscriptionItems(portalId)).toEqual([]);
    expect(await allTopicArns()).not.toContain(topicArn);
  });

  it('test answers 400 ENDPOINT_NOT_CONFIRMED for the sample endpoint, which never confirms', async () => {
    const { portalId, configId } = await createdSubscription();

    const answer = await samLocalInvoke('testSubscription', sampleEvent('testSubscription', { portalId, configId }));

    expect(answer.statusCode).toBe(400);
    expect(answer.body.code).toBe('ENDPOINT_NOT_CONFIRMED');
  });

  it('resend answers 400 ENDPOINT_NOT_CONFIRMED for the sample endpoint, which never confirms, and 400 SUBSCRIPTION_NOT_FOUND in another portal', async () => {
    const { portalId, configId } = await createdSubscription();

    const answer = await samLocalInvoke('resendMessage', sampleEvent('resendMessage', { portalId, configId }));
    const foreign = await samLocalInvoke('resendMessage', sampleEvent('resendMessage', { portalId: freshPortal('sam-other'), configId }));

    expect([answer.statusCode, answer.body.code]).toEqual([400, 'ENDPOINT_NOT_CONFIRMED']);
    expect([foreign.statusCode, foreign.body.code]).toEqual([400, 'SUBSCRIPTION_NOT_FOUND']);
  });

  it('the recorder keeps the sample dead letter for its subscription, and dead-letters lists it; replay answers 400 for the unconfirmed endpoint', async () => {
    const { portalId, configId, topicArn } = await createdSubscription();
    const event = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${DEAD_LETTER_RECORDER.handler}.json`), 'utf8'));
    const notification = JSON.parse(event.Records[0].body);
    const message = JSON.parse(notification.Message);
    event.Records[0].body = JSON.stringify({ ...notification, TopicArn: topicArn, Message: JSON.stringify({ ...message, portalId, configId }) });
    event.Records[0].messageAttributes.DeadLetteredAt.stringValue = String(Date.now());
    // Its message is in the message log, as its publisher logged it when SNS took it.
    const now = new Date().toISOString();
    await logMessages({ db: documentClient, tableName: process.env.TABLE_NAME! }, 30, [
      { portalId, configId, messageId: notification.MessageId, eventId: message.eventId, event: message.event, occurredAt: message.occurredAt, sentAt: now, body: JSON.stringify({ ...message, portalId, configId }) },
    ]);

    const invocation = await samLocalInvokeRaw(DEAD_LETTER_RECORDER.handler, event);
    const listed = await samLocalInvoke('listDeadLetters', sampleEvent('listDeadLetters', { portalId, configId }));
    const replayed = await samLocalInvoke('replayDeadLetters', sampleEvent('replayDeadLetters', { portalId, configId }));

    expect(invocation.result).toEqual({ batchItemFailures: [] });
    expect(listed.statusCode).toBe(200);
    expect(listed.body.deadLetters).toEqual([expect.objectContaining({ eventId: message.eventId, messageId: notification.MessageId })]);
    expect([replayed.statusCode, replayed.body.code]).toEqual([400, 'ENDPOINT_NOT_CONFIRMED']);
  });

  it('the attempts consumer keeps the sample delivery status record for its subscription, and attempts lists it', async () => {
    const { portalId, configId, topicArn } = await createdSubscription();
    const sample = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${ATTEMPTS_RECORDER.handler}.json`), 'utf8'));
    // The sample's record, for the topic just made, in that topic's failure log group.
    const document = JSON.parse(gunzipSync(Buffer.from(sample.awslogs.data, 'base64')).toString('utf8'));
    const record = JSON.parse(document.logEvents[0].message);
    record.notification.topicArn = topicArn;
    const [, , , region, account, name] = topicArn.split(':');
    const event = logSubscriptionEventOf(account!, `sns/${region}/${account}/${name}/Failure`, document.logStream, [
      { ...document.logEvents[0], timestamp: Date.now(), message: JSON.stringify(record) },
    ]);

    // The record names a message the service published to that topic (the message log), as the consumer keeps only those.
    const now = new Date().toISOString();
    const body = JSON.stringify({ event: 'asset_bank.media.create', portalId, configId, occurredAt: now, eventId: 'e-sam', data: {} });
    const { messageId } = record.notification;
    await logMessages({ db: documentClient, tableName: process.env.TABLE_NAME! }, 30, [
      { portalId, configId, messageId, eventId: 'e-sam', event: 'asset_bank.media.create', occurredAt: now, sentAt: now, body },
    ]);

    const invocation = await samLocalInvokeRaw(ATTEMPTS_RECORDER.handler, event);
    const listed = await samLocalInvoke('listAttempts', sampleEvent('listAttempts', { portalId, configId }));

    expect(invocation.result).toEqual({ stored: 1, duplicates: 0, evicted: 0, dropped: 0, unknown: 0 });
    expect(listed.statusCode).toBe(200);
    expect(listed.body.attempts).toEqual([expect.objectContaining({ status: 'failed', statusCode: 500, attempts: 4, messageId: record.notification.messageId })]);
  });

  it("the dispatcher publishes the sample portal event to the portal's subscription that chose its kind", async () => {
    const { portalId, configId } = await createdSubscription();
    const event = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${DISPATCHER.handler}.json`), 'utf8'));
    const body = JSON.parse(event.Records[0].body);
    event.Records[0].body = JSON.stringify({ ...body, detail: { ...body.detail, portalId } });

    const invocation = await samLocalInvokeRaw(DISPATCHER.handler, event);

    expect(invocation.result).toEqual({ batchItemFailures: [] });
    const dispatched = invocation.logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .find((entry) => entry.message === 'portal event dispatched');
    expect(dispatched).toMatchObject({ portalId, kind: 'asset_bank.media.create', recipients: [configId] });
  });

  it('the reconciler runs on the sample scheduled event, and answers and logs its summary', async () => {
    const { topicArn } = await createdSubscription();
    const event = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${RECONCILER.handler}.json`), 'utf8'));

    const invocation = await samLocalInvokeRaw(RECONCILER.handler, event);

    // The table and the emulator are shared with the other suites, whose topics have another
    // prefix (webhooks-test-*: names it leaves alone); this one's subscription is in agreement.
    const summary = invocation.result as { topicsSeen: number; recordsSeen: number; orphanTopicsDeleted: number; dryRun: boolean };
    expect(summary).toMatchObject({ orphanTopicsDeleted: 0, dryRun: false });
    expect(summary.topicsSeen).toBeGreaterThanOrEqual(1);
    expect(await allTopicArns()).toContain(topicArn);
    const logged = invocation.logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .find((entry) => entry.message === 'reconciliation summary');
    expect(logged).toMatchObject({ operation: RECONCILER.handler, summary });
  });

  it('the retry sweep runs from its bundle on the sample scheduled event, and answers its counts', async () => {
    const event = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', `${RETRY_SWEEPER.handler}.json`), 'utf8'));

    const invocation = await samLocalInvokeRaw(RETRY_SWEEPER.handler, event);

    // The shared table may hold other suites' due work: only the shape is this suite's to say.
    expect(invocation.result).toEqual(expect.any(Object));
    expect(invocation.logs).not.toMatch(/"level":"ERROR"/);
  });

  it.each(OPERATIONS.map((op) => op.handler))(
    '%s logs cold_start true on every line of its first invocation in a fresh sandbox, false on every line after',
    async (handlerName) => {
      const { fn, environment } = samFunction(handlerName);
      const event = sampleEvent(handlerName, { portalId: freshPortal('cold') });

      const invocations = await invokeFunctionRepeatedly(fn, [event, event, event], environment);

      const lines = invocations[0]!.logs
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { function_request_id?: string; cold_start?: boolean });
      const coldStartsOf = (requestId: string) =>
        lines.filter((line) => line.function_request_id === requestId).map((line) => line.cold_start);
      const [first, ...later] = invocations.map((invocation) => coldStartsOf(invocation.requestId));
      expect(first!.length).toBeGreaterThan(0);
      expect(first!.every((coldStart) => coldStart === true)).toBe(true);
      for (const lines of later) {
        expect(lines.length).toBeGreaterThan(0);
        expect(lines.every((coldStart) => coldStart === false)).toBe(true);
      }
    },
  );

  it('confirm answers 200 and asks the pending endpoint to confirm again', async () => {
    const { portalId, configId } = await createdSubscription();
    // Create's own confirmation request is 5 minutes old, as a person waiting would find it.
    await lastConfirmationRequestMinutesAgo(portalId, configId, 5);

    const answer = await samLocalInvoke('confirmSubscription', sampleEvent('confirmSubscription', { portalId, configId }));

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({ success: true, message: expect.any(String), subscriptionState: 'pending' });
  });

  it('test-filter answers its sample event: the example data misses the filter on size', async () => {
    const answer = await samLocalInvoke('testFilter', sampleEvent('testFilter'));

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({ success: true, message: expect.any(String), matches: false, decidingKey: 'size' });
  });

  it.each(['updateSubscription', 'renameSubscription', 'activateSubscription', 'deleteSubscription', 'testSubscription', 'confirmSubscription', 'resendMessage'])(
    '%s answers the unchanged sample event 400: its config_id names no subscription',
    async (handlerName) => {
      const answer = await samLocalInvoke(handlerName, sampleEvent(handlerName));

      expect(answer.statusCode).toBe(400);
      expect(answer.body).toMatchObject({ success: false, code: 'SUBSCRIPTION_NOT_FOUND' });
    },
  );
});
