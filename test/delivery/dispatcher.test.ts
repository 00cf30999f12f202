/**
 * The dispatcher function as Lambda's SQS event source calls it: batches of queued EventBridge
 * events, against DynamoDB Local and the SNS emulator. A batch costs one Query per portal and,
 * per recipient, one PublishBatch per 10 of its events (fewer when their size says so). Events
 * that can never be delivered are dropped without touching the rest of their batch; a
 * PublishBatch refused whole, or one entry SNS failed, fails only those events' records, which
 * are reported (SQS partial batch response) and, when retried, published only to the recipients
 * that did not get them; a portal whose records cannot be read fails only its own events; a
 * topic deleted meanwhile is skipped; an event too large for SNS is dropped at once. Retries run
 * through the local queue (infra/local/events) too.
 */
import {
  DeleteTopicCommand,
  GetTopicAttributesCommand,
  PublishBatchCommand,
  type PublishBatchCommandInput,
  PublishCommand,
  type PublishBatchCommandOutput,
  SetTopicAttributesCommand,
} from '@aws-sdk/client-sns';
import { jest } from '@jest/globals';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { handler as dispatch } from '../../functions/dispatchPortalEvents';
import { EventQueue, type SqsHandler } from '../../infra/local/events/event-queue';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { FIRST_TRY_WINDOW_MS } from '../../shared/delivery/dispatch';
import { MAX_PUBLISH_BYTES, publishInputFor, publishSizeOf } from '../../shared/delivery/message';
import { inspectSns } from '../support/aws-state';
import { logger } from '../../shared/logger';
import { call, freshPortal, newSubscription } from '../support/api';
import { awsCallsDuring, commandsDuring } from '../support/aws-calls';
import { injectFault, serviceFault } from '../support/faults';
import { lambdaContext } from '../support/lambda-context';
import { sqsRecord } from '../support/portal-events';
import { confirmAsEndpointOwner, deliveriesTo } from '../support/sns-confirmation';
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

/** Fails every PublishBatch to one topic whole, `times` times; returns the function that removes the fault. */
function failPublishTo(topicArn: string, times = 1): () => void {
  const name = `fail-publish-${randomUUID()}`;
  let remaining = times;
  snsClient.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TopicArn?: string };
      if (context.commandName === 'PublishBatchCommand' && input.TopicArn === topicArn && remaining > 0) {
        remaining--;
        throw serviceFault('PublishBatchCommand');
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => void snsClient.middlewareStack.remove(name);
}

/**
 * Fails one entry of a PublishBatch to `topicArn`, the one carrying `eventId`, as SNS reports an
 * entry it failed on its side (in `Failed`, with the call answering 200): the emulator never
 * fails an entry of a batch it accepts, so the entry is taken out before the call and its
 * failure added to the answer. Returns the function that removes the fault.
 */
function failEntryOf(topicArn: string, eventId: string, times = 1): () => void {
  const name = `fail-entry-${randomUUID()}`;
  let remaining = times;
  snsClient.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as PublishBatchCommandInput;
      if (context.commandName !== 'PublishBatchCommand' || input.TopicArn !== topicArn || remaining <= 0) return next(args);
      const entries = input.PublishBatchRequestEntries ?? [];
      const doomed = entries.find((entry) => JSON.parse(entry.Message!).eventId === eventId);
      if (!doomed) return next(args);
      remaining--;
      const rest = entries.filter((entry) => entry !== doomed);
      const answer = rest.length > 0 ? await next({ ...args, input: { ...input, PublishBatchRequestEntries: rest } }) : { output: { Successful: [] }, response: {} };
      const output = answer.output as PublishBatchCommandOutput;
      const failed = { Id: doomed.Id, Code: 'InternalError', Message: 'Internal failure injected for this entry', SenderFault: false };
      return { ...answer, output: { ...output, Failed: [...(output.Failed ?? []), failed] } };
    },
    { step: 'initialize', name },
  );
  return () => void snsClient.middlewareStack.remove(name);
}

