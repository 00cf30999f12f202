/**
 * Failed deliveries as a tenant sees them, over HTTP against the local stack: a receiver that
 * answers 500 gets SNS's retries, then the message is a dead letter listed for its subscription
 * alone (not for another, not in another portal), counted in list; once the receiver recovers,
 * replay delivers it with its original eventId and it is gone. Replay is refused while the
 * subscription is deactivated or its endpoint has not confirmed, and to a read-only token;
 * paging returns every dead letter exactly once. The SNS emulator's dead letters reach the
 * recorder through the local delivery dead-letter queue, as on AWS.
 */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { OAuthClient } from '../../infra/local/auth/clients';
import { API_PREFIXES } from '../../shared/operations';
import { HTTP_DELIVERY_POLICY } from '../../shared/subscriptions/delivery-policy';
import { call, TEST_CLIENTS, tokenFor } from '../support/local-stack-client';
import { useDeliveryStack } from '../support/delivery-stack';
import { waitFor } from '../support/wait-for';
import { watchPublishes } from '../support/publish-watch';
import { snsClient } from '../../shared/aws/sns';

const API = API_PREFIXES[0];
const CREATE = 'asset_bank.media.create';

const delivery = useDeliveryStack();

interface Created {
  configId: string;
  path: string;
}

/** An http subscription to the receiver at its own path, confirmed unless asked otherwise. */
async function subscribe(client: OAuthClient, label: string, { confirm = true } = {}): Promise<Created> {
  const path = `/dead/${label}-${Math.random().toString(36).slice(2, 8)}`;
  if (!confirm) delivery.receiver.unconfirmedPaths.add(path);
  const created = await call(delivery.stack, 'POST', API, {
    token: await delivery.token(client),
    body: { name: label, protocol: 'http', endpoint: delivery.receiver.url + path, events: [CREATE] },
  });
  expect(created.status).toBe(200);
  const { configId } = created.body.record;
  if (confirm) await waitFor(`${label} confirmed`, async () => ((await listEntry(client, configId))?.confirmed ? true : undefined));
  return { configId, path };
}

async function listEntry(client: OAuthClient, configId: string) {
  const listed = await call(delivery.stack, 'GET', `${API}/list`, { token: await delivery.token(client) });
  expect(listed.status).toBe(200);
  return listed.body.configs.find((entry: { configId: string }) => entry.configId === configId);
}

async function deadLetters(client: OAuthClient, configId: string, query = '') {
  return call(delivery.stack, 'GET', `${API}/dead-letters?config_id=${configId}${query}`, { token: await delivery.token(client) });
}

async function replay(client: OAuthClient, body: Record<string, unknown>) {
  return call(delivery.stack, 'POST', `${API}/replay`, { token: await delivery.token(client), body });
}

/** Puts portal events of `kind` for the portal on the bus; answers their EventBridge ids. */
async function putPortalEvents(portalId: string, count = 1): Promise<string[]> {
  const answer = await delivery.events.send(
    new PutEventsCommand({
      Entries: Array.from({ length: count }, (_, index) => ({
        EventBusName: delivery.stack.eventBusName,
        Source: 'portal.events',
        DetailType: CREATE,
        Detail: JSON.stringify({ portalId, mediaId: `m-${index}` }),
      })),
    }),
  );
  expect(answer.FailedEntryCount).toBe(0);
  return answer.Entries!.map((entry) => entry.EventId!);
}

/** Waits until the subscription has `count` dead letters listed, and answers them. */
async function deadLettersOf(client: OAuthClient, configId: string, count: number) {
  return waitFor(
    `${count} dead letters of ${configId}`,
    async () => {
      const answer = await deadLetters(client, configId, '&limit=100');
      return answer.body.deadLetters.length === count ? answer.body.deadLetters : undefined;
    },
    20_000,
    50,
  );
}

