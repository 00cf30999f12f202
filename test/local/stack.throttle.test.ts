/**
 * A tenant slows deliveries down (issue 30, point 4): `maxReceivesPerSecond` on create and
 * update, over HTTP against the local stack. It becomes SNS's `throttlePolicy.maxReceivesPerSecond`
 * of the subscription's delivery policy (read back with the SNS SDK), list shows it, the SNS
 * emulator holds deliveries to it as SNS does, and it is refused for protocols SNS does not
 * throttle and outside SNS's bounds. The reconciler's part is in test/service/reconciliation.subscriptions.test.ts.
 */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSubscriptionAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { HTTP_DELIVERY_POLICY } from '../../shared/subscriptions/delivery-policy';
import { API_PREFIXES } from '../../shared/operations';
import { useDeliveryStack } from '../support/delivery-stack';
import { call, TEST_CLIENTS } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';

const API = API_PREFIXES[0];
const KIND = 'asset_bank.media.create';
const client = TEST_CLIENTS.alphaAdmin;

const delivery = useDeliveryStack();
let sns: SNSClient;
beforeAll(() => {
  sns = new SNSClient({ endpoint: delivery.stack.sns.endpoint, region: delivery.stack.region, credentials: LOCAL_CREDENTIALS });
});
afterAll(() => sns?.destroy());

async function create(body: Record<string, unknown>) {
  return call(delivery.stack, 'POST', API, { token: await delivery.token(client), body: { name: 'Throttled', events: [KIND], ...body } });
}

async function update(body: Record<string, unknown>) {
  return call(delivery.stack, 'PUT', API, { token: await delivery.token(client), body });
}

async function listed(configId: string) {
  const answer = await call(delivery.stack, 'GET', `${API}/list`, { token: await delivery.token(client) });
  return (answer.body.configs as { configId: string; confirmed: boolean; maxReceivesPerSecond?: number }[]).find((entry) => entry.configId === configId)!;
}

/** The DeliveryPolicy SNS holds for the subscription, parsed. */
async function storedPolicy(subscriptionArn: string) {
  const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
  return JSON.parse(Attributes!.DeliveryPolicy!);
}

/** An http subscription to the receiver at a path of its own, confirmed. */
async function throttledSubscription(maxReceivesPerSecond?: number) {
  const path = `/hooks/throttled-${Math.random().toString(36).slice(2, 8)}`;
  const created = await create({ protocol: 'http', endpoint: delivery.receiver.url + path, ...(maxReceivesPerSecond && { maxReceivesPerSecond }) });
  expect(created.status).toBe(200);
  const record = created.body.record as { configId: string; subscriptionArn: string; maxReceivesPerSecond?: number };
  await waitFor('the subscription confirmed', async () => ((await listed(record.configId)).confirmed || undefined));
  return { ...record, path };
}

it('holds a burst of 10 events to 2 a second: the receiver sees them arrive over at least 4 seconds', async () => {
  const { configId, subscriptionArn, path, maxReceivesPerSecond } = await throttledSubscription(2);
  expect(maxReceivesPerSecond).toBe(2);
  expect((await listed(configId)).maxReceivesPerSecond).toBe(2);
  expect(await storedPolicy(subscriptionArn)).toEqual({
    ...HTTP_DELIVERY_POLICY,
    throttlePolicy: { maxReceivesPerSecond: 2 },
    sicklyRetryPolicy: null,
    guaranteed: false,
  });

  const answer = await delivery.events.send(
    new PutEventsCommand({
      Entries: Array.from({ length: 10 }, (_, index) => ({
        EventBusName: delivery.stack.eventBusName,
        Source: 'portal.events',
        DetailType: KIND,
        Detail: JSON.stringify({ portalId: client.portalId, mediaId: `m-${index}` }),
      })),
    }),
  );
  expect(answer.FailedEntryCount).toBe(0);
  await waitFor('all 10 events delivered', () => (delivery.receiver.notificationsAt(path).length === 10 || undefined), 30_000);

  const arrivals = delivery.receiver.notificationsAt(path).map((message) => message.arrivedAt);
  expect(new Set(delivery.receiver.notificationsAt(path).map((message) => message.message.data.mediaId)).size).toBe(10);
  // 2 a second: the 10th is sent at least 4.5 s after the 1st (9 gaps of 500 ms). Arrivals carry
  // each request's own network time, so the receiver's spread is held to 4 s, not 4.5.
  // Unthrottled, the 10 arrive within a fraction of a second.
  expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(4_000);
}, 60_000);

