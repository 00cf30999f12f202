/**
 * The dispatcher function as Lambda's SQS event source calls it: batches of queued EventBridge
 * events, against DynamoDB Local and the SNS emulator. Events that can never be delivered are
 * dropped without touching the rest of their batch; a Publish that fails fails only its own
 * record, which is reported (SQS partial batch response) and, when retried, published only to
 * the recipients that did not get it; a topic deleted meanwhile is skipped; an event too large
 * for SNS is dropped at once. Retries run through the local queue (infra/local/events) too.
 */
import { DeleteTopicCommand, PublishCommand } from '@aws-sdk/client-sns';
import { jest } from '@jest/globals';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { handler as dispatch } from '../../functions/dispatchPortalEvents';
import { EventQueue, type SqsHandler } from '../../infra/local/events/event-queue';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { FIRST_TRY_WINDOW_MS } from '../../shared/delivery/dispatch';
import { MAX_PUBLISH_BYTES, publishInputFor, publishSizeOf } from '../../shared/delivery/message';
import { logger } from '../../shared/logger';
import { call, freshPortal, newSubscription } from '../support/api';
import { awsCallsDuring } from '../support/aws-calls';
import { injectFault, serviceFault } from '../support/faults';
import { lambdaContext } from '../support/lambda-context';
import { sqsRecord } from '../support/portal-events';
import { confirmAsEndpointOwner } from '../support/sns-confirmation';
import { waitFor } from '../support/wait-for';

const CREATE = 'asset_bank.media.create';
const DELETED = 'asset_bank.media.deleted';

/** EventBridge's time of an event that happened `agoMs` ago (to the second, as EventBridge has it). */
const eventTime = (agoMs = 0) => new Date(Date.now() - agoMs).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** An EventBridge event as the rule puts it in the queue, just now unless `time` says otherwise. */
function portalEvent(kind: string, detail: unknown, overrides: Record<string, unknown> = {}) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': kind,
    source: 'portal.events',
    account: '000000000000',
    time: eventTime(),
    region: 'us-east-1',
    resources: [],
    detail,
    ...overrides,
  };
}


async function runBatch(records: SQSRecord[]) {
  return (await dispatch({ Records: records } satisfies SQSEvent, lambdaContext('dispatchPortalEvents')))!;
}

