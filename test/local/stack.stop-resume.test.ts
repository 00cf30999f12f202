/**
 * `npm start` stopped by SIGTERM in the middle of a burst of portal events, then started again
 * on the same DATA_DIR, as a developer would: every event the event bus accepted before the stop
 * reaches the endpoint after the restart (or is a dead letter), none is lost, and the console
 * says what was kept and what was resumed.
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
const EVENTS = 2_000;
/** PutEvents calls in flight at once during the burst. */
const CONCURRENT_PUTS = 5;

let dataDir: string;
let receiver: WebhookReceiver;
const started: NpmStart[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'npm-start-stop-resume-'));
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await Promise.all(started.map((stack) => stack.stop()));
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function start(): Promise<NpmStart> {
  const stack = await startNpmStart({ variables: { IN_MEMORY: '', DATA_DIR: dataDir } });
  started.push(stack);
  // The receiver follows the emulator's https:// SubscribeURL, under the authority kept in DATA_DIR.
  trustAuthorityFile(join(dataDir, 'sns', 'local-ca.pem'));
  return stack;
}

/** Puts EVENTS portal events for portal-a on the bus as fast as it takes them; answers the ids it accepted. */
async function burst(stack: NpmStart): Promise<string[]> {
  const client = new EventBridgeClient({ endpoint: `http://127.0.0.1:${stack.ports.events}`, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  const accepted: string[] = [];
  let next = 0;
  const putter = async () => {
    for (let batch = next++; batch < EVENTS / 10; batch = next++) {
      const answer = await client.send(
        new PutEventsCommand({
          Entries: Array.from({ length: 10 }, (_, n) => ({
            EventBusName: 'webhooks-portal-events',
            Source: 'portal.events',
            DetailType: CREATE,
            Detail: JSON.stringify({ portalId: 'portal-a', mediaId: `m-${batch * 10 + n}` }),
          })),
        }),
      );
      accepted.push(...answer.Entries!.flatMap((entry) => (entry.EventId && !entry.ErrorCode ? [entry.EventId] : [])));
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENT_PUTS }, putter));
  } finally {
    client.destroy();
  }
  return accepted;
}

async function deadLetteredEventIds(stack: NpmStart): Promise<Set<string>> {
  const response = await fetch(`http://127.0.0.1:${stack.ports.sns}/_emulator/dead-letters`, { signal: AbortSignal.timeout(5_000) });
  const { deadLetters } = (await response.json()) as { deadLetters: { body: string }[] };
  return new Set(deadLetters.map((letter) => JSON.parse(JSON.parse(letter.body).Message).eventId as string));
}

it('delivers after a restart on the same DATA_DIR every event accepted before a SIGTERM mid-burst', async () => {
  const first = await start();
  const token = await tokenFor(first, 'portal-a-admin', 'portal-a-admin-secret');
  const path = '/hooks/resumed';
  // Slow enough that deliveries are under way when the stop comes.
  receiver.delayOf.set(path, 300);
  const created = await fetch(`${first.baseUrl}${API}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Resumed', protocol: 'http', endpoint: receiver.url + path, events: [CREATE] }),
  });
  expect(created.status).toBe(200);
  await waitFor('the confirmation visit', async () => {
    const listed = await fetch(`${first.baseUrl}${API}/list`, { headers: { authorization: `Bearer ${token}` } });
    const { configs } = (await listed.json()) as { configs: { confirmed: boolean }[] };
    return configs[0]?.confirmed ? true : undefined;
  });

  const accepted = await burst(first);
  expect(accepted.length).toBe(EVENTS);
  await first.stop();
  expect(await first.exited).toEqual({ code: 0, signal: null });
  // Stopped mid-burst: events still queued for the dispatcher. Whether SNS also holds deliveries at
  // that moment depends on how far the dispatcher got (the local queue hands out several batches at
  // once): when it kept some, the next start resumes exactly those (the emulator's own resume is
  // asserted in sns-emulator.dead-letters.test.ts).
  expect(first.output()).toMatch(/\[events\] kept [1-9]\d* queued events in .*event-queue\.json/);
  const keptDeliveries = /\[sns\] kept (\d+) pending deliveries in .*sns\.json/.exec(first.output())?.[1];

  const second = await start();
  expect(second.output()).toMatch(/\[events\] resuming [1-9]\d* events still queued at the last stop/);
  if (keptDeliveries !== undefined) expect(second.output()).toContain(`[sns] resuming ${keptDeliveries} deliveries still pending at the last stop`);

  const missing = async () => {
    const arrived = new Set(receiver.notificationsAt(path).map((entry) => entry.message?.eventId as string));
    const deadLettered = await deadLetteredEventIds(second);
    return accepted.filter((eventId) => !arrived.has(eventId) && !deadLettered.has(eventId));
  };
  try {
    await waitFor('every accepted event', async () => ((await missing()).length === 0 ? true : undefined), 120_000, 500);
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${(await missing()).length} of ${EVENTS} never arrived`);
  }
  await second.stop();
  expect(await second.exited).toEqual({ code: 0, signal: null });
}, 300_000);
