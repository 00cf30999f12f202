/**
 * The fairness row's endpoints, in a process of their own (started by ./fairness-run.ts): on AWS
 * the receiver is another machine, and here, sharing the one event loop of the local stack, each
 * body waited its turn behind the stack's own work before it was even accepted. Every
 * subscription's endpoint is a path of this one server; it confirms subscriptions, counts the
 * flooding portal's bodies and tells its parent, over IPC, when each quiet event's body came.
 *
 *   fairness-endpoint.ts <flooding portal id>
 *
 * Times are `performance.timeOrigin + performance.now()`: milliseconds since the epoch, comparable
 * across processes of one machine.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** What the endpoint tells its parent. */
export type EndpointReport =
  | { kind: 'listening'; port: number }
  /** A quiet event's body arrived; with how many of the flood's had arrived before it. */
  | { kind: 'quiet'; marker: string; at: number; floodArrivedBefore: number }
  /** The flood's bodies so far, and when the last came. */
  | { kind: 'flood'; arrived: number; lastAt: number };

/** How often the flood's count is reported, at most. */
const FLOOD_REPORT_MS = 50;

const floodingPortal = process.argv[2]!;
const report = (message: EndpointReport) => process.send?.(message);
let floodArrived = 0;
let floodLastAt = 0;
let reported = 0;

const server = createServer((incoming, response) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    response.end();
    const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Type: string; SubscribeURL?: string; Message?: string };
    if (envelope.Type === 'SubscriptionConfirmation') {
      void fetch(envelope.SubscribeURL!, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
      return;
    }
    if (envelope.Type !== 'Notification') return;
    const message = JSON.parse(envelope.Message!) as { portalId: string; data: { marker?: string } };
    if (message.portalId === floodingPortal) {
      floodArrived++;
      floodLastAt = at;
    } else if (message.data.marker) report({ kind: 'quiet', marker: message.data.marker, at, floodArrivedBefore: floodArrived });
  });
});
setInterval(() => {
  if (floodArrived === reported) return;
  reported = floodArrived;
  report({ kind: 'flood', arrived: floodArrived, lastAt: floodLastAt });
}, FLOOD_REPORT_MS).unref();
// The parent gone, so is this process.
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => report({ kind: 'listening', port: (server.address() as AddressInfo).port }));
