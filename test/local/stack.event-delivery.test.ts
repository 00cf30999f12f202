/**
 * Delivery as an integrator sees it, over HTTP against the local stack: portal
 * events put on the event bus with the EventBridge SDK or the AWS CLI reach exactly the
 * activated subscriptions of their portal that chose their kind; status and events changed
 * through the API change what arrives; nobody but the service can publish to a subscription's topic;
 * the test event, confirmation state, retries, dead letters and size limits behave as
 * docs/delivery.md says.
 */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishBatchCommand, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { localDeliveryDeadLetterQueueArn } from '../../infra/aws/local-account';
import { HTTP_DELIVERY_POLICY } from '../../shared/subscriptions/delivery-policy';
import { API_PREFIXES } from '../../shared/operations';
import { call, TEST_CLIENTS } from '../support/local-stack-client';
import { useDeliveryStack } from '../support/delivery-stack';
import { waitFor } from '../support/wait-for';
import { awsCli } from '../support/aws-cli-env';
import { type Created, eventDeliveryCalls } from '../support/event-delivery';

const API = API_PREFIXES[0];
const CREATE = 'asset_bank.media.create';
const UPDATED = 'asset_bank.media.updated';
const DELETED = 'asset_bank.media.deleted';

const delivery = useDeliveryStack({ retrySweepIntervalMs: 3_600_000 }); // no sweep's Query among the dispatcher's, counted below

const { subscribe, isListedConfirmed, putPortalEvents, dispatched, recordedDeliveries, recipientsOf, arrivedAt, setStatus } = eventDeliveryCalls(delivery);

describe('portal events put on the bus', () => {
  it('reach exactly the activated subscriptions of their portal that chose their kind, in the documented shape', async () => {
    const { alphaAdmin, betaAdmin } = TEST_CLIENTS;
    const alphaCreate = await subscribe(alphaAdmin, 'alpha-create', [CREATE]);
    const alphaBoth = await subscribe(alphaAdmin, 'alpha-both', [CREATE, UPDATED]);
    const alphaDeleted = await subscribe(alphaAdmin, 'alpha-deleted', [DELETED]);
    const alphaOff = await subscribe(alphaAdmin, 'alpha-off', [CREATE, UPDATED, DELETED]);
    await setStatus(alphaAdmin, alphaOff.configId, 0);
    const betaCreate = await subscribe(betaAdmin, 'beta-create', [CREATE]);
    const all = [alphaCreate, alphaBoth, alphaDeleted, alphaOff, betaCreate];

    const [created, updated, betaEvent] = await putPortalEvents(
      { kind: CREATE, portalId: 'portal-alpha', data: { mediaId: 'm-1', size: 42 } },
      { kind: UPDATED, portalId: 'portal-alpha', data: { mediaId: 'm-2' } },
      { kind: CREATE, portalId: 'portal-beta', data: { mediaId: 'm-3' } },
    );
    await dispatched();

    expect(await recipientsOf(created!, all)).toEqual([alphaCreate, alphaBoth]);
    expect(await recipientsOf(updated!, all)).toEqual([alphaBoth]);
    expect(await recipientsOf(betaEvent!, all)).toEqual([betaCreate]);

    const arrival = await arrivedAt(alphaCreate, created!);
    const eventTime = arrival.message.occurredAt;
    expect(arrival.message).toEqual({
      event: CREATE,
      portalId: 'portal-alpha',
      configId: alphaCreate.configId,
      occurredAt: eventTime,
      eventId: created,
      data: { mediaId: 'm-1', size: 42 },
    });
    expect(new Date(eventTime).toISOString()).toBe(eventTime);
    expect(arrival.envelope.MessageAttributes).toEqual({ event: { Type: 'String', Value: CREATE } });
    expect(arrival.headers['content-type']).toBe('application/json');
    await arrivedAt(alphaBoth, created!);
    await arrivedAt(alphaBoth, updated!);
    expect((await arrivedAt(betaCreate, betaEvent!)).message.portalId).toBe('portal-beta');
  });

  it('stop reaching a deactivated subscription and reach it again once it is activated', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const subscription = await subscribe(alphaAdmin, 'toggle', [CREATE]);

    await setStatus(alphaAdmin, subscription.configId, 0);
    const [whileOff] = await putPortalEvents({ kind: CREATE, portalId: 'portal-alpha' });
    await dispatched();
    expect(await recipientsOf(whileOff!, [subscription])).toEqual([]);

    await setStatus(alphaAdmin, subscription.configId, 1);
    const [whileOn] = await putPortalEvents({ kind: CREATE, portalId: 'portal-alpha' });
    await arrivedAt(subscription, whileOn!);
    expect(delivery.receiver.notificationsAt(subscription.path).map((entry) => entry.message.eventId)).toEqual([whileOn]);
  });

  it('follow an event list replaced by update', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const subscription = await subscribe(alphaAdmin, 'update', [CREATE]);
    const replaced = await call(delivery.stack, 'PUT', API, {
      token: await delivery.token(alphaAdmin),
      body: { config_id: subscription.configId, events: [DELETED] },
    });
    expect(replaced.status).toBe(200);

    const [create, deleted] = await putPortalEvents({ kind: CREATE, portalId: 'portal-alpha' }, { kind: DELETED, portalId: 'portal-alpha' });
    await arrivedAt(subscription, deleted!);
    await dispatched();
    expect(await recipientsOf(create!, [subscription])).toEqual([]);
    expect(delivery.receiver.notificationsAt(subscription.path).map((entry) => entry.message.eventId)).toEqual([deleted]);
  });

  it('can be put with the AWS CLI, as the README shows', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const subscription = await subscribe(alphaAdmin, 'cli', [DELETED]);
    const entries = JSON.stringify([
      {
        EventBusName: delivery.stack.eventBusName,
        Source: 'portal.events',
        DetailType: DELETED,
        Detail: JSON.stringify({ portalId: 'portal-alpha', mediaId: 'm-cli' }),
      },
    ]);
    const output = await awsCli('events', 'put-events', '--entries', entries, '--endpoint-url', delivery.stack.events.endpoint);
    expect(output.FailedEntryCount).toBe(0);
    const arrival = await arrivedAt(subscription, output.Entries[0].EventId);
    expect(arrival.message.data).toEqual({ mediaId: 'm-cli' });
  });
});

