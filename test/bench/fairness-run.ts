/**
 * The fairness figure's own process (started by ./fairness.ts): `npm start`'s path in memory,
 * a quiet portal (portal-beta, one subscription) and a flooding one (portal-alpha, eight), every
 * subscription an http endpoint of a process of its own (./fairness-endpoint.ts: on AWS the
 * receiver is not the service's machine), subscribed through the API and confirmed. The
 * quiet portal's events are put one at a time and timed from PutEvents to the body at the
 * endpoint: first alone, then while portal-alpha's flood of events (each to its eight
 * subscriptions) drains, from one second into it; the flood's drain time (its first PutEvents to
 * its last body at the endpoint) is taken beside them.
 *
 *   fairness-run.ts <flood events> <quiet events alone> <result.json>
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import type { OAuthClient } from '../../infra/local/auth/clients';
import { call, startTestStack, TEST_CLIENTS, tokenFor } from '../support/local-stack-client';
import type { EndpointReport } from './fairness-endpoint';

const KIND = 'asset_bank.media.create';
const FLOODING_SUBSCRIPTIONS = 8;
/** PutEvents requests of the flood in flight at once. */
const FLOOD_SENDERS = 4;
const ARRIVAL_TIMEOUT_MS = 120_000;
/** The quiet portal's events during the flood: one at a time, this far apart, at most this many. */
const QUIET_GAP_MS = 50;
const MAX_QUIET_DURING_FLOOD = 400;

export interface FairnessResult {
  /** The quiet portal's put -> arrival, alone. */
  aloneMs: number[];
  /** The same, while the flood drained. */
  duringFloodMs: number[];
  /** The flood's first PutEvents to its last body at an endpoint. */
  floodDrainMs: number;
  floodEvents: number;
  /** For each quiet event during the flood, the flood's bodies (of floodEvents x 8) at the endpoint before its own. */
  floodArrivedBefore: number[];
}

