/**
 * The end-to-end figure's own process (started by ./end-to-end.ts): `npm start`'s path in memory
 * on free ports (the EventBridge stand-in, the dispatcher's queue, the dispatcher, the SNS
 * emulator, DynamoDB Local), an http endpoint subscribed through the API and confirmed, then
 * portal events put one at a time with the EventBridge SDK, each timed until the endpoint has the
 * notification's body, and beside each a direct POST of the same body to the same endpoint.
 *
 *   end-to-end-run.ts <events> <warm-up events> <result.json>
 *
 * Each event's hops are read where they happen, in this one process and clock: the stand-in's
 * log line when the rule queued it; Node's own HTTP client channel (node:diagnostics_channel) when
 * the dispatcher's Query and PublishBatch left; the endpoint when the body arrived. Nothing is
 * added to the path: no proxy, no hook in the handlers.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { subscribe, type Channel } from 'node:diagnostics_channel';
import { createServer, request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import { call, startTestStack, TEST_CLIENTS, tokenFor } from '../support/local-stack-client';

const KIND = 'asset_bank.media.create';
/** An event that has not arrived by then is a failed measurement, not a hung bench. */
const ARRIVAL_TIMEOUT_MS = 15_000;
/** Quiet this long with no HTTP request in flight: the attempts consumer of the last delivery is done. */
const SETTLED_MS = 10;
const SETTLE_TIMEOUT_MS = 2_000;

export interface EndToEndResult {
  /** PutEvents sent to the body at the endpoint, per event. */
  totalMs: number[];
  /** The same body POSTed straight to the same endpoint, next to each event. */
  directMs: number[];
  hops: {
    putToQueued: number[];
    queuedToDispatcher: number[];
    dispatcherToPublish: number[];
    publishToEndpoint: number[];
  };
}

interface Timings {
  queued?: number;
  query?: number;
  publish?: number;
  arrived?: number;
}