it('refuses maxReceivesPerSecond for an sqs subscription (400 THROTTLE_NOT_SUPPORTED) and creates nothing', async () => {
  const refused = await create({ protocol: 'sqs', endpoint: 'arn:aws:sqs:us-east-1:123456789012:webhooks', maxReceivesPerSecond: 2 });
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({ success: false, code: 'THROTTLE_NOT_SUPPORTED' });
  expect(refused.body.message).toMatch(/http and https subscriptions only.*sqs/);
  const list = await call(delivery.stack, 'GET', `${API}/list`, { token: await delivery.token(client) });
  expect(list.body.configs).toEqual([]);
});

it('refuses values outside SNS’s bounds (below 1, not whole, not a number) on create and update', async () => {
  for (const maxReceivesPerSecond of [0, -1, 1.5, '2', 2_147_483_648]) {
    const refused = await create({ protocol: 'https', endpoint: 'https://hooks.example.com/a', maxReceivesPerSecond });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('maxReceivesPerSecond must be a whole number from 1 to 2147483647');
  }
  const { configId } = await throttledSubscription();
  const refused = await update({ config_id: configId, maxReceivesPerSecond: 0 });
  expect(refused.status).toBe(400);
  expect(refused.body.message).toContain('maxReceivesPerSecond must be a whole number from 1 to 2147483647');
});

it('update sets, changes and removes the throttle, in the record and in SNS; events alone leave it; an sqs record refuses it', async () => {
  const { configId, subscriptionArn } = await throttledSubscription();
  expect((await listed(configId)).maxReceivesPerSecond).toBeUndefined();
  expect((await storedPolicy(subscriptionArn)).throttlePolicy).toBeNull();

  const set = await update({ config_id: configId, maxReceivesPerSecond: 5 });
  expect(set.status).toBe(200);
  expect(set.body.record).toEqual({ configId, events: [KIND], portalId: client.portalId, maxReceivesPerSecond: 5 });
  expect((await storedPolicy(subscriptionArn)).throttlePolicy).toEqual({ maxReceivesPerSecond: 5 });
  expect((await listed(configId)).maxReceivesPerSecond).toBe(5);

  const eventsOnly = await update({ config_id: configId, events: [KIND, 'asset_bank.media.updated'] });
  expect(eventsOnly.status).toBe(200);
  expect(eventsOnly.body.record.maxReceivesPerSecond).toBe(5);
  expect((await storedPolicy(subscriptionArn)).throttlePolicy).toEqual({ maxReceivesPerSecond: 5 });

  const removed = await update({ config_id: configId, maxReceivesPerSecond: null });
  expect(removed.status).toBe(200);
  expect(removed.body.record).toEqual({ configId, events: [KIND, 'asset_bank.media.updated'], portalId: client.portalId });
  expect((await storedPolicy(subscriptionArn)).throttlePolicy).toBeNull();
  expect((await listed(configId)).maxReceivesPerSecond).toBeUndefined();

  const queue = await create({ protocol: 'sqs', endpoint: 'arn:aws:sqs:us-east-1:123456789012:webhooks' });
  expect(queue.status).toBe(200);
  const refused = await update({ config_id: queue.body.record.configId, maxReceivesPerSecond: 2 });
  expect(refused.status).toBe(400);
  expect(refused.body.code).toBe('THROTTLE_NOT_SUPPORTED');
  expect((await listed(queue.body.record.configId)).maxReceivesPerSecond).toBeUndefined();

  const neither = await update({ config_id: configId });
  expect(neither.status).toBe(400);
  expect(neither.body.message).toContain('events is required');
});
