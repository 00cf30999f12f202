/**
 * Retries after SNS's own, and a failing endpoint noticed, over HTTP against the local stack with
 * a schedule of seconds (DELIVERY_RETRY_SCHEDULE=1s,1s, DISABLE_FAILING_AFTER=3s): an endpoint
 * that answers 400 once gets the event by a scheduled retry, with its original eventId, and the
 * dead letter leaves; one that always fails ends exhausted, is disabled, and the portal's other
 * subscription that chose them hears `webhooks.subscription.failing`, then
 * `webhooks.subscription.disabled` (the failing one never does); activating clears the reason. A
 * replay cancels a schedule; a deactivated subscription's schedule stops; sweeps that run at once
 * send a due retry once.
 */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { randomUUID } from 'node:crypto';
import { lambdaContext } from '../../infra/local/gateway/event';
import { API_PREFIXES } from '../../shared/operations';
import { call, TEST_CLIENTS } from '../support/local-stack-client';
import { useDeliveryStack } from '../support/delivery-stack';
import { waitFor } from '../support/wait-for';
import { setSuiteSettings } from '../support/suite-settings';

const API = API_PREFIXES[0];
const CREATE = 'asset_bank.media.create';
const FAILING = 'webhooks.subscription.failing';
const DISABLED = 'webhooks.subscription.disabled';
const client = TEST_CLIENTS.alphaAdmin;

// Read by the handlers when the stack imports them (in beforeAll); given back after the suite.
const SETTINGS = { DELIVERY_RETRY_SCHEDULE: '1s,1s', DISABLE_FAILING_AFTER: '3s' };
const restoreSettings = setSuiteSettings(SETTINGS);
afterAll(() => {
  restoreSettings();
});

const delivery = useDeliveryStack();

async function subscribe(label: string, events: string[]) {
  const path = `/retries/${label}-${Math.random().toString(36).slice(2, 8)}`;
  const created = await call(delivery.stack, 'POST', API, {
    token: await delivery.token(client),
    body: { name: label, protocol: 'http', endpoint: delivery.receiver.url + path, events },
  });
  expect(created.status).toBe(200);
  const { configId } = created.body.record;
  await waitFor(`${label} confirmed`, async () => ((await listEntry(configId))?.confirmed ? true : undefined));
  return { configId, path };
}

async function listEntry(configId: string) {
  const listed = await call(delivery.stack, 'GET', `${API}/list`, { token: await delivery.token(client) });
  expect(listed.status).toBe(200);
  return listed.body.configs.find((entry: { configId: string }) => entry.configId === configId);
}

async function deadLetters(configId: string) {
  const answer = await call(delivery.stack, 'GET', `${API}/dead-letters?config_id=${configId}`, { token: await delivery.token(client) });
  expect(answer.status).toBe(200);
  return answer.body.deadLetters as { eventId: string; messageId: string; retries: number; nextRetryAt: string | null; state: string }[];
}

async function putEvent(): Promise<string> {
  const answer = await delivery.events.send(
    new PutEventsCommand({
      Entries: [{ EventBusName: delivery.stack.eventBusName, Source: 'portal.events', DetailType: CREATE, Detail: JSON.stringify({ portalId: client.portalId, mediaId: 'm-1' }) }],
    }),
  );
  expect(answer.FailedEntryCount).toBe(0);
  return answer.Entries![0]!.EventId!;
}

const notificationsOf = (path: string, kind: string) => delivery.receiver.notificationsAt(path).filter(({ message }) => message?.event === kind);

it('delivers by a scheduled retry an event its endpoint refused once with a 400, and the dead letter leaves', async () => {
  const { configId, path } = await subscribe('refuses-once', [CREATE]);
  delivery.receiver.statusOf.set(path, 400);
  const eventId = await putEvent();
  // A 4xx is not retried by SNS: the message is a dead letter at once, with its first retry scheduled.
  const [letter] = await waitFor('the dead letter', async () => ((await deadLetters(configId)).length === 1 ? deadLetters(configId) : undefined), 15_000);
  expect(letter).toMatchObject({ eventId, retries: 0 });
  delivery.receiver.statusOf.delete(path);
  const ofEvent = () => delivery.receiver.notificationsAt(path).filter((entry) => entry.message?.eventId === eventId);
  await waitFor('the retry delivered', () => (ofEvent().length >= 2 ? true : undefined), 20_000, 100);
  await waitFor('the dead letter gone', async () => ((await deadLetters(configId)).length === 0 ? true : undefined), 10_000, 100);
  const received = delivery.receiver.notificationsAt(path);
  // The retry carries the original body: same eventId and data, and nothing more.
  expect(received.at(-1)!.message).toEqual(received[0]!.message);
  expect((await listEntry(configId)).deadLetters).toBe(0);
  // The message log holds both sends of the event: the first dead-lettered, the scheduled retry delivered, one body.
  const logged = await waitFor('both sends in the message log with their outcome', async () => {
    const answer = await call(delivery.stack, 'GET', `${API}/messages?config_id=${configId}`, { token: await delivery.token(client) });
    expect(answer.status).toBe(200);
    const messages = answer.body.messages as { eventId: string; status: string; body: unknown }[];
    return messages.length === 2 && messages[0]!.status === 'delivered' && messages[1]!.status === 'retried' ? messages : undefined;
  }, 15_000, 200);
  expect(logged.map((message) => message.eventId)).toEqual([eventId, eventId]);
  expect(logged[0]!.body).toEqual(received.at(-1)!.message);
}, 60_000);

