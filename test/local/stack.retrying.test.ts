/**
 * A message being retried reads as such, over HTTP against the local stack with a schedule of
 * seconds (DELIVERY_RETRY_SCHEDULE=2s,2s,2s): three events whose endpoint keeps failing become three
 * dead letters; while their scheduled retries are out (the endpoint answers 500 slowly, so SNS's own
 * retries of them take seconds) GET /dead-letters lists the three as `retrying` and list counts
 * `deadLettersRetrying` 3 beside `deadLetters` 3; the retries fail again and their dead letters take
 * the place of the first ones (still three); once the endpoint recovers the next retries are
 * delivered and every count goes to 0. No answer ever counts an event twice. GET /messages shows
 * each message a retry sent again as `retried`, the retry delivered.
 */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { API_PREFIXES } from '../../shared/operations';
import { call, TEST_CLIENTS } from '../support/local-stack-client';
import { useDeliveryStack } from '../support/delivery-stack';
import { waitFor } from '../support/wait-for';
import { setSuiteSettings } from '../support/suite-settings';

const API = API_PREFIXES[0];
const CREATE = 'asset_bank.media.create';
const client = TEST_CLIENTS.alphaAdmin;

// Read by the handlers when the stack imports them (in beforeAll); given back after the suite.
const SETTINGS = { DELIVERY_RETRY_SCHEDULE: '2s,2s,2s' };
const restoreSettings = setSuiteSettings(SETTINGS);
afterAll(() => {
  restoreSettings();
});

const delivery = useDeliveryStack();

interface Listed {
  eventId: string;
  messageId: string;
  state: string;
  retriedAt: string | null;
  retries: number;
}

/** Every answer read, to hold that none counted an event twice. */
const seen: { deadLetters: number; deadLettersRetrying: number; listed: Listed[] }[] = [];

async function look(configId: string) {
  const token = await delivery.token(client);
  const list = await call(delivery.stack, 'GET', `${API}/list`, { token });
  const letters = await call(delivery.stack, 'GET', `${API}/dead-letters?config_id=${configId}`, { token });
  expect([list.status, letters.status]).toEqual([200, 200]);
  const entry = list.body.configs.find((one: { configId: string }) => one.configId === configId);
  const answer = { deadLetters: entry.deadLetters as number, deadLettersRetrying: entry.deadLettersRetrying as number, listed: letters.body.deadLetters as Listed[] };
  seen.push(answer);
  return answer;
}

it('lists and counts dead letters being retried as retrying, once each, until their retries are delivered', async () => {
  const token = await delivery.token(client);
  const path = `/retrying/${Math.random().toString(36).slice(2, 8)}`;
  const created = await call(delivery.stack, 'POST', API, { token, body: { name: 'retrying', protocol: 'http', endpoint: delivery.receiver.url + path, events: [CREATE] } });
  expect(created.status).toBe(200);
  const { configId } = created.body.record;
  await waitFor('confirmed', async () => {
    const list = await call(delivery.stack, 'GET', `${API}/list`, { token });
    return list.body.configs.find((one: { configId: string; confirmed: boolean }) => one.configId === configId)?.confirmed ? true : undefined;
  });
  delivery.receiver.failingPaths.add(path);
  const put = await delivery.events.send(
    new PutEventsCommand({
      Entries: [1, 2, 3].map((n) => ({ EventBusName: delivery.stack.eventBusName, Source: 'portal.events', DetailType: CREATE, Detail: JSON.stringify({ portalId: client.portalId, mediaId: `m-${n}` }) })),
    }),
  );
  expect(put.FailedEntryCount).toBe(0);
  const eventIds = put.Entries!.map((entry) => entry.EventId!).sort();

  await waitFor('three dead letters', async () => ((await look(configId)).listed.length === 3 ? true : undefined), 20_000, 100);
  // From now on each try of a retry takes a while: SNS's retries of it keep it out for seconds.
  delivery.receiver.delayOf.set(path, 400);

  // Act and assess: the three retries out, each still listed and counted, as retrying.
  const retrying = await waitFor('three being retried', async () => {
    const answer = await look(configId);
    return answer.deadLettersRetrying === 3 ? answer : undefined;
  }, 20_000, 100);
  expect(retrying.deadLetters).toBe(3);
  expect(retrying.listed.map((letter) => letter.eventId).sort()).toEqual(eventIds);
  for (const letter of retrying.listed) expect(letter).toMatchObject({ state: 'retrying', retriedAt: expect.stringMatching(/^\d{4}-/), retries: 1 });

  // The retries fail too: their own dead letters take the first ones' places.
  const replaced = await waitFor('the retries dead-lettered', async () => {
    const answer = await look(configId);
    const mine = answer.listed.filter((letter) => letter.state === 'dead-lettered' && letter.retries === 1);
    // list is read before GET /dead-letters: a retry dead-lettered between the two reads shows in the
    // second only, so the counts are held once both reads saw the same three.
    return mine.length === 3 && answer.deadLettersRetrying === 0 ? answer : undefined;
  }, 60_000, 100);
  expect(replaced).toMatchObject({ deadLetters: 3, deadLettersRetrying: 0 });
  const firstIds = new Set(retrying.listed.map((letter) => letter.messageId));
  expect(replaced.listed.filter((letter) => firstIds.has(letter.messageId))).toEqual([]);

  // The endpoint recovers: the next retries are delivered, and the dead letters leave.
  delivery.receiver.failingPaths.delete(path);
  delivery.receiver.delayOf.delete(path);
  await waitFor('every retry delivered', async () => {
    const answer = await look(configId);
    return answer.deadLetters === 0 && answer.deadLettersRetrying === 0 && answer.listed.length === 0 ? true : undefined;
  }, 30_000, 100);

  // Never an event counted twice, in any answer read.
  for (const answer of seen) {
    expect(answer.deadLetters).toBeLessThanOrEqual(3);
    expect(answer.deadLettersRetrying).toBeLessThanOrEqual(answer.deadLetters);
    expect(new Set(answer.listed.map((letter) => letter.eventId)).size).toBe(answer.listed.length);
  }

  // The message log: each event's first send and failed retry read `retried`, its last retry delivered.
  const logged = await waitFor('the message log settled', async () => {
    const answer = await call(delivery.stack, 'GET', `${API}/messages?config_id=${configId}`, { token });
    const messages = answer.body.messages as { eventId: string; status: string }[];
    return messages.length === 9 && messages.filter((message) => message.status === 'delivered').length === 3 ? messages : undefined;
  }, 20_000, 200);
  for (const eventId of eventIds) {
    expect(logged.filter((message) => message.eventId === eventId).map((message) => message.status)).toEqual(['delivered', 'retried', 'retried']);
  }
}, 180_000);
