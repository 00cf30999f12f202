/**
 * The SNS emulator a suite of test/local/sns-emulator.delivery.test.ts,
 * sns-emulator.retries.test.ts and sns-emulator.dead-letters.test.ts delivers from, with retries within a test (backoff 50, 100,
 * 200 ms; a 1 s timeout), its log, and what those suites share: local receivers on 127.0.0.1 that
 * keep every request, topics, http subscriptions confirmed as their owner would, the messages the
 * emulator recorded and its dead letters as a developer reads them.
 *
 * `emulator` and `sns` are set by the beforeAll that startDeliveryEmulatorBeforeAll() adds to the
 * calling suite (each suite has its own copy of this module, and so its own emulator).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfirmSubscriptionCommand, CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { type RecordedDelivery, type SnsEmulator, type SnsEmulatorOptions, startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from './local-authority';
import { clientFor } from './sns-emulator-suite';
import { waitFor } from './wait-for';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, any> | undefined;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * An HTTP endpoint on 127.0.0.1 that keeps every request. `answer` decides the reply to the
 * n-th request (0-based); returning undefined leaves the request hanging.
 */
export async function startReceiver(answer: (n: number, request: Received) => number | undefined = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((request, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, any> | undefined;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const entry = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, json };
      received.push(entry);
      const status = answer(received.length - 1, entry);
      if (status !== undefined) response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

export const logLines: string[] = [];
export let emulator: SnsEmulator;
export let sns: SNSClient;
const receivers: Receiver[] = [];
/** How many topics newTopic made, the last one's number (for a name of a test's own). */
export let topicCount = 0;

/** The timeout of this suite's emulator: SNS's 15 s would make every hanging endpoint a 15 s test. */
export const TIMEOUT_MS = 1_000;
export const DEAD_LETTER_QUEUE = 'arn:aws:sqs:us-east-1:000000000000:dead-letters';

/** Starts the suite's emulator before its tests; closes it and the receivers the tests started after. */
export function startDeliveryEmulatorBeforeAll(): void {
  beforeAll(async () => {
    // Short backoff so retries happen within a test: 50, 100, 200 ms.
    emulator = await startSnsEmulator({ deliveryRetries: 3, deliveryBackoffMs: 50, deliveryTimeoutMs: TIMEOUT_MS, log: (line) => logLines.push(line) });
    trustAuthorityOf(emulator);
    sns = clientFor(emulator);
  });

  afterAll(async () => {
    sns.destroy();
    await emulator.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });
}

/** An emulator of the test's own (closed by `use`), with a client and its log. */
export async function withOwnEmulator(
  options: SnsEmulatorOptions,
  use: (own: { emulator: SnsEmulator; client: SNSClient; log: string[] }) => Promise<void>,
): Promise<void> {
  const log: string[] = [];
  const own = await startSnsEmulator({ ...options, log: (line) => log.push(line) });
  trustAuthorityOf(own);
  const client = clientFor(own);
  try {
    await use({ emulator: own, client, log });
  } finally {
    client.destroy();
    await own.close();
  }
}

export async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

export async function newTopic(client = sns): Promise<string> {
  const { TopicArn } = await client.send(new CreateTopicCommand({ Name: `delivery-${++topicCount}` }));
  return TopicArn!;
}

export async function subscribeHttp(topicArn: string, endpoint: string, client = sns, attributes?: Record<string, string>): Promise<string> {
  const { SubscriptionArn } = await client.send(
    new SubscribeCommand({ TopicArn: topicArn, Protocol: 'http', Endpoint: endpoint, ReturnSubscriptionArn: true, Attributes: attributes }),
  );
  return SubscriptionArn!;
}

export function ofType(target: Receiver, type: string): Received[] {
  return target.received.filter((request) => request.headers['x-amz-sns-message-type'] === type);
}

/** Subscribes the receiver at /hook and confirms with the token of the confirmation it got. */
export async function confirmedSubscription(target: Receiver, topicArn: string, client = sns, attributes?: Record<string, string>): Promise<string> {
  const subscriptionArn = await subscribeHttp(topicArn, `${target.url}/hook`, client, attributes);
  const confirmation = await waitFor('the confirmation', () =>
    ofType(target, 'SubscriptionConfirmation').find((request) => request.json?.TopicArn === topicArn),
  );
  await client.send(new ConfirmSubscriptionCommand({ TopicArn: topicArn, Token: confirmation.json!.Token }));
  return subscriptionArn;
}

export async function recorded(): Promise<RecordedDelivery[]> {
  const response = await fetch(`${emulator.endpoint}/_emulator/deliveries`);
  return ((await response.json()) as { deliveries: RecordedDelivery[] }).deliveries;
}

export interface DeadLetterListing {
  deadLetters: { subscriptionArn: string; messageId: string; reason: string; attempts: number; deadLetterTargetArn: string; body: string }[];
  overflow: { subscriptionArn: string; deadLetterTargetArn: string; notKept: number }[];
}

/** GET /_emulator/dead-letters, as a developer reads it. */
export async function deadLetterListing(target = emulator): Promise<DeadLetterListing> {
  const response = await fetch(`${target.endpoint}/_emulator/dead-letters`, { signal: AbortSignal.timeout(5_000) });
  return (await response.json()) as DeadLetterListing;
}

export const REDRIVE = { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DEAD_LETTER_QUEUE }) };

/** Resolves after `ms`: long enough for a retry that should not come to have come. */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

