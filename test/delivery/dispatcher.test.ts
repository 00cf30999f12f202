/**
 * The dispatcher function as Lambda's SQS event source calls it: batches of queued EventBridge
 * events, against DynamoDB Local and the SNS emulator. A batch costs one Query per portal and,
 * per recipient, one PublishBatch per 10 of its events (fewer when their size says so). Events
 * that can never be delivered are dropped without touching the rest of their batch, an event too
 * large for SNS at once. How failures are retried: dispatcher.failures.test.ts.
 */
import { PublishBatchCommand, PublishCommand } from '@aws-sdk/client-sns';
import { jest } from '@jest/globals';
import { handler as dispatch } from '../../functions/dispatchPortalEvents';
import { snsClient } from '../../shared/aws/sns';
import { MAX_PUBLISH_BYTES, publishInputFor, publishSizeOf } from '../../shared/delivery/message';
import { logger } from '../../shared/logger';
import { call, freshPortal } from '../support/api';
import { awsCallsDuring } from '../support/aws-calls';
import { injectFault } from '../support/faults';
import { sqsRecord } from '../support/portal-events';
import { deliveriesTo } from '../support/sns-confirmation';
import {
  CREATE,
  DELETED,
  portalEvent,
  runBatch,
  subscribeQueue,
  eventIdsDeliveredTo,
  loggedMessagesOf,
  messagesDeliveredTo,
  publishBatchesDuring,
  retried,
  localQueue,
  drain,
} from '../support/dispatcher';

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
  it('10 events of one portal: one Query, one PublishBatch of 10 entries per recipient, and the 100 messages logged 12 to a BatchWriteItem (10 recipients: 20 calls, against 310 one by one)', async () => {
    const portalId = freshPortal();
    const subscriptions = [];
    for (let n = 0; n < 10; n++) subscriptions.push(await subscribeQueue(portalId, [CREATE]));
    const events = Array.from({ length: 10 }, (_, n) => portalEvent(CREATE, { portalId, mediaId: `m-${n}` }));

    let batches: { topicArn: string; eventIds: string[] }[] = [];
    const calls = await awsCallsDuring(async () => {
      batches = await publishBatchesDuring(async () => expect(await runBatch(events.map((event) => sqsRecord(event)))).toEqual({ batchItemFailures: [] }));
    });

    expect(calls.sort()).toEqual(['QueryCommand', ...Array<string>(10).fill('PublishBatchCommand'), ...Array<string>(9).fill('BatchWriteItemCommand')].sort());
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

    // One Query of the portal's partition, one PublishBatch per recipient with that recipient's events, the 3 messages logged in one call.
    expect(calls.sort()).toEqual(['QueryCommand', `PublishBatchCommand ${chosen.topicArn}`, `PublishBatchCommand ${otherKind.topicArn}`, 'BatchWriteItemCommand'].sort());
    // Each message is logged with SNS's message id and the very body the endpoint got.
    for (const { configId, subscriptionArn } of [chosen, otherKind]) {
      const delivered = await messagesDeliveredTo(subscriptionArn);
      const logged = await loggedMessagesOf(portalId, configId);
      expect(logged.map(({ messageId, body }) => ({ messageId, body })).sort((a, b) => a.messageId.localeCompare(b.messageId))).toEqual(
        [...delivered].sort((a, b) => a.messageId.localeCompare(b.messageId)),
      );
      expect(logged.every(({ deliveryState }) => deliveryState === 'pending')).toBe(true);
    }
    expect(await loggedMessagesOf(portalId, deactivated.configId)).toEqual([]);
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
