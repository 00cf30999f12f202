/**
 * Attempts joined to the message log, over HTTP against the local stack with a schedule of seconds
 * (DELIVERY_RETRY_SCHEDULE=1s,1s, DISABLE_FAILING_AFTER=3s): an endpoint that answers 200 to test
 * events only, while its tenant sends a test now and then, is disabled all the same, its tests
 * listed as delivered attempts with their eventId; a forged delivery status record (a message id
 * the service never published), written as any principal allowed to write CloudWatch Logs could,
 * is dropped and counted, and moves no lastDeliveredAt.
 */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { randomUUID } from 'node:crypto';
import { lambdaContext } from '../support/lambda-context';
import { API_PREFIXES } from '../../shared/operations';
import { call, TEST_CLIENTS } from '../support/local-stack-client';
import { useDeliveryStack } from '../support/delivery-stack';
import { waitFor } from '../support/wait-for';
import { setSuiteSettings } from '../support/suite-settings';

const API = API_PREFIXES[0];
const CREATE = 'asset_bank.media.create';
const client = TEST_CLIENTS.alphaAdmin;

// Read by the handlers when the stack imports them (in beforeAll); given back after the suite.
const SETTINGS = { DELIVERY_RETRY_SCHEDULE: '1s,1s', DISABLE_FAILING_AFTER: '3s' };
const restoreSettings = setSuiteSettings(SETTINGS);
afterAll(() => {
  restoreSettings();
});

const delivery = useDeliveryStack();

async function subscribe(label: string) {
  const path = `/join/${label}-${Math.random().toString(36).slice(2, 8)}`;
  const created = await call(delivery.stack, 'POST', API, {
    token: await delivery.token(client),
    body: { name: label, protocol: 'http', endpoint: delivery.receiver.url + path, events: [CREATE] },
  });
  expect(created.status).toBe(200);
  const { configId, topicArn } = created.body.record;
  await waitFor(`${label} confirmed`, async () => ((await listEntry(configId))?.confirmed ? true : undefined));
  return { configId, topicArn: topicArn as string, path };
}

async function listEntry(configId: string) {
  const listed = await call(delivery.stack, 'GET', `${API}/list`, { token: await delivery.token(client) });
  expect(listed.status).toBe(200);
  return listed.body.configs.find((entry: { configId: string }) => entry.configId === configId);
}

async function attempts(configId: string) {
  const answer = await call(delivery.stack, 'GET', `${API}/attempts?config_id=${configId}&limit=100`, { token: await delivery.token(client) });
  expect(answer.status).toBe(200);
  return answer.body.attempts as { status: string; statusCode: number | null; messageId: string }[];
}

async function sendTest(configId: string): Promise<string> {
  const sent = await call(delivery.stack, 'POST', `${API}/test`, { token: await delivery.token(client), body: { config_id: configId } });
  expect(sent.status).toBe(200);
  return sent.body.messageId;
}

it('disables an endpoint that answers 200 to test events only, though its tenant sends tests all along', async () => {
  const { configId, path } = await subscribe('tests-only');
  delivery.receiver.testsOnlyPaths.add(path);
  const answer = await delivery.events.send(
    new PutEventsCommand({
      Entries: [{ EventBusName: delivery.stack.eventBusName, Source: 'portal.events', DetailType: CREATE, Detail: JSON.stringify({ portalId: client.portalId, mediaId: 'm-1' }) }],
    }),
  );
  expect(answer.FailedEntryCount).toBe(0);

  // A test every second until the subscription is disabled: each is delivered, none ends the streak.
  const tests: string[] = [];
  const disabled = await waitFor(
    'the subscription disabled',
    async () => {
      const entry = await listEntry(configId);
      if (entry.status === 0) return entry;
      if (entry.status === 1) tests.push(await sendTest(configId));
      return undefined;
    },
    40_000,
    1_000,
  );
  expect(disabled).toMatchObject({ status: 0, disabledReason: 'failing' });
  expect(tests.length).toBeGreaterThan(1);
  // The tests' outcomes are still listed: delivered, 200.
  const listed = await waitFor('a test listed as delivered', async () => {
    const all = await attempts(configId);
    return all.some((attempt) => tests.includes(attempt.messageId) && attempt.status === 'delivered') ? all : undefined;
  }, 15_000);
  expect(listed.filter((attempt) => tests.includes(attempt.messageId)).every((attempt) => attempt.status === 'delivered' && attempt.statusCode === 200)).toBe(true);
  expect(disabled.lastDeliveredAt).not.toBeNull();
}, 90_000);

it('drops and counts a forged delivery status record naming a message the service never published, and moves nothing', async () => {
  const { configId, topicArn } = await subscribe('forged');
  // The consumer as CloudWatch Logs would invoke it for a record written into the topic's log group.
  const { handler } = await import('../../functions/recordDeliveryAttempts');
  const { logSubscriptionEventOf } = await import('../../shared/attempts/delivery-status-record');
  const [, , , region, account, name] = topicArn.split(':');
  const forged = {
    notification: { messageMD5Sum: '0', messageId: randomUUID(), topicArn, timestamp: '2026-11-25 10:15:30.123' },
    delivery: { deliveryId: randomUUID(), destination: 'https://x.example', providerResponse: 'OK', dwellTimeMs: 10, attempts: 1, statusCode: 200 },
    status: 'SUCCESS',
  };
  const event = logSubscriptionEventOf(account!, `sns/${region}/${account}/${name}`, 's', [{ id: randomUUID(), timestamp: Date.now(), message: JSON.stringify(forged) }]);

  const summary = await handler(event, lambdaContext('recordDeliveryAttempts'));

  expect(summary).toMatchObject({ stored: 0, unknown: 1 });
  expect(await attempts(configId)).toEqual([]);
  expect(await listEntry(configId)).toMatchObject({ lastDeliveredAt: null, deliveredLast24h: 0 });
});