describe('a receiver that answers 500', () => {
  it('gets its retries, then the message is a dead letter of its subscription alone, counted in list; replayed once it recovers, with its eventId', async () => {
    const failing = await subscribe(TEST_CLIENTS.alphaAdmin, 'failing');
    const healthy = await subscribe(TEST_CLIENTS.alphaAdmin, 'healthy');
    const beta = await subscribe(TEST_CLIENTS.betaAdmin, 'beta');
    delivery.receiver.failingPaths.add(failing.path);

    const [eventId] = await putPortalEvents(TEST_CLIENTS.alphaAdmin.portalId);
    const [letter] = await deadLettersOf(TEST_CLIENTS.alphaAdmin, failing.configId, 1);

    // The first attempt and every retry of the delivery policy reached the receiver.
    const attempts = delivery.receiver.notificationsAt(failing.path);
    expect(attempts).toHaveLength(1 + HTTP_DELIVERY_POLICY.healthyRetryPolicy.numRetries);
    expect(letter).toEqual({
      eventId,
      event: CREATE,
      occurredAt: expect.any(String),
      failedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      messageId: attempts[0]!.envelope.MessageId,
      // The first of DELIVERY_RETRY_SCHEDULE (5m by default) after it failed.
      retries: 0,
      nextRetryAt: new Date(Date.parse(letter.failedAt) + 5 * 60_000).toISOString(),
      state: 'dead-lettered',
      retriedAt: null,
    });
    // Its subscription's alone: not the healthy one's, not another portal's, which cannot even ask.
    expect((await deadLetters(TEST_CLIENTS.alphaAdmin, healthy.configId)).body.deadLetters).toEqual([]);
    expect((await deadLetters(TEST_CLIENTS.betaAdmin, beta.configId)).body.deadLetters).toEqual([]);
    const foreign = await deadLetters(TEST_CLIENTS.betaAdmin, failing.configId);
    expect([foreign.status, foreign.body.code]).toEqual([400, 'SUBSCRIPTION_NOT_FOUND']);
    expect(await listEntry(TEST_CLIENTS.alphaAdmin, failing.configId)).toMatchObject({ deadLetters: 1, lastDeadLetterAt: letter.failedAt, deadLettersDropped: 0 });
    expect(await listEntry(TEST_CLIENTS.alphaAdmin, healthy.configId)).toMatchObject({ deadLetters: 0, lastDeadLetterAt: null });
    expect(await listEntry(TEST_CLIENTS.betaAdmin, beta.configId)).toMatchObject({ deadLetters: 0, lastDeadLetterAt: null });

    // A read-only token may look, not send again.
    const reader = await tokenFor(delivery.stack, TEST_CLIENTS.alphaReader);
    expect((await call(delivery.stack, 'GET', `${API}/dead-letters?config_id=${failing.configId}`, { token: reader })).status).toBe(200);
    expect((await call(delivery.stack, 'POST', `${API}/replay`, { token: reader, body: { config_id: failing.configId } })).status).toBe(403);
    expect((await deadLetters(TEST_CLIENTS.alphaAdmin, failing.configId)).body.deadLetters).toHaveLength(1);

    delivery.receiver.failingPaths.delete(failing.path);
    const before = delivery.receiver.notificationsAt(failing.path).length;
    const replayed = await replay(TEST_CLIENTS.alphaAdmin, { config_id: failing.configId });

    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual({ success: true, message: '1 dead letter sent again.', replayed: 1, remaining: 0 });
    const [again] = await waitFor('the replayed message', () => delivery.receiver.notificationsAt(failing.path).slice(before)[0] && delivery.receiver.notificationsAt(failing.path).slice(before));
    expect(again!.message).toEqual(attempts[0]!.message);
    expect(again!.message.eventId).toBe(eventId);
    expect(again!.envelope.MessageAttributes).toEqual(attempts[0]!.envelope.MessageAttributes);
    expect((await deadLetters(TEST_CLIENTS.alphaAdmin, failing.configId)).body.deadLetters).toEqual([]);
    expect(await listEntry(TEST_CLIENTS.alphaAdmin, failing.configId)).toMatchObject({ deadLetters: 0 });
    // Delivered now: nothing comes back as a new dead letter.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await deadLetters(TEST_CLIENTS.alphaAdmin, failing.configId)).body.deadLetters).toEqual([]);
  }, 60_000);

  it('sends again only the dead letters named by eventIds, and says so when they name none kept', async () => {
    const failing = await subscribe(TEST_CLIENTS.alphaAdmin, 'named');
    delivery.receiver.failingPaths.add(failing.path);
    const [first, second] = await putPortalEvents(TEST_CLIENTS.alphaAdmin.portalId, 2);
    await deadLettersOf(TEST_CLIENTS.alphaAdmin, failing.configId, 2);
    delivery.receiver.failingPaths.delete(failing.path);

    const none = await replay(TEST_CLIENTS.alphaAdmin, { config_id: failing.configId, eventIds: ['no-such-event'] });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({
      success: true,
      message: 'None of the given eventIds names a dead letter kept for this subscription; nothing was sent. 2 still kept.',
      replayed: 0,
      remaining: 2,
    });

    const named = await replay(TEST_CLIENTS.alphaAdmin, { config_id: failing.configId, eventIds: [second] });
    expect(named.body).toMatchObject({ replayed: 1, remaining: 1 });
    expect((await deadLetters(TEST_CLIENTS.alphaAdmin, failing.configId)).body.deadLetters.map((letter: { eventId: string }) => letter.eventId)).toEqual([first]);
  }, 60_000);
});