/** Each PublishBatch made while `run` runs: its topic and the event ids of its entries, in order. */
async function publishBatchesDuring(run: () => Promise<unknown>): Promise<{ topicArn: string; eventIds: string[] }[]> {
  return (await commandsDuring(run))
    .filter(({ commandName }) => commandName === 'PublishBatchCommand')
    .map(({ input }) => {
      const { TopicArn, PublishBatchRequestEntries } = input as unknown as PublishBatchCommandInput;
      return { topicArn: TopicArn!, eventIds: (PublishBatchRequestEntries ?? []).map((entry) => JSON.parse(entry.Message!).eventId) };
    });
}

/** The topic's access policy set to deny every Publish (and so every PublishBatch); returns the function that restores it. */
async function denyPublishTo(topicArn: string): Promise<() => Promise<void>> {
  const { Attributes } = await inspectSns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
  const deny = { Version: '2012-10-17', Statement: [{ Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Resource: topicArn }] };
  await inspectSns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: JSON.stringify(deny) }));
  return async () => {
    await inspectSns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: Attributes!.Policy! }));
  };
}

/** The record as SQS hands it out again after it was reported failed. */
const retried = (record: SQSRecord, receiveCount = 2): SQSRecord => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(receiveCount) } });

describe('a batch with events that can never be delivered', () => {
  it('drops those (reporting no failure for them) and delivers the others of the batch, in the batch\'s order', async () => {
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
    // One PublishBatch to the one recipient, its entries in the batch's order.
    expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual([first.id, last.id]);
  });

  it('publishes an event EventBridge or SQS handed over twice in one batch once to each recipient', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const event = portalEvent(CREATE, { portalId });
    const other = portalEvent(CREATE, { portalId });
    // Two messages of one event (EventBridge and SQS both deliver at least once), one of another between them.
    expect(await runBatch([sqsRecord(event), sqsRecord(other), sqsRecord(event)])).toEqual({ batchItemFailures: [] });
    expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual([event.id, other.id]);
  });

  it('reports both copies of a twice-handed event failed when its one publish fails, and sends it once when retried', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const event = portalEvent(CREATE, { portalId });
    const [first, second] = [sqsRecord(event), sqsRecord(event)];
    const removeFault = injectFault(snsClient, /^PublishBatch/);
    try {
      expect((await runBatch([first, second])).batchItemFailures.map(({ itemIdentifier }) => itemIdentifier).sort()).toEqual(
        [first.messageId, second.messageId].sort(),
      );
    } finally {
      removeFault();
    }
    expect(await runBatch([retried(first), retried(second)])).toEqual({ batchItemFailures: [] });
    expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual([event.id]);
  });
});

