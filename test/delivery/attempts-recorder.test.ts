/**
 * The attempts consumer as CloudWatch Logs invokes it: subscription events (gzip, base64
 * `awslogs.data`) of a topic's delivery status log group, holding SNS's delivery status records,
 * against DynamoDB Local and the SNS emulator. An attempt is kept only when its message id is one
 * the service published to that topic (the message log), in the portal that message was logged for,
 * once however often it is handed over, counted in list's health; any other record is dropped and
 * counted, and moves nothing; a malformed or foreign record is kept nowhere and logged with the
 * reason; one of a subscription that is gone is dropped; at most the cap is kept, the oldest giving
 * way. A test event's success is listed, but ends no failing streak.
 */
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../functions/recordDeliveryAttempts';
import { logSubscriptionEventOf } from '../../shared/attempts/delivery-status-record';
import { documentClient } from '../../shared/aws/dynamodb';
import { config } from '../../shared/environment';
import { logger } from '../../shared/logger';
import { attemptPrefixOf, messagePrefixOf } from '../../shared/data/table';
import { logMessages } from '../../shared/data/messages';
import { UNKNOWN_MESSAGE_DROPPED } from '../../shared/attempts/message-join';
import { find } from '../../shared/data/subscription-reads';
import { call, freshPortal, newSubscription } from '../support/api';
import { lambdaContext } from '../support/lambda-context';

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

/** Logs `count` messages as a publisher does after SNS accepted them; answers their SNS message ids. */
async function publishedMany(to: Subscribed, count: number, event = 'asset_bank.media.create'): Promise<string[]> {
  const now = new Date().toISOString();
  const messages = Array.from({ length: count }, () => {
    const eventId = randomUUID();
    const body = JSON.stringify({ event, portalId: to.portalId, configId: to.configId, eventId, occurredAt: now, data: {} });
    return { portalId: to.portalId, configId: to.configId, messageId: randomUUID(), eventId, event, occurredAt: now, sentAt: now, body };
  });
  const { notLogged } = await logMessages({ db: documentClient, tableName: config.tableName }, 30, messages);
  expect(notLogged).toEqual([]);
  return messages.map(({ messageId }) => messageId);
}
const published = async (to: Subscribed, event?: string) => (await publishedMany(to, 1, event))[0]!;

async function loggedMessages(to: Subscribed) {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':portalId': to.portalId, ':prefix': messagePrefixOf(to.configId) },
    }),
  );
  return result.Items ?? [];
}

/** SNS's log group of the topic: sns/<region>/<account>/<topic>, failures in .../Failure. */
function logGroupOf(topicArn: string, failure: boolean): string {
  const [, , , region, account, name] = topicArn.split(':');
  return `sns/${region}/${account}/${name}${failure ? '/Failure' : ''}`;
}

interface RecordOptions {
  status?: 'SUCCESS' | 'FAILURE';
  statusCode?: number;
  attempts?: number;
  messageId?: string;
  topicArn?: string;
}

/** SNS's delivery status record, as "Amazon SNS message delivery status" shows it. */
function statusRecord(to: Subscribed, { status = 'SUCCESS', statusCode = 200, attempts = 1, messageId = randomUUID(), topicArn = to.topicArn }: RecordOptions = {}) {
  return {
    notification: { messageMD5Sum: '52a349e59f1b4337bf9d951ca326b303', messageId, topicArn, timestamp: '2026-11-25 10:15:30.123' },
    delivery: {
      deliveryId: randomUUID(),
      destination: 'https://receiver.example/hooks',
      providerResponse: status === 'SUCCESS' ? 'OK' : 'Internal Server Error',
      dwellTimeMs: 120,
      attempts,
      statusCode,
    },
    status,
  };
}

let nextTimestamp = Date.now() - 60_000;
const logEvent = (message: unknown) => ({ id: randomUUID().replace(/-/g, ''), timestamp: nextTimestamp++, message: typeof message === 'string' ? message : JSON.stringify(message) });

const run = (event: unknown) => handler(event, lambdaContext('recordDeliveryAttempts'));

async function storedItems(to: Subscribed) {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':portalId': to.portalId, ':prefix': attemptPrefixOf(to.configId) },
    }),
  );
  return result.Items ?? [];
}

async function listEntry(to: Subscribed) {
  const listed = await call('listSubscriptionsRoute', { portalId: to.portalId });
  return listed.body.configs.find((entry: { configId: string }) => entry.configId === to.configId);
}

afterEach(() => jest.restoreAllMocks());

