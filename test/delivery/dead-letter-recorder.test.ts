/**
 * The dead-letter recorder as Lambda's SQS event source calls it: batches of messages of the
 * delivery dead-letter queue, shaped as SNS puts them there (the notification JSON; RequestID,
 * ErrorCode, ErrorMessage attributes), against DynamoDB Local. A dead letter lands in its
 * subscription's portal only, once however often SQS hands it out, never for a subscription that
 * is gone or a portal that does not own the topic; a malformed one is dropped without holding up
 * its batch; at most 1,000 are kept per subscription, the oldest giving way and counted; one past
 * its 14 days is neither listed nor counted. A record whose write fails is reported failed alone (SQS
 * partial batch response); a batch whose every record failed fails the invocation.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, dynamoDbClient } from '../../shared/aws/dynamodb';
import { markRetrying, MAX_KEPT_PER_SUBSCRIPTION, remove, retryLedger, select } from '../../shared/data/dead-letters';
import { retryKeyOf } from '../../shared/data/due-work';
import { config } from '../../shared/environment';
import { deadLetterPrefixOf } from '../../shared/data/table';
import { call, freshPortal, newSubscription } from '../support/api';
import { injectFault } from '../support/faults';
import { deadLetterRecord, logMessagesOf, publishedBody, rawDeadLetterRecord as rawRecord, recordBatch as runBatch } from '../support/dead-letters';

const CREATE = 'asset_bank.media.create';
const DAY_MS = 86_400_000;

interface Subscribed {
  portalId: string;
  configId: string;
  topicArn: string;
}

async function subscribe(portalId = freshPortal()): Promise<Subscribed> {
  const created = await call('createSubscriptionRoute', { portalId, body: newSubscription() });
  expect(created.statusCode).toBe(200);
  const { configId, topicArn } = created.body.record;
  return { portalId, configId, topicArn };
}

/** Every dead-letter item of the subscription in its portal's partition, expired or not. */
async function storedItems(to: Subscribed) {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await documentClient.send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':portalId': to.portalId, ':prefix': deadLetterPrefixOf(to.configId) },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
    if (!startKey) break;
  }
  return items;
}

async function listEntry(to: Subscribed) {
  const listed = await call('listSubscriptionsRoute', { portalId: to.portalId });
  return listed.body.configs.find((entry: { configId: string }) => entry.configId === to.configId);
}

async function deadLettersListed(to: Subscribed, query: Record<string, string> = {}) {
  return call('listDeadLettersRoute', { portalId: to.portalId, query: { config_id: to.configId, ...query } });
}

