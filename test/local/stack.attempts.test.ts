/**
 * Delivery attempts as a tenant sees them, over HTTP against the local stack: an http subscription
 * to a receiver that confirms, a test event, and within seconds GET /attempts shows one delivered
 * attempt with status 200; the receiver switched to 500, the next test shows a failed attempt with
 * 500 and SNS's count of tries; list shows lastDeliveredAt and lastFailedAt with the 24-hour counts;
 * a read-only token may read attempts, another portal may not; an e-mail subscription has none.
 * The SNS emulator writes SNS's delivery status records and hands them to the attempts consumer
 * in a CloudWatch Logs subscription event, as on AWS.
 */
import type { OAuthClient } from '../../infra/local/auth/clients';
import { API_PREFIXES } from '../../shared/operations';
import { HTTP_DELIVERY_POLICY } from '../../shared/subscriptions/delivery-policy';
import { useDeliveryStack } from '../support/delivery-stack';
import { call, TEST_CLIENTS, tokenFor } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';

const API = API_PREFIXES[0];
const LEGACY = API_PREFIXES[1];
const CREATE = 'asset_bank.media.create';

const delivery = useDeliveryStack();

async function subscribe(client: OAuthClient, label: string): Promise<{ configId: string; path: string }> {
  const path = `/attempts/${label}-${Math.random().toString(36).slice(2, 8)}`;
  const created = await call(delivery.stack, 'POST', API, {
    token: await delivery.token(client),
    body: { name: label, protocol: 'http', endpoint: delivery.receiver.url + path, events: [CREATE] },
  });
  expect(created.status).toBe(200);
  const { configId } = created.body.record;
  await waitFor(`${label} confirmed`, async () => ((await listEntry(client, configId))?.confirmed ? true : undefined));
  return { configId, path };
}

async function listEntry(client: OAuthClient, configId: string) {
  const listed = await call(delivery.stack, 'GET', `${API}/list`, { token: await delivery.token(client) });
  expect(listed.status).toBe(200);
  return listed.body.configs.find((entry: { configId: string }) => entry.configId === configId);
}

async function attempts(client: OAuthClient, configId: string, query = '', prefix: string = API) {
  return call(delivery.stack, 'GET', `${prefix}/attempts?config_id=${configId}${query}`, { token: await delivery.token(client) });
}

async function sendTest(client: OAuthClient, configId: string): Promise<string> {
  const sent = await call(delivery.stack, 'POST', `${API}/test`, { token: await delivery.token(client), body: { config_id: configId } });
  expect(sent.status).toBe(200);
  return sent.body.messageId;
}

/** Waits until the subscription lists `count` attempts, and answers them (newest first). */
async function attemptsOf(client: OAuthClient, configId: string, count: number) {
  return waitFor(
    `${count} attempts of ${configId}`,
    async () => {
      const answer = await attempts(client, configId, '&limit=100');
      expect(answer.status).toBe(200);
      return answer.body.attempts.length === count ? answer.body.attempts : undefined;
    },
    20_000,
    50,
  );
}