describe('calls per batch', () => {
  it('10 events of one portal: one Query, and one PublishBatch of 10 entries per recipient (10 recipients: 11 calls, against 110 one by one)', async () => {
    const portalId = freshPortal();
    const subscriptions = [];
    for (let n = 0; n < 10; n++) subscriptions.push(await subscribeQueue(portalId, [CREATE]));
    const events = Array.from({ length: 10 }, (_, n) => portalEvent(CREATE, { portalId, mediaId: `m-${n}` }));

    let batches: { topicArn: string; eventIds: string[] }[] = [];
    const calls = await awsCallsDuring(async () => {
      batches = await publishBatchesDuring(async () => expect(await runBatch(events.map((event) => sqsRecord(event)))).toEqual({ batchItemFailures: [] }));
    });

    expect(calls.sort()).toEqual(['QueryCommand', ...Array<string>(10).fill('PublishBatchCommand')].sort());
    expect(batches.map((batch) => batch.topicArn).sort()).toEqual(subscriptions.map((subscription) => subscription.topicArn).sort());
    for (const batch of batches) expect(batch.eventIds).toEqual(events.map((event) => event.id));
    for (const subscription of subscriptions) expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual(events.map((event) => event.id));
  });

  it('events of several portals: one Query per distinct portal, each portal\'s events to its own recipients only', async () => {
    const portals = [freshPortal(), freshPortal(), freshPortal()];
    const subscriptions = [];
    for (const portalId of portals) subscriptions.push(await subscribeQueue(portalId, [CREATE]));
    // Two events per portal, interleaved as a queue may hand them over.
    const events = [0, 1].flatMap((n) => portals.map((portalId) => portalEvent(CREATE, { portalId, mediaId: `m-${n}` })));

    const calls = await awsCallsDuring(async () => expect(await runBatch(events.map((event) => sqsRecord(event)))).toEqual({ batchItemFailures: [] }), {
      withTopic: true,
    });

    expect(calls.filter((call) => call === 'QueryCommand')).toHaveLength(3);
    expect(calls.filter((call) => call.startsWith('PublishBatchCommand')).sort()).toEqual(subscriptions.map((s) => `PublishBatchCommand ${s.topicArn}`).sort());
    for (const [index, subscription] of subscriptions.entries()) {
      const own = events.filter((event) => (event.detail as { portalId: string }).portalId === portals[index]).map((event) => event.id);
      expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual(own);
    }
  });

  it('publishes once per activated subscription listing the kind, and to no other, with the kind as the event attribute', async () => {
    const portalId = freshPortal();
    const chosen = await subscribeQueue(portalId, [CREATE, DELETED]);
    const otherKind = await subscribeQueue(portalId, [DELETED]);
    const deactivated = await subscribeQueue(portalId, [CREATE]);
    expect((await call('activateSubscriptionRoute', { portalId, body: { config_id: deactivated.configId, status: 0 } })).statusCode).toBe(200);
    const create = portalEvent(CREATE, { portalId, mediaId: 'm-1' });
    const deleted = portalEvent(DELETED, { portalId, mediaId: 'm-1' });

    const calls = await awsCallsDuring(async () => expect(await runBatch([sqsRecord(create), sqsRecord(deleted)])).toEqual({ batchItemFailures: [] }), {
      withTopic: true,
    });

    // One Query of the portal's partition, one PublishBatch per recipient with that recipient's events.
    expect(calls.sort()).toEqual(['QueryCommand', `PublishBatchCommand ${chosen.topicArn}`, `PublishBatchCommand ${otherKind.topicArn}`].sort());
    expect(await eventIdsDeliveredTo(chosen.subscriptionArn)).toEqual([create.id, deleted.id]);
    expect(await eventIdsDeliveredTo(otherKind.subscriptionArn)).toEqual([deleted.id]);
    expect(await eventIdsDeliveredTo(deactivated.subscriptionArn)).toEqual([]);
    const attributesTo = async (subscriptionArn: string) => (await deliveriesTo(subscriptionArn)).filter((d) => d.type === 'Notification').map((d) => JSON.parse(d.body).MessageAttributes);
    expect(await attributesTo(chosen.subscriptionArn)).toEqual([
      { event: { Type: 'String', Value: CREATE } },
      { event: { Type: 'String', Value: DELETED } },
    ]);
  });
});

