/**
 * One portal's flood of dead letters does not hold up another portal's, over HTTP against the
 * local stack as `npm start` runs it: portal-alpha's three endpoints turn down (400, which SNS gives
 * up on at once) the 2,100 messages of its 700 events, and once more than a thousand of those
 * dead letters wait to be recorded, portal-beta's one event to its own failing endpoint becomes a
 * dead letter. Judged by how many of portal-alpha's dead letters list counted when portal-beta's
 * was listed, never by a time: the forwarder sends each on keyed by its portal, and the recorder's
 * fair queue hands portal-beta's out before the backlog. First in, first out, it waits behind
 * all of them.
 */
import type { OAuthClient } from '../../infra/local/auth/clients';
import { API_PREFIXES } from '../../shared/operations';
import { call, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { portalFloods, type PortalFloods } from '../support/portal-floods';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const API = API_PREFIXES[0];
/**
 * 700 events to each of 3 endpoints: each subscription keeps at most 1,000 dead letters, and the
 * room left takes an event published twice under load (delivery is at least once), which would
 * otherwise push the oldest out.
 */
const FLOOD_EVENTS = 700;
const FLOODING_SUBSCRIPTIONS = 3;
/** The backlog portal-beta's dead letter comes behind: most of the flood, still to be recorded. */
const BACKLOG_AT_LEAST = 1_000;
/** What the endpoints answer: a 400, which SNS gives up on at once. */
const TURNED_DOWN = 400;

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

it("records a quiet portal's dead letter before most of another portal's flood of 2,100 dead letters", async () => {
  // Prepare
  const { configIds: alphaConfigIds } = await floods.subscribe(TEST_CLIENTS.alphaAdmin, FLOODING_SUBSCRIPTIONS, TURNED_DOWN);
  const [betaConfigId] = (await floods.subscribe(TEST_CLIENTS.betaAdmin, 1, TURNED_DOWN)).configIds;
  const betaToken = await tokenFor(local.stack, TEST_CLIENTS.betaAdmin);

  // Act: the flood, ten events a PutEvents, four at a time; once more than a thousand of its dead
  // letters wait for the recorder, portal-beta's one event.
  await floods.flood(TEST_CLIENTS.alphaAdmin.portalId, FLOOD_EVENTS);
  await waitFor('a backlog of dead letters to record', () => (local.stack.deadLettersByPortal.depth >= BACKLOG_AT_LEAST ? true : undefined), 120_000, 20);
  const countedAtPut = await floods.deadLettersCounted(TEST_CLIENTS.alphaAdmin);
  await floods.put(TEST_CLIENTS.betaAdmin.portalId, 0, 1);
  await waitFor("portal-beta's dead letter listed", async () => {
    const listed = await call(local.stack, 'GET', `${API}/dead-letters?config_id=${betaConfigId}`, { token: betaToken });
    return listed.status === 200 && listed.body.deadLetters.length === 1 ? true : undefined;
  }, 120_000, 25);
  const countedAtBeta = await floods.deadLettersCounted(TEST_CLIENTS.alphaAdmin);

  // Assess: most of the flood was still to be recorded when portal-beta put its event (else this
  // proves nothing), and few of it was recorded before portal-beta's: the recorder's two batches
  // in hand (60) and what it took while portal-beta's event was dispatched, delivered and turned
  // down. Seen: 23 of a backlog of 1,540 and 50 of 1,483 (and, with 1,000 events to 2 endpoints,
  // 38 to 56 of 1,438 to 1,787). With the forwarder sending no MessageGroupId (checked by removing
  // it from forwardedDeadLetterOf), first in, first out: 1,024 of 1,651 and 1,006 of 1,428 came
  // first, and this fails. With batches of 20, whose 20 left in flight never made portal-alpha
  // noisy, 1,030 came first.
  const floodLetters = FLOOD_EVENTS * FLOODING_SUBSCRIPTIONS;
  expect(floodLetters - countedAtPut).toBeGreaterThanOrEqual(BACKLOG_AT_LEAST);
  expect(countedAtBeta - countedAtPut).toBeLessThan(BACKLOG_AT_LEAST / 2);
  // And the flood is recorded whole: every event's dead letter at each endpoint. Waited for by
  // distinct events, not by the count: delivery is at least once, so under load an event may be
  // published twice and have two dead letters, and the count then reaches 2,100 while others are
  // still on their way (seen in CI: 656 of 700 events kept at one endpoint when the count did).
  const kept = async () => Promise.all(alphaConfigIds.map(async (configId) => (await eventIdsKept(TEST_CLIENTS.alphaAdmin, configId)).length));
  let keptAtEnd: number[] = [];
  await waitFor('every event of the flood recorded at each endpoint', async () => {
    keptAtEnd = await kept();
    return keptAtEnd.every((count) => count === FLOOD_EVENTS) ? true : undefined;
  }, 240_000, 2_000).catch(() => undefined);
  expect(keptAtEnd).toEqual(alphaConfigIds.map(() => FLOOD_EVENTS));
}, 420_000);

/** The distinct events of the subscription's dead letters, every page of GET /dead-letters. */
async function eventIdsKept(client: OAuthClient, configId: string): Promise<string[]> {
  const token = await tokenFor(local.stack, client);
  const eventIds = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < 30; page++) {
    const answer = await call(local.stack, 'GET', `${API}/dead-letters?config_id=${configId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { token });
    expect(answer.status).toBe(200);
    for (const letter of answer.body.deadLetters as { eventId: string }[]) eventIds.add(letter.eventId);
    cursor = answer.body.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return [...eventIds];
}