describe('events put together', () => {
  it('reach the dispatcher as one batch: one Query per portal and one PublishBatch per recipient, each recipient\'s events in the order put', async () => {
    const { alphaAdmin, betaAdmin } = TEST_CLIENTS;
    const alphaOne = await subscribe(alphaAdmin, 'batch-alpha-1', [CREATE, UPDATED]);
    const alphaTwo = await subscribe(alphaAdmin, 'batch-alpha-2', [CREATE]);
    const beta = await subscribe(betaAdmin, 'batch-beta', [CREATE]);
    // The handlers run in this process, their SDK clients built at the stack's start: counted from now on.
    const { awsCallsDuring } = await import('../support/aws-calls');

    let ids: string[] = [];
    const calls = await awsCallsDuring(
      async () => {
        ids = await putPortalEvents(
          { kind: CREATE, portalId: 'portal-alpha', data: { mediaId: 'm-1' } },
          { kind: CREATE, portalId: 'portal-beta', data: { mediaId: 'm-2' } },
          { kind: UPDATED, portalId: 'portal-alpha', data: { mediaId: 'm-1' } },
          { kind: CREATE, portalId: 'portal-alpha', data: { mediaId: 'm-3' } },
        );
        await dispatched();
      },
      { withTopic: true },
    );
    // Meanwhile the attempts consumer, in this process too, keeps SNS's delivery status records of
    // these deliveries (its calls are held in test/delivery/attempts-recorder.test.ts): not the dispatcher's.
    const attemptsConsumerCalls = new Set(['BatchGetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand', 'UpdateItemCommand']);
    const dispatcherCalls = calls.filter((call) => !attemptsConsumerCalls.has(call));

    // Per portal: one Query, one PublishBatch per recipient, and its messages logged in one BatchWriteItem.
    expect(dispatcherCalls.sort()).toEqual(
      [
        'QueryCommand',
        'QueryCommand',
        'BatchWriteItemCommand',
        'BatchWriteItemCommand',
        ...[alphaOne, alphaTwo, beta].map((subscription) => `PublishBatchCommand ${subscription.topicArn}`),
      ].sort(),
    );
    const [alphaCreate, betaCreate, alphaUpdate, alphaCreateAgain] = ids;
    /** The events SNS took for the subscription, in the order it took them (its HTTP POSTs may overtake each other). */
    const published = async (subscription: Created) =>
      (await recordedDeliveries())
        .filter((delivery) => delivery.subscriptionArn === subscription.subscriptionArn && delivery.type === 'Notification')
        .map((delivery) => JSON.parse(JSON.parse(delivery.body).Message).eventId);
    expect(await published(alphaOne)).toEqual([alphaCreate, alphaUpdate, alphaCreateAgain]);
    expect(await published(alphaTwo)).toEqual([alphaCreate, alphaCreateAgain]);
    expect(await published(beta)).toEqual([betaCreate]);
    for (const eventId of [alphaCreate, alphaUpdate, alphaCreateAgain]) await arrivedAt(alphaOne, eventId!);
    await arrivedAt(beta, betaCreate!);
  });
});

