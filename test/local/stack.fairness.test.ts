/**
 * One portal's burst does not hold up another's deliveries, over HTTP against the local stack as
 * `npm start` runs it: portal-alpha puts 2,000 events for its two subscriptions, and portal-beta's
 * one event, put once the flood is queued (and at least a second into it), reaches its endpoint
 * before most of the flood has: judged by how many of the flood's bodies the endpoint had when
 * portal-beta's came, never by a time. A first-in, first-out path would deliver it after all
 * 4,000. The queue's own share rule (a portal over its share refused alone) is in
 * event-queue.test.ts, the retry sweep's fairness in test/delivery/sweep-fairness.test.ts.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import type { OAuthClient } from '../../infra/local/auth/clients';
import { API_PREFIXES } from '../../shared/operations';
import { call, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const API = API_PREFIXES[0];
const CREATE = 'asset_bank.media.create';
const FLOOD_EVENTS = 2_000;
const FLOODING_SUBSCRIPTIONS = 2;

let local: TestStack;
let receiver: WebhookReceiver;
let events: EventBridgeClient;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  local = await startTestStack();
  events = new EventBridgeClient({ endpoint: local.stack.events.endpoint, region: local.stack.region, credentials: LOCAL_CREDENTIALS });
}, 90_000);

afterAll(async () => {
  events?.destroy();
  await local?.stop();
  await receiver?.close();
});

/** `count` http subscriptions of the client's portal to the receiver, confirmed; answers their paths. */
async function subscribe(client: OAuthClient, count: number): Promise<string[]> {
  const token = await tokenFor(local.stack, client);
  const paths: string[] = [];
  for (let n = 0; n < count; n++) {
    const path = `/hooks/${client.portalId}/${n}`;
    const created = await call(local.stack, 'POST', API, { token, body: { name: `${client.portalId} ${n}`, protocol: 'http', endpoint: receiver.url + path, events: [CREATE] } });
    expect(created.status).toBe(200);
    paths.push(path);
  }
  await waitFor(`${client.portalId}'s subscriptions confirmed`, async () => {
    const listed = await call(local.stack, 'GET', `${API}/list`, { token });
    const confirmed = listed.status === 200 ? (listed.body.configs as { confirmed?: boolean }[]).filter((entry) => entry.confirmed === true) : [];
    return confirmed.length === count ? true : undefined;
  }, 30_000, 200);
  return paths;
}

async function put(portalId: string, from: number, count: number): Promise<void> {
  const answer = await events.send(
    new PutEventsCommand({
      Entries: Array.from({ length: count }, (_, n) => ({
        EventBusName: local.stack.eventBusName,
        Source: 'portal.events',
        DetailType: CREATE,
        Detail: JSON.stringify({ portalId, mediaId: `m-${from + n}` }),
      })),
    }),
  );
  expect(answer.FailedEntryCount).toBe(0);
}

it("delivers a quiet portal's event before most of another portal's flood of 2,000 events", async () => {
  // Prepare
  const floodPaths = await subscribe(TEST_CLIENTS.alphaAdmin, FLOODING_SUBSCRIPTIONS);
  const [quietPath] = await subscribe(TEST_CLIENTS.betaAdmin, 1);
  const floodArrived = () => floodPaths.reduce((sum, path) => sum + receiver.notificationsAt(path).length, 0);

  // Act: the flood, ten events a PutEvents, four at a time; then, once it is all queued and at
  // least a second in, portal-beta's one event.
  const started = Date.now();
  let next = 0;
  const sender = async () => {
    for (let batch = next++; batch < FLOOD_EVENTS / 10; batch = next++) await put(TEST_CLIENTS.alphaAdmin.portalId, batch * 10, 10);
  };
  await Promise.all(Array.from({ length: 4 }, sender));
  const oneSecondIn = started + 1_000 - Date.now();
  if (oneSecondIn > 0) await new Promise((resolve) => setTimeout(resolve, oneSecondIn));
  const floodArrivedAtPut = floodArrived();
  await put(TEST_CLIENTS.betaAdmin.portalId, 0, 1);
  const quiet = await waitFor("portal-beta's event", () => receiver.notificationsAt(quietPath!)[0], 60_000, 20);
  const floodArrivedBefore = receiver.received.filter(
    (entry) => floodPaths.includes(entry.path) && entry.envelope?.Type === 'Notification' && entry.arrivedAt <= quiet.arrivedAt,
  ).length;

  // Assess: most of the flood was still to come when portal-beta put its event (else this proves
  // nothing), and few of it came first: the batches already in flight (5 of 10 events, 100
  // bodies) and the requests the SNS emulator had open. Through a first-in, first-out queue, or
  // one delivery queue for all subscriptions, it waits behind a thousand and more.
  const floodBodies = FLOOD_EVENTS * FLOODING_SUBSCRIPTIONS;
  expect(quiet.message).toMatchObject({ portalId: TEST_CLIENTS.betaAdmin.portalId, event: CREATE });
  expect(floodArrivedAtPut).toBeLessThan(floodBodies / 2);
  expect(floodArrivedBefore - floodArrivedAtPut).toBeLessThan(floodBodies / 10);
  // And the flood is delivered whole.
  await waitFor('the whole flood', () => (floodArrived() >= floodBodies ? true : undefined), 180_000, 200);
  expect(floodArrived()).toBe(floodBodies);
}, 300_000);
