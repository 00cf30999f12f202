/**
 * The SNS emulator delivering to http endpoints the way SNS does: a SubscriptionConfirmation
 * first, Notifications only once confirmed, an UnsubscribeConfirmation once unsubscribed, each
 * signed (verified as test/support/sns-signature.ts does), SNS's JSON and x-amz-sns-* headers, retries with
 * backoff for failing endpoints, and an API that keeps answering whatever the endpoints do.
 * The endpoints are local receivers on 127.0.0.1.
 */
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
import { type RecordedDelivery, type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
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

beforeAll(async () => {
  // Short backoff so retries happen within a test: 50, 100, 200 ms.
  emulator = await startSnsEmulator({ deliveryRetries: 3, deliveryBackoffMs: 50, log: (line) => logLines.push(line) });
  sns = new SNSClient({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  sns.destroy();
  await emulator.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

async function newTopic(): Promise<string> {
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `delivery-${++topicCount}` }));
  return TopicArn!;
}

async function subscribeHttp(topicArn: string, endpoint: string): Promise<string> {
  const { SubscriptionArn } = await sns.send(
    new SubscribeCommand({ TopicArn: topicArn, Protocol: 'http', Endpoint: endpoint, ReturnSubscriptionArn: true }),
  );
  return SubscriptionArn!;
}

function ofType(target: Receiver, type: string): Received[] {
  return target.received.filter((request) => request.headers['x-amz-sns-message-type'] === type);
}

async function confirmedSubscription(target: Receiver, topicArn: string): Promise<string> {
  const subscriptionArn = await subscribeHttp(topicArn, `${target.url}/hook`);
  const confirmation = await waitFor('the confirmation', () => ofType(target, 'SubscriptionConfirmation')[0]);
  await sns.send(new ConfirmSubscriptionCommand({ TopicArn: topicArn, Token: confirmation.json!.Token }));
  return subscriptionArn;
}

async function recorded(): Promise<RecordedDelivery[]> {
  const response = await fetch(`${emulator.endpoint}/_emulator/deliveries`);
  return ((await response.json()) as { deliveries: RecordedDelivery[] }).deliveries;
}

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
      SubscribeURL: expect.stringMatching(new RegExp(`^${emulator.endpoint}/\\?Action=ConfirmSubscription&TopicArn=`)),
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
      UnsubscribeURL: expect.stringContaining(encodeURIComponent(subscriptionArn)),
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
        SubscribeURL: expect.stringMatching(new RegExp(`^${emulator.endpoint}/\\?Action=ConfirmSubscription&TopicArn=`)),
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

  it.each([
    ['an Unsubscribe', (_topicArn: string, subscriptionArn: string) => new UnsubscribeCommand({ SubscriptionArn: subscriptionArn })],
    ['a DeleteTopic of its topic', (topicArn: string) => new DeleteTopicCommand({ TopicArn: topicArn })],
  ])('is not retried after %s, as SNS does', async (_case, removal) => {
    // The first attempt hangs until the emulator's 5 s timeout, long after the removal below.
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
      expect.stringMatching(/^retrying .*no answer within 5000 ms$/),
    ]);
  });

  it('that never answers is abandoned after about 5 s and retried', async () => {
    const hanging = await receiver(() => undefined);
    const topicArn = await newTopic();
    await subscribeHttp(topicArn, `${hanging.url}/timeout`);

    const started = Date.now();
    const retrying = await waitFor(
      'the timeout',
      () => logLines.find((line) => line.startsWith('retrying') && line.includes(`${hanging.url}/timeout`)),
      9_000,
    );
    expect(retrying).toMatch(/no answer within 5000 ms/);
    expect(Date.now() - started).toBeGreaterThan(4_000);
  }, 15_000);

  it('that never answers blocks nothing, and close() cuts it off at once', async () => {
    const hanging = await receiver(() => undefined);
    const own = await startSnsEmulator({ deliveryRetries: 3, deliveryBackoffMs: 50 });
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