describe('the attempts of an http subscription', () => {
  it('show a delivery with 200 within seconds, then a failure with 500 and SNS\'s try count; list shows both; readers may look, other portals may not', async () => {
    const subscription = await subscribe(TEST_CLIENTS.alphaAdmin, 'receiver');

    const deliveredId = await sendTest(TEST_CLIENTS.alphaAdmin, subscription.configId);
    const [delivered] = await attemptsOf(TEST_CLIENTS.alphaAdmin, subscription.configId, 1);
    expect(delivered).toEqual({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      status: 'delivered',
      statusCode: 200,
      dwellTimeMs: expect.any(Number),
      attempts: 1,
      messageId: deliveredId,
      eventId: expect.any(String),
    });
    // The message id the receiver saw, and the eventId its body carried (point 4 of issue 39: one id a tenant can follow).
    const received = delivery.receiver.notificationsAt(subscription.path).find((entry) => entry.envelope.MessageId === deliveredId);
    expect((received?.message as { eventId?: string } | undefined)?.eventId).toBe(delivered.eventId);

    delivery.receiver.failingPaths.add(subscription.path);
    const failedId = await sendTest(TEST_CLIENTS.alphaAdmin, subscription.configId);
    const [failed, first] = await attemptsOf(TEST_CLIENTS.alphaAdmin, subscription.configId, 2);
    expect(first).toEqual(delivered);
    expect(failed).toMatchObject({ status: 'failed', statusCode: 500, attempts: 1 + HTTP_DELIVERY_POLICY.healthyRetryPolicy.numRetries, messageId: failedId });
    expect(failed.at >= delivered.at).toBe(true);

    // Filtered by outcome, and the same under the legacy prefix.
    expect((await attempts(TEST_CLIENTS.alphaAdmin, subscription.configId, '&status=failed')).body.attempts).toEqual([failed]);
    expect((await attempts(TEST_CLIENTS.alphaAdmin, subscription.configId, '&status=delivered', LEGACY)).body.attempts).toEqual([delivered]);
    // Paged: one at a time, newest first, each once.
    const firstPage = await attempts(TEST_CLIENTS.alphaAdmin, subscription.configId, '&limit=1');
    expect(firstPage.body.attempts).toEqual([failed]);
    const secondPage = await attempts(TEST_CLIENTS.alphaAdmin, subscription.configId, `&limit=1&cursor=${firstPage.body.nextCursor}`);
    expect([secondPage.body.attempts, secondPage.body.nextCursor]).toEqual([[delivered], null]);

    expect(await listEntry(TEST_CLIENTS.alphaAdmin, subscription.configId)).toMatchObject({
      lastDeliveredAt: delivered.at,
      lastFailedAt: failed.at,
      deliveredLast24h: 1,
      failedLast24h: 1,
    });

    // A read-only token may read them; another portal's id answers as unknown.
    const reader = await tokenFor(delivery.stack, TEST_CLIENTS.alphaReader);
    const read = await call(delivery.stack, 'GET', `${API}/attempts?config_id=${subscription.configId}`, { token: reader });
    expect([read.status, read.body.attempts]).toEqual([200, [failed, delivered]]);
    const foreign = await attempts(TEST_CLIENTS.betaAdmin, subscription.configId);
    expect([foreign.status, foreign.body.code]).toEqual([400, 'SUBSCRIPTION_NOT_FOUND']);
    const badCursor = await attempts(TEST_CLIENTS.alphaAdmin, subscription.configId, '&cursor=abc');
    expect([badCursor.status, badCursor.body.code]).toEqual([400, 'INVALID_REQUEST']);
    delivery.receiver.failingPaths.delete(subscription.path);
  });

  it('a subscription with no delivery yet lists none, and list shows no health', async () => {
    const quiet = await subscribe(TEST_CLIENTS.alphaAdmin, 'quiet');
    const answer = await attempts(TEST_CLIENTS.alphaAdmin, quiet.configId);
    expect([answer.status, answer.body.attempts, answer.body.nextCursor]).toEqual([200, [], null]);
    expect(await listEntry(TEST_CLIENTS.alphaAdmin, quiet.configId)).toMatchObject({
      lastDeliveredAt: null,
      lastFailedAt: null,
      deliveredLast24h: 0,
      failedLast24h: 0,
    });
  });
});

describe('an e-mail subscription', () => {
  it('answers 400 ATTEMPTS_NOT_RECORDED: SNS logs no delivery status for e-mail', async () => {
    const created = await call(delivery.stack, 'POST', API, {
      token: await delivery.token(TEST_CLIENTS.alphaAdmin),
      body: { name: 'mail', protocol: 'email', endpoint: 'someone@example.com', events: [CREATE] },
    });
    expect(created.status).toBe(200);
    const answer = await attempts(TEST_CLIENTS.alphaAdmin, created.body.record.configId);
    expect([answer.status, answer.body.code]).toEqual([400, 'ATTEMPTS_NOT_RECORDED']);
  });
});
