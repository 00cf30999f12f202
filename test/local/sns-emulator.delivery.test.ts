/**
 * The SNS emulator delivering to http endpoints the way SNS does: a SubscriptionConfirmation
 * first, Notifications only once confirmed, an UnsubscribeConfirmation once unsubscribed, each
 * signed (verified as test/support/sns-signature.ts does), SNS's JSON and x-amz-sns-* headers, a
 * status read as SNS reads it (2xx delivered; 3xx/4xx never retried and dead-lettered; 5xx, no
 * connection or no answer within 15 s retried by the delivery policy, then dead-lettered), limits
 * per subscription that end in dead letters rather than silence, deliveries still pending at
 * close kept in the state file and resumed, and an API that keeps answering whatever the
 * endpoints do.
 * The endpoints are local receivers on 127.0.0.1.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../infra/local/free-port';
import { waitFor } from '../support/wait-for';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConfirmSubscriptionCommand,
  CreateTopicCommand,
  DeleteTopicCommand,
  GetSubscriptionAttributesCommand,
  ListTopicsCommand,
  PublishCommand,
  SetSubscriptionAttributesCommand,
  SNSClient,
  SubscribeCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import { type RecordedDelivery, type SnsEmulator, type SnsEmulatorOptions, startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import { snsSignatureVerifies } from '../support/sns-signature';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, any> | undefined;
}

interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * An HTTP endpoint on 127.0.0.1 that keeps every request. `answer` decides the reply to the
 * n-th request (0-based); returning undefined leaves the request hanging.
 */
