/**
 * One portal's backlog of due retries does not hold up another portal's, over HTTP against the
 * local stack as `npm start` runs it, with a schedule of seconds (DELIVERY_RETRY_SCHEDULE=30s,1h):
 * portal-alpha's three endpoints turn down (400) the 2,100 messages of its 700 events, and their
 * dead letters fall due while the sweep works them off slowly (every read of portal-alpha's items
 * held up 250 ms, as a throttled table would: some 40 pieces a second, so the backlog lasts
 * longer than a run). Once they are all recorded, portal-beta's first event to its
 * own failing endpoint becomes a dead letter, due 30 s later, while portal-alpha still holds
 * more than a thousand due; three more follow.
 *
 * Judged by how many of portal-alpha's retries reached its endpoints between each of portal-beta's
 * falling due and reaching its endpoint (four events, 8 s apart), never by a time: a sweep run starts every
 * period, also while a long one works (as the schedule invokes the sweeper on AWS), and its first
 * pass gives each portal 10 pieces before the backlog's rest, so portal-beta's goes out in the
 * first run that finds it due (the local runs, like AWS's, last longer than a period only by half
 * of one: infra/local/schedules/retry-sweeps.ts). With one run at a time of 45 s, as the local
 * timer had it, portal-beta's waits for the run in hand; with no budget per portal, behind the
 * pages of portal-alpha's read before its own. portal-alpha's subscriptions lie in the first half
 * of the due work's shards and portal-beta's in the second, so a sweep that walked the shards in
 * order from the first, as the sweep once did, would reach portal-beta's last: placed by chance,
 * such a sweep passed this suite.
 */
import { startTestStack, TEST_CLIENTS, type TestStack, tokenFor, call } from '../support/local-stack-client';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { portalFloods, type PortalFloods } from '../support/portal-floods';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { API_PREFIXES } from '../../shared/operations';
import { DUE_SHARDS, shardOf } from '../../shared/data/due-work';
import { setSuiteSettings } from '../support/suite-settings';

const API = API_PREFIXES[0];
const FLOOD_EVENTS = 700;
const FLOODING_SUBSCRIPTIONS = 3;
const FLOOD_LETTERS = FLOOD_EVENTS * FLOODING_SUBSCRIPTIONS;
/** portal-alpha's due retries still to go out when portal-beta's falls due, at least. */
const BACKLOG_AT_LEAST = 1_000;
const TURNED_DOWN = 400;
/** How long each read of portal-alpha's items is held up. */
const SLOW_READ_MS = 250;
/** portal-beta's events, and the time between them. */
const BETA_EVENTS = 4;
const BETA_SPACING_MS = 8_000;
/** portal-alpha's retries that may come between one of portal-beta's falling due and going out. */
const FAIR_AT_MOST = 400;

// Read by the handlers when the stack imports them (in beforeAll); given back after the suite.
const SETTINGS = { DELIVERY_RETRY_SCHEDULE: '30s,1h' };
const restoreSettings = setSuiteSettings(SETTINGS);

let local: TestStack;
let receiver: WebhookReceiver;
let floods: PortalFloods;
let dynamoDb: FaultProxy | undefined;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  local = await startTestStack({
    handlerEndpoints: async (emulators) => {
      dynamoDb = await startFaultProxy(emulators.dynamoDb, 'dynamodb', { slowMs: SLOW_READ_MS });
      dynamoDb.slowWhen = (action, body) => action === 'GetItem' && body.includes(`"portalId":{"S":"${TEST_CLIENTS.alphaAdmin.portalId}"}`);
      return { ...emulators, dynamoDb: dynamoDb.endpoint };
    },
  });
  floods = portalFloods(local, receiver);
}, 90_000);

afterAll(async () => {
  // At full speed again, so the sweeps in hand end soon.
  if (dynamoDb) dynamoDb.mode = 'pass';
  floods?.close();
  await local?.stop();
  await dynamoDb?.close();
  await receiver?.close();
  restoreSettings();
});