describe('replay', () => {
  it('publishes each dead letter once when five replays of 40 dead letters run at once (a double click, a client retrying)', async () => {
    const failing = await subscribe(TEST_CLIENTS.alphaAdmin, 'concurrent');
    delivery.receiver.failingPaths.add(failing.path);
    const eventIds: string[] = [];
    // PutEvents takes at most 10 entries.
    for (let batch = 0; batch < 4; batch++) eventIds.push(...(await putPortalEvents(TEST_CLIENTS.alphaAdmin.portalId, 10)));
    await deadLettersOf(TEST_CLIENTS.alphaAdmin, failing.configId, 40);
    delivery.receiver.failingPaths.delete(failing.path);
    const before = delivery.receiver.notificationsAt(failing.path).length;
    // The replay function's own SNS client (the in-memory stack runs it in this process).
    const publishes = watchPublishes(snsClient);

    const replaysBegan = new Date().toISOString();
    const answers = await Promise.all(Array.from({ length: 5 }, () => replay(TEST_CLIENTS.alphaAdmin, { config_id: failing.configId })));
    // A Publish that failed (on a starved machine, twice late) leaves its letter kept, and the
    // answer says to try again shortly (503 when nothing at all was sent): as a client would.
    for (let round = 0; round < 5 && (await deadLetters(TEST_CLIENTS.alphaAdmin, failing.configId)).body.deadLetters.length > 0; round++) {
      answers.push(await replay(TEST_CLIENTS.alphaAdmin, { config_id: failing.configId }));
    }
    publishes.stop();

    for (const answer of answers) expect([200, 503]).toContain(answer.status);
    expect(answers.reduce((sum, answer) => sum + (answer.body.replayed ?? 0), 0)).toBe(40);
    expect((await deadLetters(TEST_CLIENTS.alphaAdmin, failing.configId)).body.deadLetters).toEqual([]);
    // Each letter was published by one replay alone: SNS accepted exactly one Publish call for it.
    expect([...publishes.byEventId.keys()].sort()).toEqual([...eventIds].sort());
    for (const [eventId, { answered }] of publishes.byEventId) expect([eventId, answered]).toEqual([eventId, 1]);

    // Published since the replays began (SNS's Timestamp is the publish time): on a starved
    // machine the dispatcher may have published an event twice (at least once: its call timed out
    // after SNS took it), and such a copy, still being retried when the path recovers, arrives
    // now; it is not the replay's.
    const replayed = () => delivery.receiver.notificationsAt(failing.path).slice(before).filter((notification) => notification.envelope.Timestamp >= replaysBegan);
    await waitFor('every replayed event delivered', () => (new Set(replayed().map((notification) => notification.message.eventId)).size >= 40 ? true : undefined), 20_000);
    // Anything sent twice would be on its way by now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Every event arrived, and a second copy only where the SDK sent its Publish again (its answer
    // came late, and SNS had taken the first): at least once, as on AWS.
    const arrivals = new Map<string, number>();
    for (const notification of replayed()) arrivals.set(notification.message.eventId, (arrivals.get(notification.message.eventId) ?? 0) + 1);
    expect([...arrivals.keys()].sort()).toEqual([...eventIds].sort());
    for (const [eventId, count] of arrivals) expect(count).toBeLessThanOrEqual(publishes.byEventId.get(eventId)!.attempts);
  }, 90_000);

  it('is refused, saying why, while the subscription is deactivated or its endpoint has not confirmed', async () => {
    const deactivated = await subscribe(TEST_CLIENTS.alphaAdmin, 'deactivated');
    const activate = await call(delivery.stack, 'PUT', `${API}/activate`, {
      token: await delivery.token(TEST_CLIENTS.alphaAdmin),
      body: { config_id: deactivated.configId, status: 0 },
    });
    expect(activate.status).toBe(200);
    const unconfirmed = await subscribe(TEST_CLIENTS.alphaAdmin, 'unconfirmed', { confirm: false });

    const whileDeactivated = await replay(TEST_CLIENTS.alphaAdmin, { config_id: deactivated.configId });
    const whilePending = await replay(TEST_CLIENTS.alphaAdmin, { config_id: unconfirmed.configId });
    const testWhilePending = await call(delivery.stack, 'POST', `${API}/test`, {
      token: await delivery.token(TEST_CLIENTS.alphaAdmin),
      body: { config_id: unconfirmed.configId },
    });

    expect([whileDeactivated.status, whileDeactivated.body.code]).toEqual([400, 'SUBSCRIPTION_DEACTIVATED']);
    expect(whileDeactivated.body.message).toBe(
      `Subscription ${deactivated.configId} is deactivated, so nothing would be delivered; activate it (status 1) first.`,
    );
    expect([whilePending.status, whilePending.body.code]).toEqual([400, 'ENDPOINT_NOT_CONFIRMED']);
    expect(whilePending.body.message).toMatch(/has not confirmed it yet, so nothing would arrive/);
    expect([testWhilePending.status, testWhilePending.body.code]).toEqual([400, 'ENDPOINT_NOT_CONFIRMED']);
    expect(delivery.receiver.notificationsAt(unconfirmed.path)).toEqual([]);
  });
});