describe('the attempts consumer', () => {
  it("keeps a delivery and a failure in the subscription's portal, once however often handed over, counted in list", async () => {
    const subscription = await subscribe();
    const bystander = await subscribe();
    const success = logEvent(statusRecord(subscription, { messageId: await published(subscription) }));
    const failure = logEvent(statusRecord(subscription, { status: 'FAILURE', statusCode: 500, attempts: 4, messageId: await published(subscription) }));
    const successEvent = logSubscriptionEventOf('000000000000', logGroupOf(subscription.topicArn, false), 'stream', [success]);

    expect(await run(successEvent)).toEqual({ stored: 1, duplicates: 0, evicted: 0, dropped: 0, unknown: 0 });
    expect(await run(logSubscriptionEventOf('000000000000', logGroupOf(subscription.topicArn, true), 'stream', [failure]))).toMatchObject({ stored: 1 });
    // CloudWatch Logs and Lambda deliver at least once: the same event again keeps nothing more.
    expect(await run(successEvent)).toEqual({ stored: 0, duplicates: 1, evicted: 0, dropped: 0, unknown: 0 });

    const items = await storedItems(subscription);
    expect(items.map(({ status, statusCode, attempts, dwellTimeMs }) => ({ status, statusCode, attempts, dwellTimeMs }))).toEqual([
      { status: 'delivered', statusCode: 200, attempts: 1, dwellTimeMs: 120 },
      { status: 'failed', statusCode: 500, attempts: 4, dwellTimeMs: 120 },
    ]);
    // Each message of the log shows its outcome.
    const messages = await loggedMessages(subscription);
    expect(messages.map(({ deliveryState, statusCode, attempts, lastAttemptAt }) => ({ deliveryState, statusCode, attempts, lastAttemptAt }))).toEqual([
      { deliveryState: 'delivered', statusCode: 200, attempts: 1, lastAttemptAt: new Date(success.timestamp).toISOString() },
      { deliveryState: 'failed', statusCode: 500, attempts: 4, lastAttemptAt: new Date(failure.timestamp).toISOString() },
    ]);
    // Each attempt carries the eventId its receiver saw.
    expect(items.map(({ eventId }) => eventId)).toEqual(messages.map(({ eventId }) => eventId));
    // Nothing of the endpoint's own (destination, providerResponse) is kept.
    expect(JSON.stringify(items)).not.toContain('receiver.example');
    expect(await listEntry(subscription)).toMatchObject({
      lastDeliveredAt: new Date(success.timestamp).toISOString(),
      lastFailedAt: new Date(failure.timestamp).toISOString(),
      deliveredLast24h: 1,
      failedLast24h: 1,
    });
    expect(await storedItems(bystander)).toEqual([]);
    expect(await listEntry(bystander)).toMatchObject({ lastDeliveredAt: null, lastFailedAt: null, deliveredLast24h: 0, failedLast24h: 0 });
  });

  it('keeps a malformed or foreign record nowhere, and logs why', async () => {
    const subscription = await subscribe();
    const errors = jest.spyOn(logger, 'error');
    const group = logGroupOf(subscription.topicArn, false);
    const foreignTopic = `arn:aws:sns:us-east-1:000000000000:someone-elses-topic`;
    const otherService = await subscribe();
    const cases: [unknown, RegExp][] = [
      [{ awslogs: { data: 'not gzip' } }, /not gzip-compressed JSON/],
      [{ Records: [] }, /no awslogs.data/],
      [logSubscriptionEventOf('000000000000', group, 's', [logEvent('not json')]), /not JSON/],
      [logSubscriptionEventOf('000000000000', group, 's', [logEvent({ status: 'SUCCESS' })]), /no notification and delivery/],
      [logSubscriptionEventOf('000000000000', 'sns/us-east-1/000000000000/someone-elses-topic', 's', [logEvent(statusRecord(subscription, { topicArn: foreignTopic }))]), /not one of the service's/],
      // A record of one topic copied into another topic's log group.
      [logSubscriptionEventOf('000000000000', group, 's', [logEvent(statusRecord(otherService))]), /not the one of log group/],
      [logSubscriptionEventOf('000000000000', '/aws/lambda/anything', 's', [logEvent(statusRecord(subscription))]), /not an SNS delivery status log group/],
      [logSubscriptionEventOf('000000000000', group, 's', [logEvent(statusRecord(subscription, { status: 'FAILURE' }))]), /a FAILURE record in log group/],
      [logSubscriptionEventOf('000000000000', group, 's', [logEvent(statusRecord(subscription, { messageId: '' }))]), /messageId is missing or malformed/],
      [logSubscriptionEventOf('000000000000', group, 's', [logEvent({ ...statusRecord(subscription), delivery: { attempts: 0, dwellTimeMs: 1 } })]), /attempts is not a count/],
    ];
    for (const [event, reason] of cases) {
      errors.mockClear();
      await run(event);
      expect(errors).toHaveBeenCalledTimes(1);
      expect(JSON.stringify(errors.mock.calls[0])).toMatch(reason);
    }
    expect(await storedItems(subscription)).toEqual([]);
    expect(await storedItems(otherService)).toEqual([]);
    expect(await listEntry(subscription)).toMatchObject({ lastDeliveredAt: null, deliveredLast24h: 0 });
  });

  it('drops the attempts of a subscription that is gone', async () => {
    const gone = await subscribe();
    expect((await call('deleteSubscriptionRoute', { portalId: gone.portalId, configId: gone.configId })).statusCode).toBe(200);
    const warnings = jest.spyOn(logger, 'warn');
    const messageId = await published(gone);
    const summary = await run(logSubscriptionEventOf('000000000000', logGroupOf(gone.topicArn, false), 's', [logEvent(statusRecord(gone, { messageId }))]));
    expect(summary).toMatchObject({ stored: 0, dropped: 1 });
    expect(JSON.stringify(warnings.mock.calls)).toMatch(/no longer exists/);
    expect(await storedItems(gone)).toEqual([]);
  });

  it(`keeps at most ${config.maxAttemptsPerSubscription} per subscription: the oldest give way`, async () => {
    const subscription = await subscribe();
    const cap = config.maxAttemptsPerSubscription;
    const ids = await publishedMany(subscription, cap + 3);
    const first = ids.slice(0, cap).map((messageId) => logEvent(statusRecord(subscription, { messageId })));
    const group = logGroupOf(subscription.topicArn, false);
    expect(await run(logSubscriptionEventOf('000000000000', group, 's', first))).toMatchObject({ stored: cap, evicted: 0 });
    const more = ids.slice(cap).map((messageId) => logEvent(statusRecord(subscription, { messageId })));
    expect(await run(logSubscriptionEventOf('000000000000', group, 's', more))).toMatchObject({ stored: 3, evicted: 3 });

    const kept = (await call('listAttemptsRoute', { portalId: subscription.portalId, query: { config_id: subscription.configId, limit: '3' } })).body;
    expect(kept.attempts.map((attempt: { at: string }) => attempt.at)).toEqual(more.map((event) => new Date(event.timestamp).toISOString()).reverse());
    const items = await storedItems(subscription);
    expect(items).toHaveLength(cap);
    expect(items[0]!.at).toBe(new Date(first[3]!.timestamp).toISOString());
    expect(await listEntry(subscription)).toMatchObject({ deliveredLast24h: cap + 3 });
  }, 60_000);

  it("drops and counts a record whose message id the service never published to that topic (forged), and moves nothing", async () => {
    // Prepare: a subscription with a logged message, and another subscription's logged message.
    const subscription = await subscribe();
    const other = await subscribe();
    const othersMessage = await published(other);
    const warnings = jest.spyOn(logger, 'warn');
    const group = logGroupOf(subscription.topicArn, false);

    // Act: a forged success with an unknown id, and one naming another topic's message, in this topic's group.
    const forged = [logEvent(statusRecord(subscription)), logEvent(statusRecord(subscription, { messageId: othersMessage }))];
    const summary = await run(logSubscriptionEventOf('000000000000', group, 's', forged));

    // Assess: nothing kept, both counted in one line an operator's metric reads, no health moved.
    expect(summary).toEqual({ stored: 0, duplicates: 0, evicted: 0, dropped: 0, unknown: 2 });
    const line = warnings.mock.calls.find(([message]) => message === UNKNOWN_MESSAGE_DROPPED);
    expect(line?.[1]).toMatchObject({ logGroup: group, count: 2 });
    expect(await storedItems(subscription)).toEqual([]);
    expect(await storedItems(other)).toEqual([]);
    expect(await listEntry(subscription)).toMatchObject({ lastDeliveredAt: null, deliveredLast24h: 0 });
    expect((await loggedMessages(other))[0]).toMatchObject({ deliveryState: 'pending' });
  });

  it("lists a test event's success, which ends no failing streak (lastEventDeliveredAt stays)", async () => {
    const subscription = await subscribe();
    const group = logGroupOf(subscription.topicArn, false);
    const test = logEvent(statusRecord(subscription, { messageId: await published(subscription, 'webhooks.test') }));
    expect(await run(logSubscriptionEventOf('000000000000', group, 's', [test]))).toMatchObject({ stored: 1, unknown: 0 });
    const table = { db: documentClient, tableName: config.tableName };
    expect(await find(table, subscription.portalId, subscription.configId)).toMatchObject({ lastDeliveredAt: new Date(test.timestamp).toISOString() });
    expect((await find(table, subscription.portalId, subscription.configId))?.lastEventDeliveredAt).toBeUndefined();

    const event = logEvent(statusRecord(subscription, { messageId: await published(subscription) }));
    await run(logSubscriptionEventOf('000000000000', group, 's', [event]));
    expect(await find(table, subscription.portalId, subscription.configId)).toMatchObject({ lastEventDeliveredAt: new Date(event.timestamp).toISOString() });
  });
});