it("sends a quiet portal's due retry in the first sweep that finds it due while another portal holds a thousand and more", async () => {
  // Prepare
  // portal-alpha's due work in the first half of the shards, portal-beta's in the second: a sweep
  // walking the shards in order from the first reaches portal-beta's only after portal-alpha's.
  const alpha = await floods.subscribe(TEST_CLIENTS.alphaAdmin, FLOODING_SUBSCRIPTIONS, TURNED_DOWN, (configId) => shardOf(configId) < DUE_SHARDS / 2);
  const beta = await floods.subscribe(TEST_CLIENTS.betaAdmin, 1, TURNED_DOWN, (configId) => shardOf(configId) >= DUE_SHARDS / 2);
  const alphaArrivals = () => receiver.received.filter((entry) => alpha.paths.includes(entry.path) && entry.envelope?.Type === 'Notification');
  dynamoDb!.mode = 'slowPicked';

  // Act: the flood; once its dead letters are all recorded, portal-beta's one event.
  await floods.flood(TEST_CLIENTS.alphaAdmin.portalId, FLOOD_EVENTS);
  await waitFor('the flood recorded', async () => ((await floods.deadLettersCounted(TEST_CLIENTS.alphaAdmin)) >= FLOOD_LETTERS ? true : undefined), 240_000, 1_000);
  // Every message the flood sent reached an endpoint once before any retry could (its first wait is 30 s).
  const floodDeliveries = alphaArrivals().length;
  // portal-beta's events, 8 s apart: their retries fall due over 24 s, so with one run at a time
  // some wait for most of a long run, whichever moment a run begins.
  for (let n = 0; n < BETA_EVENTS; n++) {
    if (n > 0) await new Promise((resolve) => setTimeout(resolve, BETA_SPACING_MS));
    await floods.put(TEST_CLIENTS.betaAdmin.portalId, n, 1);
  }
  const betaToken = await tokenFor(local.stack, TEST_CLIENTS.betaAdmin);
  const betaLetters = await waitFor("portal-beta's dead letters", async () => {
    const listed = await call(local.stack, 'GET', `${API}/dead-letters?config_id=${beta.configIds[0]}`, { token: betaToken });
    const letters = listed.status === 200 ? (listed.body.deadLetters as { eventId: string; nextRetryAt: string | null }[]) : [];
    return letters.length === BETA_EVENTS && letters.every((letter) => letter.nextRetryAt) ? letters : undefined;
  }, 60_000, 50);
  const retryOf = (eventId: string) => receiver.notificationsAt(beta.paths[0]!).filter((entry) => entry.message?.eventId === eventId)[1];
  await waitFor("portal-beta's retries at its endpoint", () => (betaLetters.every((letter) => retryOf(letter.eventId)) ? true : undefined), 150_000, 100);

  // Assess: portal-alpha still held more than a thousand due when portal-beta's first fell due
  // (else this proves nothing), and few of its retries came between any of portal-beta's falling
  // due and going out: what the run in hand sends until the next run starts (a period), and that
  // run's first pass. Seen: at most 163 (30, 100, 163, 25), 1,392 held. With one run at a time
  // of 45 s (the local shape before), they waited for the run in hand: 460, 590, 710, 70, and this
  // fails; with a single event of portal-beta that shape came through at 290 as often as not,
  // hence four, spread over more than half a long run. Seen again, with portal-beta's shard after
  // portal-alpha's: 0, 40, 0, 10 (1,950 held). The sweep's own fairness undone, with the runs as
  // now: no budget per portal (PORTAL_SHARE_PER_PASS infinite; shards by chance), 80, 187, 332, 496 (1,453 held),
  // and this fails; no budget and the shards read through in order from the first, 576, 705, 840,
  // 965 (1,629 held), and this fails; the same with the shards placed by chance, 0, 0, 4, 40 and
  // 40, 68, 29, 31: it passed.
  const retriedBy = (time: number) => alphaArrivals().filter((entry) => entry.arrivedAt <= time).length - floodDeliveries;
  const dueTimes = betaLetters.map((letter) => Date.parse(letter.nextRetryAt!));
  const heldAtFirstDue = FLOOD_LETTERS - retriedBy(Math.min(...dueTimes));
  const alphaRetriesBefore = betaLetters.map((letter, n) => retriedBy(retryOf(letter.eventId)!.arrivedAt) - retriedBy(dueTimes[n]!));
  console.log(`retry fairness: portal-alpha held ${heldAtFirstDue} due when portal-beta's first fell due; of its retries, ${alphaRetriesBefore.join(', ')} came between each of portal-beta's falling due and going out`);
  expect(heldAtFirstDue).toBeGreaterThanOrEqual(BACKLOG_AT_LEAST);
  expect(Math.max(...alphaRetriesBefore)).toBeLessThan(FAIR_AT_MOST);
}, 420_000);