/** A subscription to a queue of another account, confirmed by the queue's owner. */
async function subscribeQueue(portalId: string, events: string[]) {
  const created = await call('createSubscriptionRoute', {
    portalId,
    body: newSubscription({ protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:111122223333:q-${randomUUID()}`, events }),
  });
  expect(created.statusCode).toBe(200);
  await confirmAsEndpointOwner(created.body.record.subscriptionArn);
  return created.body.record as { configId: string; topicArn: string; subscriptionArn: string };
}

/** The event ids SNS handed to a subscription. */
async function eventIdsDeliveredTo(subscriptionArn: string): Promise<string[]> {
  const response = await fetch(`${process.env.AWS_ENDPOINT_URL_SNS}/_emulator/deliveries`, { signal: AbortSignal.timeout(5_000) });
  const { deliveries } = (await response.json()) as { deliveries: { subscriptionArn: string; type: string; body: string }[] };
  return deliveries
    .filter((delivery) => delivery.subscriptionArn === subscriptionArn && delivery.type === 'Notification')
    .map((delivery) => JSON.parse(JSON.parse(delivery.body).Message).eventId);
}

/** Fails Publish to one topic, `times` times; returns the function that removes the fault. */
function failPublishTo(topicArn: string, times = 1): () => void {
  const name = `fail-publish-${randomUUID()}`;
  let remaining = times;
  snsClient.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TopicArn?: string };
      if (context.commandName === 'PublishCommand' && input.TopicArn === topicArn && remaining > 0) {
        remaining--;
        throw serviceFault('PublishCommand');
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => void snsClient.middlewareStack.remove(name);
}


describe('a batch with events that can never be delivered', () => {
  it('drops those (reporting no failure for them) and delivers the others of the batch', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const first = portalEvent(CREATE, { portalId, mediaId: 'm-1' });
    const last = portalEvent(CREATE, { portalId, mediaId: 'm-2' });
    const unusable = [
      'not json {',
      JSON.stringify([1, 2]),
      portalEvent('asset_bank.media.unknown', { portalId }),
      portalEvent(CREATE, ['an', 'array']),
      portalEvent(CREATE, 'a string'),
      portalEvent(CREATE, null),
      portalEvent(CREATE, { mediaId: 'no portal' }),
      portalEvent(CREATE, { portalId: 42 }),
      portalEvent(CREATE, { portalId: 'bad#portal' }),
      portalEvent(CREATE, { portalId }, { source: 'someone.else' }),
      portalEvent(CREATE, { portalId }, { time: 'yesterday' }),
    ].map((body) => sqsRecord(body));

    const result = await runBatch([sqsRecord(first), ...unusable, sqsRecord(last)]);

    expect(result).toEqual({ batchItemFailures: [] });
    // Records are worked on concurrently: the order of publication is not the batch's.
    expect((await eventIdsDeliveredTo(subscription.subscriptionArn)).sort()).toEqual([first.id, last.id].sort());
  });
});

describe('a Publish that fails', () => {
  it('fails only its own record, which is delivered when the queue retries it', async () => {
    const portalId = freshPortal();
    const other = freshPortal();
    const broken = await subscribeQueue(portalId, [CREATE]);
    const healthy = await subscribeQueue(portalId, [CREATE]);
    const elsewhere = await subscribeQueue(other, [DELETED]);
    const affected = sqsRecord(portalEvent(CREATE, { portalId, mediaId: 'm-1' }));
    const unaffected = sqsRecord(portalEvent(DELETED, { portalId: other, mediaId: 'm-2' }));
    const affectedId = JSON.parse(affected.body).id;

    const removeFault = failPublishTo(broken.topicArn);
    let result;
    try {
      result = await runBatch([affected, unaffected]);
    } finally {
      removeFault();
    }

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: affected.messageId }] });
    expect(await eventIdsDeliveredTo(elsewhere.subscriptionArn)).toEqual([JSON.parse(unaffected.body).id]);
    expect(await eventIdsDeliveredTo(healthy.subscriptionArn)).toEqual([affectedId]);
    expect(await eventIdsDeliveredTo(broken.subscriptionArn)).toEqual([]);

    // SQS hands the failed record back; this time SNS takes it, and only the broken one gets it.
    expect(await runBatch([{ ...affected, attributes: { ...affected.attributes, ApproximateReceiveCount: '2' } }])).toEqual({
      batchItemFailures: [],
    });
    expect(await eventIdsDeliveredTo(broken.subscriptionArn)).toEqual([affectedId]);
    expect(await eventIdsDeliveredTo(healthy.subscriptionArn)).toEqual([affectedId]);
  });

  it('reports every record of a batch that failed entirely, rather than failing the invocation', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const records = [1, 2].map((n) => sqsRecord(portalEvent(CREATE, { portalId, mediaId: `m-${n}` })));
    const removeFault = failPublishTo(subscription.topicArn, 2);
    try {
      const { batchItemFailures } = await runBatch(records);
      expect(batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(records.map((record) => record.messageId).sort());
    } finally {
      removeFault();
    }
  });
});

describe('fan-out', () => {
  it('costs one Query and one Publish per recipient for a portal of ten subscriptions', async () => {
    const portalId = freshPortal();
    const subscriptions = [];
    for (let n = 0; n < 10; n++) subscriptions.push(await subscribeQueue(portalId, n < 7 ? [CREATE] : [DELETED]));
    const event = portalEvent(CREATE, { portalId });
    const calls = await awsCallsDuring(() => runBatch([sqsRecord(event)]), { withTopic: true });
    expect(calls[0]).toBe('QueryCommand');
    expect(calls.slice(1).sort()).toEqual(subscriptions.slice(0, 7).map((s) => `PublishCommand ${s.topicArn}`).sort());
  });

  it('publishes once per activated subscription listing the kind, and to no other', async () => {
    const portalId = freshPortal();
    const chosen = await subscribeQueue(portalId, [CREATE, DELETED]);
    const otherKind = await subscribeQueue(portalId, [DELETED]);
    const deactivated = await subscribeQueue(portalId, [CREATE]);
    expect((await call('activateSubscriptionRoute', { portalId, body: { config_id: deactivated.configId, status: 0 } })).statusCode).toBe(200);
    const event = portalEvent(CREATE, { portalId, mediaId: 'm-1' });

    const calls = await awsCallsDuring(async () => expect(await runBatch([sqsRecord(event)])).toEqual({ batchItemFailures: [] }), { withTopic: true });

    // One Query of the portal's partition, one Publish to the one recipient's topic.
    expect(calls).toEqual(['QueryCommand', `PublishCommand ${chosen.topicArn}`]);
    expect(await eventIdsDeliveredTo(chosen.subscriptionArn)).toEqual([event.id]);
    expect(await eventIdsDeliveredTo(otherKind.subscriptionArn)).toEqual([]);
    expect(await eventIdsDeliveredTo(deactivated.subscriptionArn)).toEqual([]);
  });
});

/** The local stand-in of the dispatcher's SQS queue, feeding this handler with retries `delayMs` apart. */
function localQueue(handler: SqsHandler = dispatch, delayMs = 20) {
  return new EventQueue({
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:portal-events',
    region: 'us-east-1',
    handler,
    context: () => lambdaContext('dispatchPortalEvents', 30_000),
    visibilityDelayMs: delayMs,
  });
}

/** Queues the events and waits until the queue has worked through them (delivered or dead-lettered). */
async function drain(queue: EventQueue, ...events: unknown[]): Promise<void> {
  for (const event of events) expect(queue.send(JSON.stringify(event))).toBe(true);
  await waitFor('the queue to drain', () => (queue.depth === 0 ? true : undefined));
}

describe('one recipient whose Publish fails', () => {
  afterEach(() => jest.restoreAllMocks());

  it('is retried alone by the queue: the others get the event exactly once, it gets it once SNS takes it', async () => {
    const portalId = freshPortal();
    const broken = await subscribeQueue(portalId, [CREATE]);
    const others = [await subscribeQueue(portalId, [CREATE]), await subscribeQueue(portalId, [CREATE])];
    const event = portalEvent(CREATE, { portalId, mediaId: 'm-1' });
    const errors = jest.spyOn(logger, 'error');
    const queue = localQueue();
    const removeFault = failPublishTo(broken.topicArn, 2);
    let calls: string[];
    try {
      calls = await awsCallsDuring(() => drain(queue, event), { withTopic: true });
    } finally {
      removeFault();
      await queue.close();
    }

    for (const subscription of [broken, ...others]) expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual([event.id]);
    expect(queue.deadLetters).toEqual([]);
    // The second and third tries publish to the broken recipient alone.
    for (const other of others) expect(calls.filter((name) => name === `PublishCommand ${other.topicArn}`)).toHaveLength(1);
    // What that costs: the first try records who got the event, each retry reads it.
    const count = (name: string) => calls.filter((call) => call === name).length;
    expect([count('QueryCommand'), count('UpdateItemCommand'), count('GetItemCommand')]).toEqual([3, 1, 2]);
    // Logged with SNS's reason, twice: once per failed try.
    const failures = errors.mock.calls.filter(([message]) => message.startsWith('publish failed'));
    expect(failures).toHaveLength(2);
    for (const [, fields] of failures) {
      expect(fields).toMatchObject({
        eventId: event.id,
        configId: broken.configId,
        topicArn: broken.topicArn,
        error: { name: 'InternalFailure', message: expect.stringContaining('InternalFailure for PublishCommand') },
      });
    }
  });

  it("still failing after the queue's tries, is dead-lettered once; the others got the event exactly once", async () => {
    const portalId = freshPortal();
    const broken = await subscribeQueue(portalId, [CREATE]);
    const other = await subscribeQueue(portalId, [CREATE]);
    const event = portalEvent(CREATE, { portalId });
    const queue = localQueue();
    const removeFault = failPublishTo(broken.topicArn, 100);
    try {
      await drain(queue, event);
    } finally {
      removeFault();
      await queue.close();
    }

    expect(queue.deadLetters).toEqual([expect.objectContaining({ receiveCount: 5, body: JSON.stringify(event) })]);
    expect(await eventIdsDeliveredTo(other.subscriptionArn)).toEqual([event.id]);
    expect(await eventIdsDeliveredTo(broken.subscriptionArn)).toEqual([]);
  });

  it('after a redrive from the dead-letter queue (a new message to SQS), publishes only to those the event did not reach', async () => {
    const portalId = freshPortal();
    const broken = await subscribeQueue(portalId, [CREATE]);
    const other = await subscribeQueue(portalId, [CREATE]);
    // A redriven message comes long after its event, with a receive count of 1.
    const event = portalEvent(CREATE, { portalId }, { time: eventTime(2 * FIRST_TRY_WINDOW_MS) });
    const removeFault = failPublishTo(broken.topicArn, 1);
    try {
      const first = sqsRecord(event);
      expect(await runBatch([first])).toEqual({ batchItemFailures: [{ itemIdentifier: first.messageId }] });
    } finally {
      removeFault();
    }

    expect(await runBatch([sqsRecord(event)])).toEqual({ batchItemFailures: [] });
    expect(await eventIdsDeliveredTo(broken.subscriptionArn)).toEqual([event.id]);
    expect(await eventIdsDeliveredTo(other.subscriptionArn)).toEqual([event.id]);
  });
});

describe('recipients served that cannot be recorded', () => {
  afterEach(() => jest.restoreAllMocks());

  it('are logged, and the record fails as any partial failure does (its retry may reach them again)', async () => {
    const portalId = freshPortal();
    const broken = await subscribeQueue(portalId, [CREATE]);
    const other = await subscribeQueue(portalId, [CREATE]);
    const record = sqsRecord(portalEvent(CREATE, { portalId }));
    const errors = jest.spyOn(logger, 'error');
    const removeFaults = [failPublishTo(broken.topicArn, 1), injectFault(dynamoDbClient, /^Update/)];
    try {
      expect(await runBatch([record])).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
    } finally {
      for (const remove of removeFaults) remove();
    }
    expect(errors).toHaveBeenCalledWith(
      'recipients served not recorded; a retry publishes to them again',
      expect.objectContaining({ recipients: [other.configId], error: expect.objectContaining({ name: 'InternalFailure' }) }),
    );
  });
});

describe('a topic that no longer exists', () => {
  afterEach(() => jest.restoreAllMocks());

  it('is skipped and logged: the record succeeds and the other recipients get the event', async () => {
    const portalId = freshPortal();
    const gone = await subscribeQueue(portalId, [CREATE]);
    const other = await subscribeQueue(portalId, [CREATE]);
    // As when the subscription is deleted after the dispatcher read the portal's records.
    await snsClient.send(new DeleteTopicCommand({ TopicArn: gone.topicArn }));
    const warnings = jest.spyOn(logger, 'warn');
    const event = portalEvent(CREATE, { portalId });

    expect(await runBatch([sqsRecord(event)])).toEqual({ batchItemFailures: [] });
    expect(await eventIdsDeliveredTo(other.subscriptionArn)).toEqual([event.id]);
    expect(warnings).toHaveBeenCalledWith(
      'topic no longer exists; recipient skipped',
      expect.objectContaining({ eventId: event.id, configId: gone.configId, topicArn: gone.topicArn }),
    );
  });
});

describe('an event too large for SNS', () => {
  afterEach(() => jest.restoreAllMocks());

  /** An event whose message to `subscription` is exactly `bytes` as SNS counts them, with its Publish input. */
  function eventOfSize(portalId: string, subscription: { configId: string; topicArn: string }, bytes: number) {
    const event = portalEvent(CREATE, { portalId, pad: '' });
    const inputWith = (pad: string) =>
      publishInputFor(subscription.topicArn, {
        event: CREATE,
        portalId,
        configId: subscription.configId,
        occurredAt: new Date(event.time).toISOString(),
        eventId: event.id,
        data: { pad },
      });
    const pad = 'x'.repeat(bytes - publishSizeOf(inputWith('')));
    return { event: { ...event, detail: { portalId, pad } }, input: inputWith(pad) };
  }

  it('is dropped at once with its reason: tried once, published to no one, not dead-lettered', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const { event } = eventOfSize(portalId, subscription, MAX_PUBLISH_BYTES + 1);
    const errors = jest.spyOn(logger, 'error');
    let invocations = 0;
    const queue = localQueue((batch, context) => {
      invocations++;
      return dispatch(batch, context);
    });
    let calls: string[];
    try {
      calls = await awsCallsDuring(() => drain(queue, event), { withTopic: true });
    } finally {
      await queue.close();
    }

    expect(invocations).toBe(1);
    expect(calls).toEqual(['QueryCommand']);
    expect(queue.deadLetters).toEqual([]);
    expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual([]);
    expect(errors).toHaveBeenCalledWith(
      'portal event dropped',
      expect.objectContaining({
        eventId: event.id,
        reason: `its message would be ${MAX_PUBLISH_BYTES + 1} bytes, over SNS's limit of ${MAX_PUBLISH_BYTES}`,
      }),
    );
  });

  it("is counted as SNS counts it: one at SNS's limit is delivered, SNS refuses one byte more", async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const atLimit = eventOfSize(portalId, subscription, MAX_PUBLISH_BYTES);
    expect(await runBatch([sqsRecord(atLimit.event)])).toEqual({ batchItemFailures: [] });
    expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual([atLimit.event.id]);

    const over = eventOfSize(portalId, subscription, MAX_PUBLISH_BYTES + 1);
    await expect(snsClient.send(new PublishCommand(over.input))).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: 'Invalid parameter: Message too long',
    });
  });
});