describe('GET /dead-letters', () => {
  it('pages through every dead letter exactly once, newest first, and refuses a bad limit or a cursor of another subscription', async () => {
    const failing = await subscribe(TEST_CLIENTS.alphaAdmin, 'paged');
    const other = await subscribe(TEST_CLIENTS.alphaAdmin, 'other');
    delivery.receiver.failingPaths.add(failing.path);
    delivery.receiver.failingPaths.add(other.path);
    const eventIds = await putPortalEvents(TEST_CLIENTS.alphaAdmin.portalId, 7);
    await deadLettersOf(TEST_CLIENTS.alphaAdmin, failing.configId, 7);
    await deadLettersOf(TEST_CLIENTS.alphaAdmin, other.configId, 7);

    const pages: { eventId: string; failedAt: string }[][] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const answer = await deadLetters(TEST_CLIENTS.alphaAdmin, failing.configId, `&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(answer.status).toBe(200);
      pages.push(answer.body.deadLetters);
      cursor = answer.body.nextCursor;
      if (cursor === null) break;
    }

    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    const listed = pages.flat();
    expect(listed.map((letter) => letter.eventId).sort()).toEqual([...eventIds].sort());
    const failedAt = listed.map((letter) => letter.failedAt);
    expect(failedAt).toEqual([...failedAt].sort().reverse());

    const otherFirst = await deadLetters(TEST_CLIENTS.alphaAdmin, other.configId, '&limit=1');
    const crossed = await deadLetters(TEST_CLIENTS.alphaAdmin, failing.configId, `&cursor=${otherFirst.body.nextCursor}`);
    expect([crossed.status, crossed.body.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(crossed.body.message).toBe('cursor must be the nextCursor of an earlier answer for this config_id, unchanged.');
    for (const limit of ['0', '101', 'ten']) {
      const refused = await deadLetters(TEST_CLIENTS.alphaAdmin, failing.configId, `&limit=${limit}`);
      expect([refused.status, refused.body.message]).toEqual([400, 'limit must be a whole number from 1 to 100.']);
    }
    const missing = await call(delivery.stack, 'GET', `${API}/dead-letters`, { token: await delivery.token(TEST_CLIENTS.alphaAdmin) });
    expect([missing.status, missing.body.message]).toEqual([400, 'config_id is required.']);
  }, 60_000);
});
