/**
 * The retries' and the disabling's state survive a restart of `npm start` on the same DATA_DIR
 * (DELIVERY_RETRY_SCHEDULE=6s, DISABLE_FAILING_AFTER=20s): a dead letter whose retry was due while
 * the stack was stopped is retried after the start, and delivered; a subscription whose schedule
 * was spent before the stop is disabled after it. Both are the table's state (the due work, the
 * records), which DynamoDB Local keeps in DATA_DIR; the sweep is a timer of the stack.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import { trustAuthorityFile } from '../support/local-authority';
import { type NpmStart, startNpmStart, tokenFor } from '../support/npm-start';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const API = API_PREFIXES[0];
const CREATE = 'asset_bank.media.create';
const UPDATED = 'asset_bank.media.updated';

let dataDir: string;
let receiver: WebhookReceiver;
const started: NpmStart[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'npm-start-retries-'));
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await Promise.all(started.map((stack) => stack.stop()));
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function start(): Promise<{ stack: NpmStart; token: string }> {
  const stack = await startNpmStart({ variables: { IN_MEMORY: '', DATA_DIR: dataDir, DELIVERY_RETRY_SCHEDULE: '6s', DISABLE_FAILING_AFTER: '20s' } });
  started.push(stack);
  trustAuthorityFile(join(dataDir, 'sns', 'local-ca.pem'));
  // The issuer holds the API's port, new at each start: a token of this start.
  return { stack, token: await tokenFor(stack, 'portal-a-admin', 'portal-a-admin-secret') };
}

async function api(stack: NpmStart, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${stack.baseUrl}${API}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers read as JSON
  return { status: response.status, body: (await response.json()) as any };
}

async function putEvent(stack: NpmStart, kind: string): Promise<string> {
  const client = new EventBridgeClient({ endpoint: `http://127.0.0.1:${stack.ports.events}`, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  try {
    const answer = await client.send(
      new PutEventsCommand({ Entries: [{ EventBusName: 'webhooks-portal-events', Source: 'portal.events', DetailType: kind, Detail: JSON.stringify({ portalId: 'portal-a', mediaId: 'm-1' }) }] }),
    );
    return answer.Entries![0]!.EventId!;
  } finally {
    client.destroy();
  }
}

const deadLetters = async (stack: NpmStart, token: string, configId: string) =>
  (await api(stack, token, 'GET', `/dead-letters?config_id=${configId}`)).body.deadLetters as { eventId: string; retries: number; nextRetryAt: string | null; state: string }[];

it('retries after a restart what was due while stopped, and disables what had spent its schedule', async () => {
  const first = await start();
  const subscribe = async (name: string, path: string, kind: string) => {
    receiver.statusOf.set(path, 410);
    const created = await api(first.stack, first.token, 'POST', '', { name, protocol: 'http', endpoint: receiver.url + path, events: [kind] });
    expect(created.status).toBe(200);
    return created.body.record.configId as string;
  };
  const spent = await subscribe('Spent', '/restart/spent', CREATE);
  const due = await subscribe('Due', '/restart/due', UPDATED);
  await waitFor('both confirmed', async () => {
    const { configs } = (await api(first.stack, first.token, 'GET', '/list')).body as { configs: { confirmed: boolean }[] };
    return configs.length === 2 && configs.every((entry) => entry.confirmed) ? true : undefined;
  }, 20_000);

  // Spent: answers 410 to the event and to its one scheduled retry, before the stop.
  const spentEvent = await putEvent(first.stack, CREATE);
  await waitFor('Spent exhausted', async () => {
    const [letter] = await deadLetters(first.stack, first.token, spent);
    // Its retry's own dead letter (while the retry is out, the first one is listed as retrying).
    return letter?.retries === 1 && letter.state === 'dead-lettered' ? letter : undefined;
  }, 30_000, 200);
  expect(await deadLetters(first.stack, first.token, spent)).toEqual([expect.objectContaining({ eventId: spentEvent, retries: 1, nextRetryAt: null })]);

  // Due: a dead letter whose retry, 6 s away, falls while the stack is stopped.
  const dueEvent = await putEvent(first.stack, UPDATED);
  const [waiting] = await waitFor('Due dead-lettered', async () => {
    const letters = await deadLetters(first.stack, first.token, due);
    return letters.length === 1 ? letters : undefined;
  }, 10_000, 100);
  expect(waiting).toMatchObject({ eventId: dueEvent, retries: 0, nextRetryAt: expect.any(String) });
  // Not yet disabled: its 20 s run out after the restart.
  const beforeStop = (await api(first.stack, first.token, 'GET', '/list')).body.configs as { configId: string; status: number }[];
  expect(beforeStop.find((entry) => entry.configId === spent)).toMatchObject({ status: 1, disabledReason: null });
  await first.stack.stop();
  expect(await first.stack.exited).toEqual({ code: 0, signal: null });
  receiver.statusOf.delete('/restart/due');
  const deliveredBefore = receiver.notificationsAt('/restart/due').length;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(waiting!.nextRetryAt!) - Date.now())));

  const second = await start();
  await waitFor('Due retried and delivered', () => (receiver.notificationsAt('/restart/due').length > deliveredBefore ? true : undefined), 20_000, 200);
  expect(receiver.notificationsAt('/restart/due').at(-1)!.message).toMatchObject({ eventId: dueEvent, event: UPDATED });
  await waitFor('Due\'s dead letter gone', async () => ((await deadLetters(second.stack, second.token, due)).length === 0 ? true : undefined), 10_000, 200);

  const disabled = await waitFor('Spent disabled', async () => {
    const { configs } = (await api(second.stack, second.token, 'GET', '/list')).body as { configs: { configId: string; status: number }[] };
    const entry = configs.find((config) => config.configId === spent);
    return entry?.status === 0 ? entry : undefined;
  }, 40_000, 500);
  expect(disabled).toMatchObject({ status: 0, disabledReason: 'failing' });
}, 180_000);