describe('an event too large', () => {
  it('for EventBridge is refused by PutEvents; one EventBridge takes but too large for SNS once wrapped is dropped, never retried', async () => {
    const subscription = await subscribe(TEST_CLIENTS.alphaAdmin, 'large', [CREATE]);
    const limit = 256 * 1024;
    // EventBridge counts Source, DetailType and Detail (docs/delivery.md, "Event size").
    const padFor = (entryBytes: number) => 'x'.repeat(entryBytes - Buffer.byteLength(`portal.events${CREATE}{"portalId":"portal-alpha","pad":""}`));
    const entry = (pad: string) => ({ EventBusName: delivery.stack.eventBusName, Source: 'portal.events', DetailType: CREATE, Detail: JSON.stringify({ portalId: 'portal-alpha', pad }) });
    await expect(delivery.events.send(new PutEventsCommand({ Entries: [entry(padFor(limit + 1))] }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Total size of the entries in the request is over the limit.',
    });

    const [eventId] = await putPortalEvents({ kind: CREATE, portalId: 'portal-alpha', data: { pad: padFor(limit) } });
    await dispatched();
    expect(delivery.stack.eventQueue.deadLetters.filter((letter) => JSON.parse(letter.body).id === eventId)).toEqual([]);
    expect(await recipientsOf(eventId!, [subscription])).toEqual([]);
  });
});

describe("a subscription's topic", () => {
  it('refuses a message published straight to it (Publish or PublishBatch) with credentials other than the service\'s: nothing reaches the endpoint', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const subscription = await subscribe(alphaAdmin, 'direct', [CREATE]);
    const intruder = new SNSClient({
      endpoint: delivery.stack.sns.endpoint,
      region: delivery.stack.region,
      credentials: { accessKeyId: 'someone-else', secretAccessKey: 'x' },
    });
    try {
      await expect(
        intruder.send(
          new PublishCommand({
            TopicArn: subscription.topicArn,
            Message: JSON.stringify({ event: CREATE, by: 'someone else' }),
            MessageAttributes: { event: { DataType: 'String', StringValue: CREATE } },
          }),
        ),
      ).rejects.toMatchObject({ name: 'AuthorizationErrorException', $metadata: { httpStatusCode: 403 } });
      // PublishBatch is authorized as Publish: refused alike.
      await expect(
        intruder.send(
          new PublishBatchCommand({ TopicArn: subscription.topicArn, PublishBatchRequestEntries: [{ Id: 'forged', Message: JSON.stringify({ event: CREATE }) }] }),
        ),
      ).rejects.toMatchObject({ name: 'AuthorizationErrorException', $metadata: { httpStatusCode: 403 } });
    } finally {
      intruder.destroy();
    }
    // What the service itself sends still arrives, and only that.
    const [eventId] = await putPortalEvents({ kind: CREATE, portalId: alphaAdmin.portalId });
    await waitFor('the dispatched event', () => delivery.receiver.notificationsAt(subscription.path).find((entry) => entry.message.eventId === eventId));
    const deliveries = await recordedDeliveries();
    const notifications = deliveries.filter((delivery) => delivery.subscriptionArn === subscription.subscriptionArn && delivery.type === 'Notification');
    expect(notifications.map((delivery) => JSON.parse(JSON.parse(delivery.body).Message).eventId)).toEqual([eventId]);
  });
});