it('disables an endpoint that always fails once its schedule is spent, and tells the portal\'s other subscription', async () => {
  const failing = await subscribe('always-fails', [CREATE, FAILING, DISABLED]);
  const watcher = await subscribe('watcher', [FAILING, DISABLED]);
  delivery.receiver.failingPaths.add(failing.path);
  const eventId = await putEvent();

  // Two scheduled retries, each failing again, then the dead letter stays, exhausted, for a replay.
  const exhausted = await waitFor(
    'the schedule spent',
    async () => (await deadLetters(failing.configId)).find((letter) => letter.retries === 2 && letter.state === 'dead-lettered'),
    30_000,
    200,
  );
  expect(exhausted).toMatchObject({ eventId, retries: 2, nextRetryAt: null, state: 'dead-lettered', retriedAt: null });
  const disabled = await waitFor('the subscription disabled', async () => {
    const entry = await listEntry(failing.configId);
    return entry.status === 0 ? entry : undefined;
  }, 30_000, 200);
  expect(disabled).toMatchObject({ status: 0, disabledReason: 'failing', disabledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });

  const [failingNotice] = await waitFor('the failing notice', () => (notificationsOf(watcher.path, FAILING).length > 0 ? notificationsOf(watcher.path, FAILING) : undefined), 10_000, 100);
  const [disabledNotice] = await waitFor('the disabled notice', () => (notificationsOf(watcher.path, DISABLED).length > 0 ? notificationsOf(watcher.path, DISABLED) : undefined), 10_000, 100);
  expect(delivery.receiver.received.indexOf(failingNotice!)).toBeLessThan(delivery.receiver.received.indexOf(disabledNotice!));
  expect(failingNotice!.message).toMatchObject({
    event: FAILING,
    configId: watcher.configId,
    data: { subscription: { configId: failing.configId, name: 'always-fails' }, lastDeliveredAt: null, reason: 'dead-letter' },
  });
  expect(disabledNotice!.message).toMatchObject({
    event: DISABLED,
    configId: watcher.configId,
    data: { subscription: { configId: failing.configId, name: 'always-fails' }, lastDeliveredAt: null, reason: 'failing', disabledAt: disabled.disabledAt },
  });
  // Never to the failing one, though it chose both kinds; and once per streak.
  expect([...notificationsOf(failing.path, FAILING), ...notificationsOf(failing.path, DISABLED)]).toEqual([]);
  expect(notificationsOf(watcher.path, FAILING)).toHaveLength(1);

  const activated = await call(delivery.stack, 'PUT', `${API}/activate`, { token: await delivery.token(client), body: { config_id: failing.configId, status: 1 } });
  expect(activated.status).toBe(200);
  expect(await listEntry(failing.configId)).toMatchObject({ status: 1, disabledReason: null, disabledAt: null });
}, 120_000);

it('stops a deactivated subscription\'s schedule, and a replay cancels it', async () => {
  const { configId, path } = await subscribe('paused', [CREATE]);
  delivery.receiver.failingPaths.add(path);
  await putEvent();
  await waitFor('the dead letter', async () => ((await deadLetters(configId)).length === 1 ? true : undefined), 15_000);
  const token = await delivery.token(client);
  expect((await call(delivery.stack, 'PUT', `${API}/activate`, { token, body: { config_id: configId, status: 0 } })).status).toBe(200);
  const [stopped] = await waitFor('the schedule stopped', async () => {
    const letters = await deadLetters(configId);
    return letters.length === 1 && letters[0]!.nextRetryAt === null ? letters : undefined;
  }, 10_000, 100);
  const attemptsWhenStopped = delivery.receiver.notificationsAt(path).length;
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(delivery.receiver.notificationsAt(path)).toHaveLength(attemptsWhenStopped);
  expect(await deadLetters(configId)).toEqual([stopped]);

  // Activated again, a replay that fails again leaves a dead letter with no schedule: a person sent it.
  expect((await call(delivery.stack, 'PUT', `${API}/activate`, { token, body: { config_id: configId, status: 1 } })).status).toBe(200);
  const replayed = await call(delivery.stack, 'POST', `${API}/replay`, { token, body: { config_id: configId } });
  expect(replayed.body).toMatchObject({ replayed: 1 });
  const [again] = await waitFor('the replayed one back', async () => {
    const letters = await deadLetters(configId);
    return letters.length === 1 && letters[0]!.eventId === stopped!.eventId && letters[0]!.messageId !== stopped!.messageId ? letters : undefined;
  }, 15_000, 100);
  expect(again).toMatchObject({ retries: stopped!.retries, nextRetryAt: null });
}, 90_000);

it('sends a due retry once however many sweeps run at once', async () => {
  const { configId, path } = await subscribe('raced', [CREATE]);
  delivery.receiver.statusOf.set(path, 400);
  const eventId = await putEvent();
  await waitFor('the dead letter', async () => ((await deadLetters(configId)).length === 1 ? true : undefined), 15_000);
  const ofEvent = () => delivery.receiver.notificationsAt(path).filter((entry) => entry.message?.eventId === eventId);
  const before = ofEvent().length;
  delivery.receiver.statusOf.delete(path);
  // The stack's own sweep (every 2 s) and five more, the same handler, started together as the retry falls due.
  const { handler } = (await import('../../functions/retryDeadLetters')) as { handler: (event: unknown, context: unknown) => Promise<unknown> };
  const sweep = () => handler({}, lambdaContext('retryDeadLetters', delivery.stack.region, 60_000, 256, randomUUID()));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await Promise.all(Array.from({ length: 5 }, sweep));
  await waitFor('the dead letter gone', async () => ((await deadLetters(configId)).length === 0 ? true : undefined), 10_000, 100);
  // Anything sent twice would be on its way by now.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(ofEvent().length - before).toBe(1);
}, 60_000);