async function main(): Promise<void> {
  const [events, warmUp, resultPath] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]!];
  // The event being timed (one at a time); queue log lines name it by its EventBridge id.
  const timings = new Map<string, Timings>();
  let current: Timings | undefined;
  const directArrivals: Arrivals = { waiting: new Map(), early: new Map() };
  const arrivals: Arrivals = { waiting: new Map(), early: new Map() };
  let lastBody = '';

  const endpoint = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const at = performance.now();
      response.end();
      const body = Buffer.concat(chunks).toString('utf8');
      if (incoming.url?.startsWith('/direct/')) {
        noteArrival(directArrivals, incoming.url, at);
        return;
      }
      const envelope = JSON.parse(body) as { Type: string; SubscribeURL?: string; Message?: string };
      if (envelope.Type === 'SubscriptionConfirmation') {
        void fetch(envelope.SubscribeURL!, { signal: AbortSignal.timeout(10_000) });
      } else if (envelope.Type === 'Notification') {
        lastBody = body;
        noteArrival(arrivals, (JSON.parse(envelope.Message!) as { eventId: string }).eventId, at);
      }
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  const endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;

  const local = await startTestStack({
    log: (line) => {
      const queued = /^\[events\] event (\S+) \(.*\) queued for the dispatcher$/.exec(line);
      if (queued) {
        const entry = timings.get(queued[1]!) ?? {};
        entry.queued = performance.now();
        timings.set(queued[1]!, entry);
      }
    },
  });
  const { stack } = local;
  const snsPort = new URL(stack.sns.endpoint).port;

  // Every HTTP request this process's clients make, by Node's own channel: the dispatcher's Query
  // and its PublishBatch (its only SNS call) mark the hops; the count in flight tells when all is quiet.
  let inFlight = 0;
  const onStart = ({ request }: { request: ClientRequest }) => {
    inFlight++;
    const now = performance.now();
    if (!current) return;
    if (request.getHeader('x-amz-target') === 'DynamoDB_20120810.Query') current.query ??= now;
    else if (current.query !== undefined && String(request.getHeader('host') ?? '').endsWith(`:${snsPort}`)) current.publish ??= now;
  };
  const onEnd = () => inFlight--;
  subscribe('http.client.request.start', onStart as Parameters<Channel['subscribe']>[0]);
  subscribe('http.client.response.finish', onEnd);
  subscribe('http.client.request.error', onEnd);

  const bus = new EventBridgeClient({ endpoint: stack.events.endpoint, region: stack.region, credentials: LOCAL_CREDENTIALS });
  try {
    const token = await tokenFor(stack, TEST_CLIENTS.alphaAdmin);
    const created = await call(stack, 'POST', API_PREFIXES[0], {
      token,
      body: { name: 'end to end', protocol: 'http', endpoint: `${endpointUrl}/hook`, events: [KIND] },
    });
    if (created.status !== 200) throw new Error(`create answered ${created.status}: ${created.text}`);
    const { configId } = created.body.record as { configId: string };
    await until('the endpoint confirmed', async () => {
      const listed = await call(stack, 'GET', `${API_PREFIXES[0]}/list`, { token });
      return (listed.body.configs as { configId: string; confirmed?: boolean }[]).some((entry) => entry.configId === configId && entry.confirmed === true);
    });

    const settled = async () => {
      const deadline = Date.now() + SETTLE_TIMEOUT_MS;
      let quietSince = performance.now();
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        if (inFlight > 0 || stack.eventQueue.depth > 0) quietSince = performance.now();
        else if (performance.now() - quietSince >= SETTLED_MS) return;
      }
    };

    /** One event through the whole path; answers its timings from PutEvents sent. */
    const timeEvent = async (): Promise<Timings & { sent: number }> => {
      const entry: Timings = {};
      current = entry;
      const sent = performance.now();
      const answer = await bus.send(
        new PutEventsCommand({
          Entries: [{ EventBusName: stack.eventBusName, Source: 'portal.events', DetailType: KIND, Detail: JSON.stringify({ portalId: 'portal-alpha', mediaId: 'm-1' }) }],
        }),
      );
      const eventId = answer.Entries?.[0]?.EventId;
      if (!eventId) throw new Error(`PutEvents answered no event id: ${JSON.stringify(answer)}`);
      // The log line may come before the answer does: it is filed under the id.
      const arrived = await arrival(arrivals, eventId);
      Object.assign(entry, timings.get(eventId), { arrived });
      timings.delete(eventId);
      current = undefined;
      await settled();
      return { ...entry, sent };
    };

    let directCount = 0;
    const timeDirect = async (): Promise<number> => {
      const path = `/direct/${++directCount}`;
      const sent = performance.now();
      const arrived = arrival(directArrivals, path);
      await new Promise<void>((resolve, reject) => {
        const outgoing = httpRequest(`${endpointUrl}${path}`, { method: 'POST', headers: { 'content-type': 'text/plain; charset=UTF-8' } }, (response) => {
          response.resume();
          response.on('end', resolve);
        });
        outgoing.on('error', reject);
        outgoing.end(lastBody);
      });
      const at = await arrived;
      await settled();
      return at - sent;
    };

    for (let index = 0; index < warmUp; index++) await timeEvent();
    const result: EndToEndResult = { totalMs: [], directMs: [], hops: { putToQueued: [], queuedToDispatcher: [], dispatcherToPublish: [], publishToEndpoint: [] } };
    for (let index = 0; index < events; index++) {
      // Turns at going first, so neither side always follows the other's leftovers.
      const direct = index % 2 === 0 ? undefined : await timeDirect();
      const event = await timeEvent();
      result.directMs.push(direct ?? (await timeDirect()));
      const { sent, queued, query, publish, arrived } = event;
      if ([queued, query, publish, arrived].some((at) => at === undefined)) throw new Error(`an event's hops were not all seen: ${JSON.stringify(event)}`);
      result.totalMs.push(arrived! - sent);
      result.hops.putToQueued.push(queued! - sent);
      result.hops.queuedToDispatcher.push(query! - queued!);
      result.hops.dispatcherToPublish.push(publish! - query!);
      result.hops.publishToEndpoint.push(arrived! - publish!);
    }
    writeFileSync(resultPath, JSON.stringify(result));
  } finally {
    bus.destroy();
    await local.stop();
    await new Promise((resolve) => endpoint.close(resolve));
  }
}

/** Who waits for which body, and bodies that came before anyone waited for them. */
interface Arrivals {
  waiting: Map<string, (at: number) => void>;
  early: Map<string, number>;
}

function noteArrival({ waiting, early }: Arrivals, key: string, at: number): void {
  const waiter = waiting.get(key);
  if (waiter) waiter(at);
  else early.set(key, at);
}

/** Resolves with the time the endpoint had `key`'s body; rejects after ARRIVAL_TIMEOUT_MS. */
function arrival({ waiting, early }: Arrivals, key: string): Promise<number> {
  const before = early.get(key);
  if (before !== undefined) {
    early.delete(key);
    return Promise.resolve(before);
  }
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(key);
      reject(new Error(`${key} did not reach the endpoint within ${ARRIVAL_TIMEOUT_MS} ms`));
    }, ARRIVAL_TIMEOUT_MS);
    waiting.set(key, (at) => {
      clearTimeout(timer);
      waiting.delete(key);
      resolve(at);
    });
  });
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (await check()) return;
  }
  throw new Error(`${what}: not within 30 s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
