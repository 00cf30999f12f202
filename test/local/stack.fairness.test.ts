/**
 * One portal's burst does not hold up another's deliveries, over HTTP against the local stack as
 * `npm start` runs it: portal-alpha puts 2,000 events for its two subscriptions, and portal-beta's
 * one event, put once the flood is queued (and at least a second into it), reaches its endpoint
 * before most of the flood has: judged by how many of the flood's bodies the endpoint had when
 * portal-beta's came, never by a time. A first-in, first-out path would deliver it after all
 * 4,000. The queue's own share rule (a portal over its share refused alone) is in
 * event-queue.test.ts, the retry sweep's fairness in test/delivery/sweep-fairness.test.ts.
 */
import { startTestStack, TEST_CLIENTS, type TestStack } from '../support/local-stack-client';
import { FLOOD_EVENT, portalFloods, type PortalFloods } from '../support/portal-floods';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const FLOOD_EVENTS = 2_000;
const FLOODING_SUBSCRIPTIONS = 2;

let local: TestStack;
let receiver: WebhookReceiver;
let floods: PortalFloods;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  local = await startTestStack();
  floods = portalFloods(local, receiver);
}, 90_000);

afterAll(async () => {
  floods?.close();
  await local?.stop();
  await receiver?.close();
});

it("delivers a quiet portal's event before most of another portal's flood of 2,000 events", async () => {
  // Prepare
  const { paths: floodPaths } = await floods.subscribe(TEST_CLIENTS.alphaAdmin, FLOODING_SUBSCRIPTIONS);
  const [quietPath] = (await floods.subscribe(TEST_CLIENTS.betaAdmin, 1)).paths;
  const floodArrived = () => floodPaths.reduce((sum, path) => sum + receiver.notificationsAt(path).length, 0);

  // Act: the flood, ten events a PutEvents, four at a time; then, once it is all queued and at
  // least a second in, portal-beta's one event.
  const started = Date.now();
  await floods.flood(TEST_CLIENTS.alphaAdmin.portalId, FLOOD_EVENTS);
  const oneSecondIn = started + 1_000 - Date.now();
  if (oneSecondIn > 0) await new Promise((resolve) => setTimeout(resolve, oneSecondIn));
  const floodArrivedAtPut = floodArrived();
  await floods.put(TEST_CLIENTS.betaAdmin.portalId, 0, 1);
  const quiet = await waitFor("portal-beta's event", () => receiver.notificationsAt(quietPath!)[0], 60_000, 20);
  const floodArrivedBefore = receiver.received.filter(
    (entry) => floodPaths.includes(entry.path) && entry.envelope?.Type === 'Notification' && entry.arrivedAt <= quiet.arrivedAt,
  ).length;

  // Assess: most of the flood was still to come when portal-beta put its event (else this proves
  // nothing), and few of it came first: the batches already in flight (5 of 10 events, 100
  // bodies) and the requests the SNS emulator had open. Through a first-in, first-out queue, or
  // one delivery queue for all subscriptions, it waits behind a thousand and more.
  const floodBodies = FLOOD_EVENTS * FLOODING_SUBSCRIPTIONS;
  expect(quiet.message).toMatchObject({ portalId: TEST_CLIENTS.betaAdmin.portalId, event: FLOOD_EVENT });
  expect(floodArrivedAtPut).toBeLessThan(floodBodies / 2);
  expect(floodArrivedBefore - floodArrivedAtPut).toBeLessThan(floodBodies / 10);
  // And the flood is delivered whole.
  await waitFor('the whole flood', () => (floodArrived() >= floodBodies ? true : undefined), 180_000, 200);
  expect(floodArrived()).toBe(floodBodies);
}, 300_000);
