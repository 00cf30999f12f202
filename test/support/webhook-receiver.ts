/**
 * A webhook receiver on 127.0.0.1, as an integrator runs one: it takes SNS's HTTP POSTs on any
 * path, confirms subscriptions by visiting SubscribeURL (unless told not to for a path), and
 * keeps what arrived. A path can be made to answer 500 (or any status) or to answer late, to
 * see what SNS does then.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedMessage {
  path: string;
  headers: IncomingHttpHeaders;
  /** SNS's JSON envelope (Type, MessageId, Message, MessageAttributes...). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- SNS message JSON
  envelope: any;
  /** For notifications: the service's message, parsed from Message. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the delivery message JSON
  message: any;
  /** When the request's body had arrived (Unix ms, the receiver's clock). */
  arrivedAt: number;
}

export interface WebhookReceiver {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Every POST that arrived, in order (including those answered 500). */
  readonly received: ReceivedMessage[];
  /** Notifications that arrived at `path` (answered 2xx or not). */
  notificationsAt(path: string): ReceivedMessage[];
  /** Paths whose SubscriptionConfirmation is kept but not confirmed. */
  readonly unconfirmedPaths: Set<string>;
  /** Paths that answer 500 to everything but the confirmation. */
  readonly failingPaths: Set<string>;
  /** Paths that answer this status to everything but the confirmation. */
  readonly statusOf: Map<string, number>;
  /** Paths that answer 200 to test events (`webhooks.test`) only, and 500 to every other notification. */
  readonly testsOnlyPaths: Set<string>;
  /** Paths that answer everything but the confirmation only after this many milliseconds. */
  readonly delayOf: Map<string, number>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedMessage[] = [];
  const unconfirmedPaths = new Set<string>();
  const failingPaths = new Set<string>();
  const statusOf = new Map<string, number>();
  const testsOnlyPaths = new Set<string>();
  const delayOf = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const path = request.url ?? '';
      let envelope: { Type?: string; Message?: string; SubscribeURL?: string } = {};
      try {
        envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // kept as an empty envelope: the test sees it arrived
      }
      let message: unknown;
      try {
        message = envelope.Type === 'Notification' ? JSON.parse(envelope.Message ?? '') : undefined;
      } catch {
        message = envelope.Message;
      }
      received.push({ path, headers: request.headers, envelope, message, arrivedAt: Date.now() });
      if (envelope.Type === 'SubscriptionConfirmation') {
        if (!unconfirmedPaths.has(path) && envelope.SubscribeURL) {
          await fetch(envelope.SubscribeURL, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
        }
        response.writeHead(200).end();
        return;
      }
      const testEvent = (message as { event?: unknown } | undefined)?.event === 'webhooks.test';
      const status = statusOf.get(path) ?? (failingPaths.has(path) || (testsOnlyPaths.has(path) && !testEvent) ? 500 : 200);
      const delay = delayOf.get(path);
      if (delay === undefined) {
        response.writeHead(status).end();
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!response.destroyed) response.writeHead(status).end();
      }, delay);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    unconfirmedPaths,
    failingPaths,
    statusOf,
    testsOnlyPaths,
    delayOf,
    notificationsAt: (path) => received.filter((entry) => entry.path === path && entry.envelope.Type === 'Notification'),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