describe('the dead-letter recorder', () => {
  it('keeps a dead letter in its subscription\'s portal with what it failed with, its message byte for byte, and counts it', async () => {
    const subscription = await subscribe();
    const message = publishedBody(subscription);
    const sentAt = Date.now() - 1_234;
    const snsMessageId = randomUUID();

    const result = await runBatch([deadLetterRecord(subscription, { message, snsMessageId, sentAt })]);

    expect(result).toEqual({ batchItemFailures: [] });
    const [item] = await storedItems(subscription);
    const failedAt = new Date(sentAt).toISOString();
    expect(item).toMatchObject({
      portalId: subscription.portalId,
      configId: subscription.configId,
      eventId: JSON.parse(message).eventId,
      event: CREATE,
      occurredAt: '2026-11-24T08:15:00Z',
      failedAt,
      messageId: snsMessageId,
      message,
    });
    // Kept until the end of the UTC day it failed on plus 14 days.
    expect(item!.idempotencyExpiresAt).toBe((Date.parse(`${failedAt.slice(0, 10)}T00:00:00Z`) + 15 * DAY_MS) / 1000);
    expect(await listEntry(subscription)).toMatchObject({ deadLetters: 1, lastDeadLetterAt: failedAt, deadLettersDropped: 0 });
    const listed = await deadLettersListed(subscription);
    // Its first scheduled retry, 5 minutes (DELIVERY_RETRY_SCHEDULE's default) after it failed.
    const nextRetryAt = new Date(Date.parse(failedAt) + 5 * 60_000).toISOString();
    expect(listed.body.deadLetters).toEqual([
      { eventId: JSON.parse(message).eventId, event: CREATE, occurredAt: '2026-11-24T08:15:00Z', failedAt, messageId: snsMessageId, retries: 0, nextRetryAt, state: 'dead-lettered', retriedAt: null },
    ]);
  });

  it("keeps a replay's end of the schedule when a scheduled retry of the same event commits after it: the next dead letter waits for a person", async () => {
    // Prepare: two dead letters of one event, the earlier one's retry on its way while the later one is replayed.
    const subscription = await subscribe();
    const message = publishedBody(subscription);
    const { eventId } = JSON.parse(message);
    const sentAt = Date.now() - 10_000;
    await runBatch([deadLetterRecord(subscription, { message, sentAt })]);
    await runBatch([deadLetterRecord(subscription, { message, sentAt: sentAt + 1_000 })]);
    const table = { db: documentClient, tableName: config.tableName };
    const [earlier, later] = await select(table, subscription.portalId, subscription.configId, 10, () => true);

    // Act: the replay of the later one commits first, the scheduled retry of the earlier one after it.
    expect(await remove(table, later!)).toBe(true);
    const retry = { messageId: randomUUID(), sentAt: new Date().toISOString() };
    const settle = { kind: 'settle' as const, dueAt: retry.sentAt, subscriptionPortalId: subscription.portalId, configId: subscription.configId, letterSk: earlier!.sk };
    expect(await markRetrying(table, earlier!, retryKeyOf(earlier!)!, retry, settle)).toBe(true);
    await runBatch([deadLetterRecord(subscription, { message })]);

    // Assess: the ledger still says a replay ended the schedule, and the new dead letter has no retry;
    // the earlier one stays, being retried, until its retry's verdict.
    expect(await retryLedger(table, subscription.portalId, subscription.configId, eventId)).toEqual({
      retries: 1,
      cancelled: true,
      retrying: { sk: earlier!.sk, failedAt: earlier!.failedAt, messageId: retry.messageId },
    });
    expect((await deadLettersListed(subscription)).body.deadLetters).toEqual([
      expect.objectContaining({ eventId, retries: 1, nextRetryAt: null, state: 'dead-lettered', retriedAt: null }),
      expect.objectContaining({ eventId, messageId: earlier!.messageId, retries: 1, nextRetryAt: null, state: 'retrying', retriedAt: retry.sentAt }),
    ]);
  });

  it('holds back a young dead letter whose message is not logged yet, and marks the message dead-lettered once it is', async () => {
    const subscription = await subscribe();
    const early = deadLetterRecord(subscription);
    const old = deadLetterRecord(subscription, { sentAt: Date.now() - 60_000 });
    const messageStates = async () =>
      (await call('listMessagesRoute', { portalId: subscription.portalId, query: { config_id: subscription.configId } })).body.messages.map(
        (message: { status: string; body: { eventId: string } }) => [message.body.eventId, message.status],
      );

    // SNS gave up on both before their log writes landed: the young one waits, SQS hands it out again.
    const first = await runBatch([early, old], { logged: false });
    const keptFirst = (await storedItems(subscription)).map((item) => item.messageId);
    // Its log write lands; the redelivered record finds it.
    await logMessagesOf([early]);
    const second = await runBatch([early], { logged: false });

    // Held back without an error (the invocation did not fail); the old one, whose message was
    // never logged, kept at once all the same.
    expect(first).toEqual({ batchItemFailures: [{ itemIdentifier: early.messageId }] });
    expect(keptFirst).toEqual([JSON.parse(old.body).MessageId]);
    expect(second).toEqual({ batchItemFailures: [] });
    expect((await storedItems(subscription)).map((item) => item.messageId).sort()).toEqual([JSON.parse(early.body).MessageId, JSON.parse(old.body).MessageId].sort());
    expect(await messageStates()).toEqual([[JSON.parse(JSON.parse(early.body).Message).eventId, 'dead-lettered']]);
  });

  it('keeps a dead letter SQS hands out twice only once, and counts it once', async () => {
    const subscription = await subscribe();
    const twice = deadLetterRecord(subscription);

    expect(await runBatch([twice])).toEqual({ batchItemFailures: [] });
    expect(await runBatch([{ ...twice, receiptHandle: randomUUID(), attributes: { ...twice.attributes, ApproximateReceiveCount: '2' } }, twice])).toEqual({
      batchItemFailures: [],
    });

    expect(await storedItems(subscription)).toHaveLength(1);
    expect((await listEntry(subscription)).deadLetters).toBe(1);
  });

  it('drops and logs a malformed message without holding up the rest of its batch', async () => {
    const subscription = await subscribe();
    const malformed = [
      rawRecord('not json'),
      rawRecord(JSON.stringify({ Type: 'SubscriptionConfirmation', MessageId: randomUUID(), TopicArn: subscription.topicArn, Message: '{}' })),
      deadLetterRecord(subscription, { message: 'not the service\'s message' }),
      deadLetterRecord(subscription, { message: publishedBody(subscription, { eventId: undefined }) }),
      deadLetterRecord(subscription, { topicArn: 'arn:aws:sns:us-east-1:000000000000:someone-elses-topic' }),
    ];
    const good = deadLetterRecord(subscription);

    const result = await runBatch([...malformed, good]);

    expect(result).toEqual({ batchItemFailures: [] });
    const items = await storedItems(subscription);
    expect(items.map((item) => item.messageId)).toEqual([JSON.parse(good.body).MessageId]);
    expect((await listEntry(subscription)).deadLetters).toBe(1);
  });

  it('drops a dead letter whose subscription is gone, and one whose body names a portal that does not own the topic', async () => {
    const gone = await subscribe();
    expect((await call('deleteSubscriptionRoute', { portalId: gone.portalId, configId: gone.configId })).statusCode).toBe(200);
    const owner = await subscribe();
    const otherPortal = await subscribe();
    // The topic of `owner`, with a body naming another portal and owner's config id.
    const foreign = deadLetterRecord(owner, { message: publishedBody({ ...owner, portalId: otherPortal.portalId }) });

    const result = await runBatch([deadLetterRecord(gone), foreign]);

    expect(result).toEqual({ batchItemFailures: [] });
    expect(await storedItems(gone)).toEqual([]);
    expect(await storedItems({ ...owner, portalId: otherPortal.portalId })).toEqual([]);
    expect(await storedItems(owner)).toEqual([]);
    expect((await listEntry(otherPortal)).deadLetters).toBe(0);
  });

  it('neither lists nor counts a dead letter past its 14 days, though DynamoDB has not deleted it yet', async () => {
    const subscription = await subscribe();
    await runBatch([deadLetterRecord(subscription, { sentAt: Date.now() - 16 * DAY_MS }), deadLetterRecord(subscription)]);

    expect(await storedItems(subscription)).toHaveLength(2);
    expect((await listEntry(subscription)).deadLetters).toBe(1);
    expect((await deadLettersListed(subscription)).body.deadLetters).toHaveLength(1);
  });

  it(`keeps at most ${MAX_KEPT_PER_SUBSCRIPTION}: the next one pushes out the oldest, which is counted as dropped, and its scheduled retry with it`, async () => {
    const subscription = await subscribe();
    const start = Date.now() - 60 * 60_000;
    // The oldest failed two days before the others: pushing it out uncounts another day's counter.
    const records = Array.from({ length: MAX_KEPT_PER_SUBSCRIPTION + 1 }, (_, index) =>
      deadLetterRecord(subscription, { sentAt: index === 0 ? start - 2 * DAY_MS : start + index * 1_000 }),
    );
    const oldest = JSON.parse(records[0]!.body).MessageId;

    const table = { db: documentClient, tableName: config.tableName };
    let oldestRetry: { portalId: string; sk: string } | undefined;
    for (let first = 0; first < records.length; first += 10) {
      expect(await runBatch(records.slice(first, first + 10))).toEqual({ batchItemFailures: [] });
      if (first === 0) oldestRetry = retryKeyOf((await select(table, subscription.portalId, subscription.configId, 1, () => true))[0]!);
    }

    const items = await storedItems(subscription);
    expect(items).toHaveLength(MAX_KEPT_PER_SUBSCRIPTION);
    expect(items.map((item) => item.messageId)).not.toContain(oldest);
    // Its due retry is gone too: the sweep has nothing left to read of it.
    expect(oldestRetry).toBeDefined();
    expect((await documentClient.send(new GetCommand({ TableName: config.tableName, Key: oldestRetry! }))).Item).toBeUndefined();
    expect(await listEntry(subscription)).toMatchObject({ deadLetters: MAX_KEPT_PER_SUBSCRIPTION, deadLettersDropped: 1 });
    expect((await deadLettersListed(subscription, { limit: '1' })).body).toMatchObject({
      deadLetters: [{ messageId: JSON.parse(records.at(-1)!.body).MessageId }],
      deadLettersDropped: 1,
    });
  }, 120_000);
  it('reports a record whose write fails as failed, alone, and keeps the others of its batch', async () => {
    const subscription = await subscribe();
    const keptId = randomUUID();
    const [failing, kept] = [deadLetterRecord(subscription), deadLetterRecord(subscription, { snsMessageId: keptId })];
    // DynamoDB's refusal of the first record's transaction (a fault DynamoDB Local cannot be made to produce).
    const removeFault = injectFault(dynamoDbClient, /^TransactWriteItems/);
    let result;
    try {
      result = await runBatch([failing, kept]);
    } finally {
      removeFault();
    }

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: failing.messageId }] });
    expect(await storedItems(subscription)).toEqual([expect.objectContaining({ messageId: keptId })]);
    expect(kept.messageId).not.toBe(failing.messageId);
    expect((await listEntry(subscription)).deadLetters).toBe(1);
  });

  it('fails the invocation when every record of its batch failed, so that Lambda counts an error', async () => {
    const subscription = await subscribe();
    const removeFault = injectFault(dynamoDbClient, /^TransactWriteItems/, { times: 2 });
    try {
      await expect(runBatch([deadLetterRecord(subscription), deadLetterRecord(subscription)])).rejects.toThrow('All records of the batch failed; each is retried.');
    } finally {
      removeFault();
    }

    expect(await storedItems(subscription)).toEqual([]);
  });
});