async function main(): Promise<void> {
  const [floodEvents, quietAlone, resultPath] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]!];
  const waiting = new Map<string, (at: number, floodArrivedBefore: number) => void>();
  let floodArrived = 0;
  let floodLastAt = 0;

  const local = await startTestStack();
  const { stack } = local;
  // The endpoints' process trusts the emulator's authority: its SubscribeURLs are https.
  const endpoint = fork(fileURLToPath(new URL('./fairness-endpoint.ts', import.meta.url)), [TEST_CLIENTS.alphaAdmin.portalId], {
    execArgv: ['--import', 'tsx'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_EXTRA_CA_CERTS: stack.sns.certificateAuthority.file },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // Its times are since the epoch; this process's, since its own start.
  const here = (at: number) => at - performance.timeOrigin;
  const port = await new Promise<number>((resolve, reject) => {
    // The stack stopped if the endpoints' process does not start.
    const failed = (error: Error) => void local.stop().finally(() => reject(error));
    endpoint.once('exit', (code) => failed(new Error(`the endpoints' process exited ${code}`)));
    endpoint.on('message', (report: EndpointReport) => {
      if (report.kind === 'listening') resolve(report.port);
      else if (report.kind === 'flood') [floodArrived, floodLastAt] = [report.arrived, here(report.lastAt)];
      else waiting.get(report.marker)?.(here(report.at), report.floodArrivedBefore);
    });
  });
  const endpointUrl = `http://127.0.0.1:${port}`;
  const bus = new EventBridgeClient({ endpoint: stack.events.endpoint, region: stack.region, credentials: LOCAL_CREDENTIALS });
  const put = async (entries: PutEventsRequestEntry[]) => {
    const answer = await bus.send(new PutEventsCommand({ Entries: entries }));
    if (answer.FailedEntryCount) throw new Error(`PutEvents refused entries: ${JSON.stringify(answer.Entries)}`);
  };
  const entryOf = (portalId: string, data: Record<string, unknown>): PutEventsRequestEntry => ({
    EventBusName: stack.eventBusName,
    Source: 'portal.events',
    DetailType: KIND,
    Detail: JSON.stringify({ portalId, ...data }),
  });
  try {
    await subscribeAll(stack, TEST_CLIENTS.alphaAdmin, FLOODING_SUBSCRIPTIONS, endpointUrl);
    await subscribeAll(stack, TEST_CLIENTS.betaAdmin, 1, endpointUrl);

    let markers = 0;
    /** One quiet event: put -> body at the endpoint, and the flood's bodies that came before it. */
    const timeQuiet = async (): Promise<{ ms: number; floodArrivedBefore: number }> => {
      const marker = `q${++markers}`;
      const arrived = new Promise<[number, number]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`quiet event ${marker} did not arrive within ${ARRIVAL_TIMEOUT_MS} ms`)), ARRIVAL_TIMEOUT_MS);
        waiting.set(marker, (at, before) => {
          clearTimeout(timer);
          waiting.delete(marker);
          resolve([at, before]);
        });
      });
      const sent = performance.now();
      await put([entryOf(TEST_CLIENTS.betaAdmin.portalId, { marker })]);
      const [at, floodArrivedBefore] = await arrived;
      return { ms: at - sent, floodArrivedBefore };
    };

    // Warm the path first, then the quiet portal alone.
    for (let n = 0; n < 5; n++) await timeQuiet();
    const aloneMs: number[] = [];
    for (let n = 0; n < quietAlone; n++) aloneMs.push((await timeQuiet()).ms);

    // The flood, put in batches of ten by a few senders at once.
    const floodStart = performance.now();
    let nextBatch = 0;
    const batches = Math.ceil(floodEvents / 10);
    const sender = async () => {
      for (let batch = nextBatch++; batch < batches; batch = nextBatch++) {
        const count = Math.min(10, floodEvents - batch * 10);
        await put(Array.from({ length: count }, (_, n) => entryOf(TEST_CLIENTS.alphaAdmin.portalId, { mediaId: `m-${batch * 10 + n}` })));
      }
    };
    const flooding = Promise.all(Array.from({ length: FLOOD_SENDERS }, sender));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const expected = floodEvents * FLOODING_SUBSCRIPTIONS;
    const duringFloodMs: number[] = [];
    const floodArrivedBefore: number[] = [];
    while (floodArrived < expected && duringFloodMs.length < MAX_QUIET_DURING_FLOOD) {
      const quiet = await timeQuiet();
      duringFloodMs.push(quiet.ms);
      floodArrivedBefore.push(quiet.floodArrivedBefore);
      await new Promise((resolve) => setTimeout(resolve, QUIET_GAP_MS));
    }
    await flooding;
    for (const deadline = Date.now() + ARRIVAL_TIMEOUT_MS; floodArrived < expected && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
    if (floodArrived < expected) throw new Error(`the flood did not drain: ${floodArrived} of ${expected} bodies arrived`);
    const result: FairnessResult = { aloneMs, duringFloodMs, floodDrainMs: floodLastAt - floodStart, floodEvents, floodArrivedBefore };
    writeFileSync(resultPath, JSON.stringify(result));
  } finally {
    bus.destroy();
    await local.stop();
    endpoint.kill();
  }
}

/** `count` confirmed http subscriptions of the client's portal to the endpoint. */
async function subscribeAll(stack: Parameters<typeof call>[0], client: OAuthClient, count: number, endpointUrl: string): Promise<void> {
  const token = await tokenFor(stack, client);
  for (let n = 0; n < count; n++) {
    const created = await call(stack, 'POST', API_PREFIXES[0], {
      token,
      body: { name: `fairness ${n}`, protocol: 'http', endpoint: `${endpointUrl}/${client.portalId}/${n}`, events: [KIND] },
    });
    if (created.status !== 200) throw new Error(`create answered ${created.status}: ${created.text}`);
  }
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const listed = await call(stack, 'GET', `${API_PREFIXES[0]}/list`, { token });
    // A 429 (the portal's read budget, spent by this very polling) is asked again.
    if (listed.status !== 200) continue;
    if ((listed.body.configs as { confirmed?: boolean }[]).filter((entry) => entry.confirmed === true).length >= count) return;
  }
  throw new Error(`${client.portalId}'s subscriptions: not confirmed within 30 s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
