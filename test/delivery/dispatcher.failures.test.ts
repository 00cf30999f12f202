/**
 * The dispatcher's failures, as Lambda's SQS event source calls it: a PublishBatch refused whole,
 * or one entry SNS failed, fails only those events' records, which are reported (SQS partial
 * batch response) and, when retried, published only to the recipients that did not get them; a
 * portal whose records cannot be read fails only its own events; recipients served that cannot
 * be recorded fail the record; a topic deleted meanwhile is skipped. Retries run through the
 * local queue (infra/local/events) too. What a batch publishes and in how many calls:
 * dispatcher.test.ts.
 */
import { DeleteTopicCommand } from '@aws-sdk/client-sns';
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { FIRST_TRY_WINDOW_MS } from '../../shared/delivery/dispatch';
import { logger } from '../../shared/logger';
import { freshPortal } from '../support/api';
import { awsCallsDuring } from '../support/aws-calls';
import { injectFault, serviceFault } from '../support/faults';
import { sqsRecord } from '../support/portal-events';
import {
  CREATE,
  DELETED,
  eventTime,
  portalEvent,
  runBatch,
  subscribeQueue,
  eventIdsDeliveredTo,
  failPublishTo,
  failEntryOf,
  denyPublishTo,
  retried,
  localQueue,
  drain, loggedMessagesOf, messagesDeliveredTo } from '../support/dispatcher';

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
    expect(retryCalls.sort()).toEqual(['GetItemCommand', `PublishBatchCommand ${flaky.topicArn}`, 'QueryCommand', 'BatchWriteItemCommand'].sort());
    expect(await eventIdsDeliveredTo(flaky.subscriptionArn)).toEqual([luckyId, unluckyId]);
    expect(await eventIdsDeliveredTo(steady.subscriptionArn)).toEqual([unluckyId, luckyId]);
    // The retried batch logs only what it published anew: each recipient's log holds each message it got, once.
    for (const { configId, subscriptionArn } of [flaky, steady]) {
      const logged = (await loggedMessagesOf(portalId, configId)).map(({ messageId }) => messageId).sort();
      expect(logged).toEqual((await messagesDeliveredTo(subscriptionArn)).map(({ messageId }) => messageId).sort());
    }
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