describe('a PublishBatch refused whole', () => {
  it('fails only the records of its events, which are delivered when the queue retries them; another portal\'s events are unaffected', async () => {
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
    expect(await runBatch([retried(affected)])).toEqual({ batchItemFailures: [] });
    expect(await eventIdsDeliveredTo(broken.subscriptionArn)).toEqual([affectedId]);
    expect(await eventIdsDeliveredTo(healthy.subscriptionArn)).toEqual([affectedId]);
  });

  it('reports every record of a batch that failed entirely, rather than failing the invocation', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const records = [1, 2].map((n) => sqsRecord(portalEvent(CREATE, { portalId, mediaId: `m-${n}` })));
    const removeFault = failPublishTo(subscription.topicArn);
    try {
      const { batchItemFailures } = await runBatch(records);
      expect(batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(records.map((record) => record.messageId).sort());
    } finally {
      removeFault();
    }
  });

  it('by the topic\'s policy (SNS\'s own AuthorizationError): only that recipient is owed the events, and gets them once the policy lets it', async () => {
    const portalId = freshPortal();
    const denied = await subscribeQueue(portalId, [CREATE]);
    const other = await subscribeQueue(portalId, [CREATE]);
    const records = [1, 2].map((n) => sqsRecord(portalEvent(CREATE, { portalId, mediaId: `m-${n}` })));
    const ids = records.map((record) => JSON.parse(record.body).id);
    const restorePolicy = await denyPublishTo(denied.topicArn);
    try {
      const { batchItemFailures } = await runBatch(records);
      expect(batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(records.map((record) => record.messageId).sort());
    } finally {
      await restorePolicy();
    }
    expect(await eventIdsDeliveredTo(other.subscriptionArn)).toEqual(ids);
    expect(await eventIdsDeliveredTo(denied.subscriptionArn)).toEqual([]);

    const calls = await awsCallsDuring(async () => expect(await runBatch(records.map((record) => retried(record)))).toEqual({ batchItemFailures: [] }), {
      withTopic: true,
    });
    expect(calls.filter((call) => call.startsWith('PublishBatchCommand'))).toEqual([`PublishBatchCommand ${denied.topicArn}`]);
    expect(await eventIdsDeliveredTo(denied.subscriptionArn)).toEqual(ids);
    expect(await eventIdsDeliveredTo(other.subscriptionArn)).toEqual(ids);
  });
});

describe('one entry of a PublishBatch that SNS failed', () => {
  afterEach(() => jest.restoreAllMocks());

  it('fails that event alone, whose retry goes to that recipient alone; the batch\'s other events and recipients get theirs once', async () => {
    const portalId = freshPortal();
    const flaky = await subscribeQueue(portalId, [CREATE]);
    const steady = await subscribeQueue(portalId, [CREATE]);
    const [unlucky, lucky] = [1, 2].map((n) => sqsRecord(portalEvent(CREATE, { portalId, mediaId: `m-${n}` })));
    const unluckyId: string = JSON.parse(unlucky!.body).id;
    const luckyId: string = JSON.parse(lucky!.body).id;
    const errors = jest.spyOn(logger, 'error');

    const removeFault = failEntryOf(flaky.topicArn, unluckyId);
    let calls: string[];
    try {
      calls = await awsCallsDuring(async () => expect(await runBatch([unlucky!, lucky!])).toEqual({ batchItemFailures: [{ itemIdentifier: unlucky!.messageId }] }));
    } finally {
      removeFault();
    }
    expect(await eventIdsDeliveredTo(flaky.subscriptionArn)).toEqual([luckyId]);
    expect(await eventIdsDeliveredTo(steady.subscriptionArn)).toEqual([unluckyId, luckyId]);
    // Who got the unlucky event is recorded: one UpdateItem, for that event only.
    expect(calls.filter((call) => call === 'UpdateItemCommand')).toHaveLength(1);
    expect(errors).toHaveBeenCalledWith(
      'publish failed; its queue will retry the event for this recipient',
      expect.objectContaining({ eventId: unluckyId, configId: flaky.configId, error: expect.objectContaining({ name: 'InternalError' }) }),
    );

    const retryCalls = await awsCallsDuring(async () => expect(await runBatch([retried(unlucky!)])).toEqual({ batchItemFailures: [] }), { withTopic: true });
    expect(retryCalls.sort()).toEqual(['GetItemCommand', `PublishBatchCommand ${flaky.topicArn}`, 'QueryCommand'].sort());
    expect(await eventIdsDeliveredTo(flaky.subscriptionArn)).toEqual([luckyId, unluckyId]);
    expect(await eventIdsDeliveredTo(steady.subscriptionArn)).toEqual([unluckyId, luckyId]);
  });
});

describe('a portal whose records cannot be read', () => {
  afterEach(() => jest.restoreAllMocks());

  it('fails its own events only (nothing of them published); the other portals of the batch are dispatched', async () => {
    const [unreadable, readable] = [freshPortal(), freshPortal()];
    const hidden = await subscribeQueue(unreadable, [CREATE]);
    const visible = await subscribeQueue(readable, [CREATE]);
    const records = [unreadable, readable, unreadable].map((portalId) => sqsRecord(portalEvent(CREATE, { portalId })));
    const errors = jest.spyOn(logger, 'error');
    const name = `fail-query-${randomUUID()}`;
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        // The document client's value, or the marshalled one, whichever this middleware sees.
        const value = (args.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues?.[':portalId'];
        const portalId = typeof value === 'string' ? value : (value as { S?: string } | undefined)?.S;
        if (context.commandName === 'QueryCommand' && portalId === unreadable) throw serviceFault('QueryCommand');
        return next(args);
      },
      { step: 'initialize', name },
    );
    let result;
    try {
      result = await runBatch(records);
    } finally {
      dynamoDbClient.middlewareStack.remove(name);
    }

    expect(result.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual([records[0]!.messageId, records[2]!.messageId].sort());
    expect(await eventIdsDeliveredTo(visible.subscriptionArn)).toEqual([JSON.parse(records[1]!.body).id]);
    expect(await eventIdsDeliveredTo(hidden.subscriptionArn)).toEqual([]);
    expect(errors).toHaveBeenCalledWith('portal event not dispatched; its queue will retry it', expect.objectContaining({ portalId: unreadable }));
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

describe('one recipient whose PublishBatch fails', () => {
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
    for (const other of others) expect(calls.filter((name) => name === `PublishBatchCommand ${other.topicArn}`)).toHaveLength(1);
    // What that costs: each try that fails someone records who got the event (or renews that record), each retry reads it.
    const count = (name: string) => calls.filter((call) => call === name).length;
    expect([count('QueryCommand'), count('UpdateItemCommand'), count('GetItemCommand')]).toEqual([3, 2, 2]);
    // Logged with SNS's reason, twice: once per failed try.
    const failures = errors.mock.calls.filter(([message]) => message.startsWith('publish failed'));
    expect(failures).toHaveLength(2);
    for (const [, fields] of failures) {
      expect(fields).toMatchObject({
        eventId: event.id,
        configId: broken.configId,
        topicArn: broken.topicArn,
        error: { name: 'InternalFailure', message: expect.stringContaining('InternalFailure for PublishBatchCommand') },
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

describe('large events', () => {
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

  it('one too large for SNS is dropped at once with its reason: tried once, published to no one, not dead-lettered', async () => {
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

  it("goes out in PublishBatch calls of at most 256 KiB together: two events of 150 KB to one recipient take two calls, in order", async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const [first, second] = [eventOfSize(portalId, subscription, 150_000), eventOfSize(portalId, subscription, 150_000)];

    const batches = await publishBatchesDuring(async () =>
      expect(await runBatch([sqsRecord(first!.event), sqsRecord(second!.event)])).toEqual({ batchItemFailures: [] }),
    );

    expect(batches).toEqual([
      { topicArn: subscription.topicArn, eventIds: [first!.event.id] },
      { topicArn: subscription.topicArn, eventIds: [second!.event.id] },
    ]);
    expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual([first!.event.id, second!.event.id]);
    // Together, SNS would have refused both.
    const together = [first!, second!].map(({ input }, index) => ({ Id: `e${index}`, Message: input.Message, MessageAttributes: input.MessageAttributes }));
    await expect(snsClient.send(new PublishBatchCommand({ TopicArn: subscription.topicArn, PublishBatchRequestEntries: together }))).rejects.toMatchObject({
      name: 'BatchRequestTooLongException',
    });
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