async function startReceiver(answer: (n: number, request: Received) => number | undefined = () => 200): Promise<Receiver> {
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

const logLines: string[] = [];
let emulator: SnsEmulator;
let sns: SNSClient;
const receivers: Receiver[] = [];
let topicCount = 0;

/** The timeout of this suite's emulator: SNS's 15 s would make every hanging endpoint a 15 s test. */
const TIMEOUT_MS = 1_000;
const DEAD_LETTER_QUEUE = 'arn:aws:sqs:us-east-1:000000000000:dead-letters';

function clientFor(target: SnsEmulator): SNSClient {
  return new SNSClient({
    endpoint: target.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

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

/** An emulator of the test's own (closed by `use`), with a client and its log. */
async function withOwnEmulator(
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

async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

async function newTopic(client = sns): Promise<string> {
  const { TopicArn } = await client.send(new CreateTopicCommand({ Name: `delivery-${++topicCount}` }));
  return TopicArn!;
}

async function subscribeHttp(topicArn: string, endpoint: string, client = sns, attributes?: Record<string, string>): Promise<string> {
  const { SubscriptionArn } = await client.send(
    new SubscribeCommand({ TopicArn: topicArn, Protocol: 'http', Endpoint: endpoint, ReturnSubscriptionArn: true, Attributes: attributes }),
  );
  return SubscriptionArn!;
}

function ofType(target: Receiver, type: string): Received[] {
  return target.received.filter((request) => request.headers['x-amz-sns-message-type'] === type);
}

/** Subscribes the receiver at /hook and confirms with the token of the confirmation it got. */
async function confirmedSubscription(target: Receiver, topicArn: string, client = sns, attributes?: Record<string, string>): Promise<string> {
  const subscriptionArn = await subscribeHttp(topicArn, `${target.url}/hook`, client, attributes);
  const confirmation = await waitFor('the confirmation', () =>
    ofType(target, 'SubscriptionConfirmation').find((request) => request.json?.TopicArn === topicArn),
  );
  await client.send(new ConfirmSubscriptionCommand({ TopicArn: topicArn, Token: confirmation.json!.Token }));
  return subscriptionArn;
}

async function recorded(): Promise<RecordedDelivery[]> {
  const response = await fetch(`${emulator.endpoint}/_emulator/deliveries`);
  return ((await response.json()) as { deliveries: RecordedDelivery[] }).deliveries;
}

interface DeadLetterListing {
  deadLetters: { subscriptionArn: string; messageId: string; reason: string; attempts: number; deadLetterTargetArn: string; body: string }[];
  overflow: { subscriptionArn: string; deadLetterTargetArn: string; notKept: number }[];
}

/** GET /_emulator/dead-letters, as a developer reads it. */
async function deadLetterListing(target = emulator): Promise<DeadLetterListing> {
  const response = await fetch(`${target.endpoint}/_emulator/dead-letters`, { signal: AbortSignal.timeout(5_000) });
  return (await response.json()) as DeadLetterListing;
}

const REDRIVE = { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DEAD_LETTER_QUEUE }) };

/** Resolves after `ms`: long enough for a retry that should not come to have come. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an http subscription', () => {
  it('gets a SubscriptionConfirmation, confirms by SubscribeURL, then gets Notifications, none before', async () => {
    const endpoint = await receiver();
    const topicArn = await newTopic();

    const subscriptionArn = await subscribeHttp(topicArn, `${endpoint.url}/sns/hook?source=test`);

    const confirmation = await waitFor('the confirmation', () => endpoint.received[0]);
    expect(confirmation.method).toBe('POST');
    expect(confirmation.path).toBe('/sns/hook?source=test');
    expect(confirmation.headers).toMatchObject({
      'x-amz-sns-message-type': 'SubscriptionConfirmation',
      'x-amz-sns-message-id': confirmation.json?.MessageId,
      'x-amz-sns-topic-arn': topicArn,
      'content-type': 'text/plain; charset=UTF-8',
    });
    expect(confirmation.json).toEqual({
      Type: 'SubscriptionConfirmation',
      MessageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      Token: expect.stringMatching(/^[0-9a-f]{64,}$/),
      TopicArn: topicArn,
      Message: expect.stringContaining(topicArn),
      SubscribeURL: expect.stringMatching(new RegExp(`^${emulator.httpsEndpoint}/\\?Action=ConfirmSubscription&TopicArn=`)),
      Timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      SignatureVersion: '1',
      Signature: expect.any(String),
      SigningCertURL: emulator.signingCertUrl,
    });
    expect(await snsSignatureVerifies(confirmation.json!)).toBe(true);
    const subscribeUrl = new URL(confirmation.json!.SubscribeURL);
    expect(subscribeUrl.searchParams.get('TopicArn')).toBe(topicArn);
    expect(subscribeUrl.searchParams.get('Token')).toBe(confirmation.json!.Token);

    // Published while still pending: SNS drops it for this subscriber.
    const early = await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'too early' }));

    const visit = await fetch(confirmation.json!.SubscribeURL);
    expect(visit.status).toBe(200);
    expect(await visit.text()).toContain(`<SubscriptionArn>${subscriptionArn}</SubscriptionArn>`);
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
    expect(Attributes?.PendingConfirmation).toBe('false');

    const { MessageId } = await sns.send(
      new PublishCommand({
        TopicArn: topicArn,
        Message: '{"event":"asset_bank.media.create"}',
        Subject: 'Media created',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'asset_bank.media.create' } },
      }),
    );

    const notification = await waitFor('the notification', () => ofType(endpoint, 'Notification')[0]);
    expect(notification.method).toBe('POST');
    expect(notification.headers).toMatchObject({
      'x-amz-sns-message-type': 'Notification',
      'x-amz-sns-message-id': MessageId,
      'x-amz-sns-topic-arn': topicArn,
      'x-amz-sns-subscription-arn': subscriptionArn,
      'content-type': 'text/plain; charset=UTF-8',
    });
    expect(notification.json).toEqual({
      Type: 'Notification',
      MessageId,
      TopicArn: topicArn,
      Subject: 'Media created',
      Message: '{"event":"asset_bank.media.create"}',
      Timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      SignatureVersion: '1',
      Signature: expect.any(String),
      SigningCertURL: emulator.signingCertUrl,
      UnsubscribeURL: `${emulator.httpsEndpoint}/?Action=Unsubscribe&SubscriptionArn=${subscriptionArn}`,
      MessageAttributes: { kind: { Type: 'String', Value: 'asset_bank.media.create' } },
    });
    expect(await snsSignatureVerifies(notification.json!)).toBe(true);
    // The message published before confirmation never came, and was never handed over.
    expect(endpoint.received.map((request) => request.headers['x-amz-sns-message-type'])).toEqual([
      'SubscriptionConfirmation',
      'Notification',
    ]);
    expect((await recorded()).some((delivery) => delivery.messageId === early.MessageId)).toBe(false);
  });

  it('gets the bare message with RawMessageDelivery, and no Subject field when none was given', async () => {
    const endpoint = await receiver();
    const topicArn = await newTopic();
    const subscriptionArn = await confirmedSubscription(endpoint, topicArn);

    await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'enveloped' }));
    const enveloped = await waitFor('the enveloped notification', () => ofType(endpoint, 'Notification')[0]);
    expect(enveloped.json?.Message).toBe('enveloped');
    expect(enveloped.json).not.toHaveProperty('Subject');
    expect(enveloped.json).not.toHaveProperty('MessageAttributes');

    await sns.send(
      new SetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn, AttributeName: 'RawMessageDelivery', AttributeValue: 'true' }),
    );
    const { MessageId } = await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'raw body' }));
    const raw = await waitFor('the raw notification', () => ofType(endpoint, 'Notification')[1]);
    expect(raw.body).toBe('raw body');
    expect(raw.headers).toMatchObject({ 'x-amz-sns-message-id': MessageId, 'x-amz-sns-subscription-arn': subscriptionArn });
  });
  it('gets a signed UnsubscribeConfirmation once unsubscribed (by its UnsubscribeURL or the API), and nothing after', async () => {
    for (const how of ['UnsubscribeURL', 'Unsubscribe'] as const) {
      const endpoint = await receiver();
      const topicArn = await newTopic();
      const subscriptionArn = await confirmedSubscription(endpoint, topicArn);
      await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'before' }));
      const notification = await waitFor('the notification', () => ofType(endpoint, 'Notification')[0]);

      if (how === 'UnsubscribeURL') expect((await fetch(notification.json!.UnsubscribeURL)).status).toBe(200);
      else await sns.send(new UnsubscribeCommand({ SubscriptionArn: subscriptionArn }));

      const goodbye = await waitFor('the unsubscribe confirmation', () => ofType(endpoint, 'UnsubscribeConfirmation')[0]);
      expect(goodbye.headers).toMatchObject({ 'x-amz-sns-topic-arn': topicArn, 'x-amz-sns-subscription-arn': subscriptionArn });
      expect(goodbye.json).toEqual({
        Type: 'UnsubscribeConfirmation',
        MessageId: goodbye.headers['x-amz-sns-message-id'],
        Token: expect.stringMatching(/^[0-9a-f]{64,}$/),
        TopicArn: topicArn,
        Message: `You have chosen to deactivate subscription ${subscriptionArn}.\nTo cancel this operation and restore the subscription, visit the SubscribeURL included in this message.`,
        SubscribeURL: expect.stringMatching(new RegExp(`^${emulator.httpsEndpoint}/\\?Action=ConfirmSubscription&TopicArn=`)),
        Timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        SignatureVersion: '1',
        Signature: expect.any(String),
        SigningCertURL: emulator.signingCertUrl,
      });
      expect(await snsSignatureVerifies(goodbye.json!)).toBe(true);
      await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'after' }));
      expect((await recorded()).filter((delivery) => delivery.subscriptionArn === subscriptionArn).map((delivery) => delivery.type)).toEqual([
        'SubscriptionConfirmation',
        'Notification',
        'UnsubscribeConfirmation',
      ]);
    }
  });
});

describe('a failing endpoint', () => {
  it('is retried with the same MessageId until it answers 2xx', async () => {
    let notifications = 0;
    const endpoint = await receiver((_n, request) => {
      if (request.headers['x-amz-sns-message-type'] !== 'Notification') return 200;
      notifications++;
      return notifications <= 2 ? 500 : 200;
    });
    const topicArn = await newTopic();
    await confirmedSubscription(endpoint, topicArn);

    const { MessageId } = await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'persistent' }));

    const attempts = await waitFor('the third attempt', () => {
      const seen = ofType(endpoint, 'Notification');
      return seen.length >= 3 ? seen : undefined;
    });
    expect(attempts.map((attempt) => attempt.headers['x-amz-sns-message-id'])).toEqual([MessageId, MessageId, MessageId]);
    expect(attempts.every((attempt) => attempt.json?.Message === 'persistent')).toBe(true);
    await waitFor('the delivery to be logged', () => logLines.find((line) => line.startsWith(`delivered Notification ${MessageId}`)));
  });

  it('is given up after the configured retries when it never recovers', async () => {
    const endpoint = await receiver(() => 503);
    const topicArn = await newTopic();
    const subscriptionArn = await subscribeHttp(topicArn, `${endpoint.url}/down`);

    const gaveUp = await waitFor('giving up', () => logLines.find((line) => line.startsWith('gave up on SubscriptionConfirmation') && line.includes(`${endpoint.url}/down`)));
    expect(gaveUp).toContain('after 4 attempt(s): HTTP 503');
    expect(endpoint.received).toHaveLength(4);
    expect(subscriptionArn).toContain(topicArn);
  });

  it('is not retried when it refuses the message with a 4xx, as SNS does', async () => {
    const endpoint = await receiver(() => 404);
    const topicArn = await newTopic();
    await subscribeHttp(topicArn, `${endpoint.url}/missing`);

    const gaveUp = await waitFor('giving up', () => logLines.find((line) => line.startsWith('gave up') && line.includes(`${endpoint.url}/missing`)));
    expect(gaveUp).toContain('after 1 attempt(s): HTTP 404');
    expect(endpoint.received).toHaveLength(1);
  });

  it('that is down (connection refused) does not disturb the emulator', async () => {
    const topicArn = await newTopic();
    const deadUrl = `http://127.0.0.1:${await freePort()}/gone`;

    const started = Date.now();
    const subscriptionArn = await subscribeHttp(topicArn, deadUrl);
    expect(Date.now() - started).toBeLessThan(2_000);

    const { Topics } = await sns.send(new ListTopicsCommand({}));
    expect(Topics?.map((topic) => topic.TopicArn)).toContain(topicArn);
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
    expect(Attributes?.PendingConfirmation).toBe('true');
    const gaveUp = await waitFor('giving up', () => logLines.find((line) => line.startsWith('gave up') && line.includes(deadUrl)));
    expect(gaveUp).toMatch(/after 4 attempt\(s\)/);
    // Still answering afterwards.
    await expect(sns.send(new CreateTopicCommand({ Name: 'still-alive' }))).resolves.toHaveProperty('TopicArn');
  });

  it('says plainly, in one line per attempt, that an endpoint it cannot reach will be tried again', async () => {
    const topicArn = await newTopic();
    const refusedUrl = `http://127.0.0.1:${await freePort()}/refused`;
    const unresolvedUrl = 'http://hooks.example.invalid/unresolved';
    await subscribeHttp(topicArn, refusedUrl);
    await subscribeHttp(topicArn, unresolvedUrl);

    for (const url of [refusedUrl, unresolvedUrl]) await waitFor('giving up', () => logLines.find((line) => line.startsWith('gave up') && line.includes(url)));

    const lines = logLines.filter((line) => line.includes(refusedUrl) || line.includes(unresolvedUrl));
    const port = new URL(refusedUrl).port;
    expect(lines.filter((line) => line.includes(refusedUrl) && line.startsWith('retrying'))).toEqual(
      [1, 2, 3].map((attempt) =>
        expect.stringMatching(new RegExp(`^retrying SubscriptionConfirmation \\S+ to ${refusedUrl} in \\d+ ms: attempt ${attempt} of 4 failed, nothing listens at 127\\.0\\.0\\.1:${port} \\(connection refused\\)$`)),
      ),
    );
    expect(lines.filter((line) => line.includes(unresolvedUrl) && line.startsWith('retrying'))).toEqual(
      [1, 2, 3].map((attempt) => expect.stringMatching(new RegExp(`: attempt ${attempt} of 4 failed, its host hooks\\.example\\.invalid does not resolve$`))),
    );
    expect(lines.filter((line) => /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo|\n|^\s+at |Error:/.test(line))).toEqual([]);
  });

  it.each([
    ['an Unsubscribe', (_topicArn: string, subscriptionArn: string) => new UnsubscribeCommand({ SubscriptionArn: subscriptionArn })],
    ['a DeleteTopic of its topic', (topicArn: string) => new DeleteTopicCommand({ TopicArn: topicArn })],
  ])('is not retried after %s, as SNS does', async (_case, removal) => {
    // The first attempt hangs until the emulator's timeout, long after the removal below.
    const endpoint = await receiver((n) => (n === 0 ? undefined : 500));
    const topicArn = await newTopic();
    const url = `${endpoint.url}/removed-${topicCount}`;
    const subscriptionArn = await subscribeHttp(topicArn, url);
    await waitFor('the first attempt', () => ofType(endpoint, 'SubscriptionConfirmation')[0]);

    await sns.send(removal(topicArn, subscriptionArn) as UnsubscribeCommand);

    const dropped = await waitFor('the retry to be dropped', () =>
      logLines.find((line) => line.startsWith('dropped SubscriptionConfirmation') && line.includes(url)),
    );
    expect(dropped).toMatch(/its subscription no longer exists$/);
    // Dropped before its second attempt, and never given up on: nothing more is sent.
    expect(endpoint.received).toHaveLength(1);
    expect(logLines.filter((line) => line.includes(url) && /^(retrying|gave up)/.test(line))).toEqual([
      expect.stringMatching(new RegExp(`^retrying .*no answer within ${TIMEOUT_MS} ms$`)),
    ]);
  });

  it('that answers only after the timeout is retried, and the retry delivers the same message', async () => {
    let notifications = 0;
    const slow = await receiver((_n, request) => {
      if (request.headers['x-amz-sns-message-type'] !== 'Notification') return 200;
      // The first attempt is left hanging past the timeout; the second is answered.
      return ++notifications === 1 ? undefined : 200;
    });
    const topicArn = await newTopic();
    await confirmedSubscription(slow, topicArn);

    const started = Date.now();
    const { MessageId } = await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'late' }));

    await waitFor('the delivery', () => logLines.find((line) => line.startsWith(`delivered Notification ${MessageId}`)), 10_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(ofType(slow, 'Notification').map((request) => request.json?.MessageId)).toEqual([MessageId, MessageId]);
    expect(logLines.filter((line) => line.includes(MessageId!) && line.startsWith('retrying'))).toEqual([
      expect.stringMatching(new RegExp(`no answer within ${TIMEOUT_MS} ms$`)),
    ]);
  });

  it("gives an endpoint SNS's 15 seconds by default before it retries", async () => {
    const hanging = await receiver(() => undefined);
    await withOwnEmulator({ deliveryBackoffMs: 50 }, async ({ client, log }) => {
      const topicArn = await newTopic(client);
      const started = Date.now();
      await subscribeHttp(topicArn, `${hanging.url}/default-timeout`, client);
      await waitFor('the first attempt', () => hanging.received.find((request) => request.path === '/default-timeout'));

      await pause(14_000);
      expect(log.filter((line) => line.startsWith('retrying'))).toEqual([]);
      const retrying = await waitFor('the timeout', () => log.find((line) => line.startsWith('retrying')), 4_000);
      expect(retrying).toMatch(/no answer within 15000 ms$/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(15_000);
    });
  }, 30_000);

  it('that never answers blocks nothing, and close() cuts it off at once', async () => {
    const hanging = await receiver(() => undefined);
    const own = await startSnsEmulator({ deliveryRetries: 3, deliveryBackoffMs: 50 });
    trustAuthorityOf(own);
    const client = new SNSClient({
      endpoint: own.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    try {
      const { TopicArn } = await client.send(new CreateTopicCommand({ Name: 'slow' }));
      const started = Date.now();
      await client.send(new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: `${hanging.url}/slow` }));
      await waitFor('the hanging request', () => hanging.received[0]);
      await client.send(new PublishCommand({ TopicArn, Message: 'while the endpoint hangs' }));
      await client.send(new ListTopicsCommand({}));
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      client.destroy();
      const closing = Date.now();
      await own.close();
      expect(Date.now() - closing).toBeLessThan(2_000);
    }
  });
});

describe('an answer, read as SNS reads it', () => {
  it.each([404, 429])('%i to a notification: one attempt, never retried, and the message is dead-lettered', async (status) => {
    const refusing = await receiver((_n, request) => (request.headers['x-amz-sns-message-type'] === 'Notification' ? status : 200));
    const topicArn = await newTopic();
    const subscriptionArn = await confirmedSubscription(refusing, topicArn, sns, REDRIVE);

    const { MessageId } = await sns.send(new PublishCommand({ TopicArn: topicArn, Message: `refused with ${status}` }));

    const letter = await waitFor('the dead letter', async () =>
      (await deadLetterListing()).deadLetters.find((entry) => entry.messageId === MessageId),
    );
    expect(letter).toMatchObject({ subscriptionArn, deadLetterTargetArn: DEAD_LETTER_QUEUE, attempts: 1, reason: `HTTP ${status}` });
    expect(JSON.parse(letter.body)).toMatchObject({ Type: 'Notification', MessageId, Message: `refused with ${status}` });
    // Longer than the backoff before a first retry (50 ms): none came.
    await pause(500);
    expect(ofType(refusing, 'Notification')).toHaveLength(1);
  });

  it('500 to a notification: retried as its delivery policy says, then dead-lettered', async () => {
    const failing = await receiver((_n, request) => (request.headers['x-amz-sns-message-type'] === 'Notification' ? 500 : 200));
    const topicArn = await newTopic();
    const subscriptionArn = await confirmedSubscription(failing, topicArn, sns, {
      ...REDRIVE,
      DeliveryPolicy: JSON.stringify({ healthyRetryPolicy: { numRetries: 2 } }),
    });

    const { MessageId } = await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'failing' }));

    const letter = await waitFor('the dead letter', async () =>
      (await deadLetterListing()).deadLetters.find((entry) => entry.messageId === MessageId),
    );
    expect(letter).toMatchObject({ subscriptionArn, attempts: 3, reason: 'HTTP 500' });
    expect(ofType(failing, 'Notification').map((request) => request.json?.MessageId)).toEqual([MessageId, MessageId, MessageId]);
  });
});

describe('limits per subscription', () => {
  it('past its pending limit a subscription dead-letters what comes in, and another subscription of the topic gets everything', async () => {
    const hanging = await receiver((_n, request) => (request.headers['x-amz-sns-message-type'] === 'Notification' ? undefined : 200));
    const healthy = await receiver();
    await withOwnEmulator({ limits: { pendingPerSubscription: 5 }, deliveryTimeoutMs: 10_000 }, async ({ emulator: own, client }) => {
      const topicArn = await newTopic(client);
      const stuck = await confirmedSubscription(hanging, topicArn, client, REDRIVE);
      await confirmedSubscription(healthy, topicArn, client, REDRIVE);

      const published: string[] = [];
      for (let n = 0; n < 8; n++) {
        published.push((await client.send(new PublishCommand({ TopicArn: topicArn, Message: `message ${n}` }))).MessageId!);
      }

      await waitFor('all eight at the healthy endpoint', () => (ofType(healthy, 'Notification').length === 8 ? true : undefined));
      expect(ofType(healthy, 'Notification').map((request) => request.json?.MessageId)).toEqual(published);
      const { deadLetters } = await deadLetterListing(own);
      expect(deadLetters.map((letter) => letter.messageId)).toEqual(published.slice(5));
      for (const letter of deadLetters) {
        expect(letter).toMatchObject({ subscriptionArn: stuck, attempts: 0, reason: expect.stringContaining('limit of 5 pending deliveries') });
      }
      expect(ofType(hanging, 'Notification').map((request) => request.json?.MessageId)).toEqual(published.slice(0, 5));
    });
  });

  it('keeps the latest dead letters of each subscription up to its share and reports how many more there were', async () => {
    const refusing = await receiver((_n, request) => (request.headers['x-amz-sns-message-type'] === 'Notification' ? 410 : 200));
    await withOwnEmulator({ limits: { deadLettersPerSubscription: 3 } }, async ({ emulator: own, client }) => {
      const busyTopic = await newTopic(client);
      const quietTopic = await newTopic(client);
      const busy = await confirmedSubscription(refusing, busyTopic, client, REDRIVE);
      const quiet = await confirmedSubscription(refusing, quietTopic, client, REDRIVE);

      const quietIds = [(await client.send(new PublishCommand({ TopicArn: quietTopic, Message: 'quiet' }))).MessageId!];
      await waitFor('the quiet dead letter', async () => ((await deadLetterListing(own)).deadLetters.length === 1 ? true : undefined));
      const busyIds: string[] = [];
      for (let n = 0; n < 5; n++) {
        busyIds.push((await client.send(new PublishCommand({ TopicArn: busyTopic, Message: `busy ${n}` }))).MessageId!);
        // One at a time, so "the latest" is well defined.
        await waitFor(`busy dead letter ${n}`, async () =>
          (await deadLetterListing(own)).deadLetters.some((letter) => letter.messageId === busyIds[n]) ? true : undefined,
        );
      }

      const listing = await deadLetterListing(own);
      expect(listing.deadLetters.filter((letter) => letter.subscriptionArn === quiet).map((letter) => letter.messageId)).toEqual(quietIds);
      expect(listing.deadLetters.filter((letter) => letter.subscriptionArn === busy).map((letter) => letter.messageId)).toEqual(
        busyIds.slice(2),
      );
      expect(listing.overflow).toEqual([{ subscriptionArn: busy, deadLetterTargetArn: DEAD_LETTER_QUEUE, notKept: 2 }]);
    });
  });
});

describe('a stop', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'sns-emulator-delivery-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps the deliveries still pending in the state file, and the next start delivers them', async () => {
    let down = true;
    const flaky = await receiver((_n, request) => (request.headers['x-amz-sns-message-type'] === 'Notification' && down ? 503 : 200));
    const stateFile = join(directory, 'sns.json');
    // A minute's backoff: the retry is still waiting when the emulator stops.
    const options = { stateFile, deliveryBackoffMs: 60_000 };
    let topicArn = '';
    let messageId = '';
    await withOwnEmulator(options, async ({ client, log }) => {
      topicArn = await newTopic(client);
      await confirmedSubscription(flaky, topicArn, client, REDRIVE);
      messageId = (await client.send(new PublishCommand({ TopicArn: topicArn, Message: 'kept across a stop' }))).MessageId!;
      await waitFor('the retry to be scheduled', () => log.find((line) => line.startsWith(`retrying Notification ${messageId}`)));
    });
    const saved = JSON.parse(await readFile(stateFile, 'utf8'));
    expect(saved.pendingDeliveries).toEqual([expect.objectContaining({ messageId, attempts: 1 })]);

    down = false;
    await withOwnEmulator(options, async ({ emulator: own, log }) => {
      expect(log).toContain('resuming 1 deliveries still pending at the last stop');
      await waitFor('the delivery', () => log.find((line) => line.startsWith(`delivered Notification ${messageId}`)));
      expect(ofType(flaky, 'Notification').map((request) => request.json?.Message)).toEqual(['kept across a stop', 'kept across a stop']);
      expect((await deadLetterListing(own)).deadLetters).toEqual([]);
    });
  });
});