describe('POST /test', () => {
  it('sends one webhooks.test message, also to a deactivated subscription, and answers its message id', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const subscription = await subscribe(alphaAdmin, 'test-event', [DELETED]);
    await setStatus(alphaAdmin, subscription.configId, 0);
    for (const prefix of API_PREFIXES) {
      const answer = await call(delivery.stack, 'POST', `${prefix}/test`, {
        token: await delivery.token(alphaAdmin),
        body: { config_id: subscription.configId },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ success: true, message: 'Test event sent.', messageId: expect.any(String) });
      const arrival = await waitFor('the test event', () =>
        delivery.receiver.notificationsAt(subscription.path).find((entry) => entry.envelope.MessageId === answer.body.messageId),
      );
      expect(arrival.message).toMatchObject({ event: 'webhooks.test', portalId: 'portal-alpha', configId: subscription.configId });
    }
  });

  it("answers another portal's subscription with the same 400 as an unknown one", async () => {
    const subscription = await subscribe(TEST_CLIENTS.alphaAdmin, 'foreign', [CREATE]);
    const foreign = await call(delivery.stack, 'POST', `${API}/test`, {
      token: await delivery.token(TEST_CLIENTS.betaAdmin),
      body: { config_id: subscription.configId },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('SUBSCRIPTION_NOT_FOUND');
    expect(delivery.receiver.notificationsAt(subscription.path)).toEqual([]);
  });
});

describe('confirmation, retries and dead letters', () => {
  it('lists and creates a subscription unconfirmed until its endpoint visits SubscribeURL', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const subscription = await subscribe(alphaAdmin, 'pending', [CREATE], { confirm: false });
    const created = await call(delivery.stack, 'GET', `${API}/list`, { token: await delivery.token(alphaAdmin) });
    expect(created.body.configs.find((entry: { configId: string }) => entry.configId === subscription.configId).confirmed).toBe(false);

    const confirmation = await waitFor('the SubscriptionConfirmation', () =>
      delivery.receiver.received.find((entry) => entry.path === subscription.path && entry.envelope.Type === 'SubscriptionConfirmation'),
    );
    expect(await isListedConfirmed(alphaAdmin, subscription.configId)).toBe(false);
    const visit = await fetch(confirmation.envelope.SubscribeURL, { signal: AbortSignal.timeout(5_000) });
    expect(visit.status).toBe(200);
    expect(await isListedConfirmed(alphaAdmin, subscription.configId)).toBe(true);
  });

  it('retries a receiver that answers 500 as the delivery policy says, then keeps the message as a dead letter', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const subscription = await subscribe(alphaAdmin, 'failing', [CREATE]);
    delivery.receiver.failingPaths.add(subscription.path);
    const [eventId] = await putPortalEvents({ kind: CREATE, portalId: 'portal-alpha', data: { mediaId: 'm-dead' } });

    const deadLetter = await waitFor('the dead letter', async () => {
      const response = await fetch(`${delivery.stack.sns.endpoint}/_emulator/dead-letters`, { signal: AbortSignal.timeout(5_000) });
      const { deadLetters } = (await response.json()) as { deadLetters: { subscriptionArn: string; body: string }[] };
      return deadLetters.find((letter: { subscriptionArn: string }) => letter.subscriptionArn === subscription.subscriptionArn);
    });
    const attempts = HTTP_DELIVERY_POLICY.healthyRetryPolicy.numRetries + 1;
    expect(delivery.receiver.notificationsAt(subscription.path).filter((entry) => entry.message.eventId === eventId)).toHaveLength(attempts);
    expect(deadLetter).toMatchObject({
      deadLetterTargetArn: localDeliveryDeadLetterQueueArn(delivery.stack.region),
      topicArn: subscription.topicArn,
      attempts,
      reason: 'HTTP 500',
    });
    expect(JSON.parse(JSON.parse(deadLetter.body).Message)).toMatchObject({ eventId, data: { mediaId: 'm-dead' } });
  });

  it('tries a receiver that answers 404 once, never again, and keeps the message as a dead letter', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const subscription = await subscribe(alphaAdmin, 'refusing', [CREATE]);
    delivery.receiver.statusOf.set(subscription.path, 404);
    const [eventId] = await putPortalEvents({ kind: CREATE, portalId: 'portal-alpha', data: { mediaId: 'm-refused' } });

    const deadLetter = await waitFor('the dead letter', async () => {
      const response = await fetch(`${delivery.stack.sns.endpoint}/_emulator/dead-letters`, { signal: AbortSignal.timeout(5_000) });
      const { deadLetters } = (await response.json()) as { deadLetters: { subscriptionArn: string; body: string }[] };
      return deadLetters.find((letter) => letter.subscriptionArn === subscription.subscriptionArn);
    });
    expect(deadLetter).toMatchObject({
      deadLetterTargetArn: localDeliveryDeadLetterQueueArn(delivery.stack.region),
      topicArn: subscription.topicArn,
      attempts: 1,
      reason: 'HTTP 404',
    });
    expect(JSON.parse(JSON.parse(deadLetter.body).Message)).toMatchObject({ eventId, data: { mediaId: 'm-refused' } });
    // Well past the delivery policy's retries at this stack's compressed backoff (5 ms doubling to 40 ms): none came.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(delivery.receiver.notificationsAt(subscription.path).filter((entry) => entry.message.eventId === eventId)).toHaveLength(1);
  });
});
