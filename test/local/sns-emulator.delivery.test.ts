/**
 * The SNS emulator delivering to http endpoints the way SNS does: a SubscriptionConfirmation
 * first, Notifications only once confirmed, an UnsubscribeConfirmation once unsubscribed, each
 * signed (verified as test/support/sns-signature.ts does), SNS's JSON and x-amz-sns-* headers;
 * an endpoint that fails retried (5xx, no connection or no answer within 15 s) or not (4xx, or
 * once its subscription is gone), and an API that keeps answering whatever the endpoints do.
 * What becomes of a delivery that does not go through is in sns-emulator.dead-letters.test.ts;
 * the emulator each starts and what they share is test/support/sns-delivery-suite.ts.
 * The endpoints are local receivers on 127.0.0.1.
 */
import { freePort } from '../../infra/local/free-port';
import { waitFor } from '../support/wait-for';
import {
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
import { startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import { snsSignatureVerifies } from '../support/sns-signature';
import {
  confirmedSubscription,
  emulator,
  logLines,
  newTopic,
  ofType,
  pause,
  receiver,
  recorded,
  sns,
  startDeliveryEmulatorBeforeAll,
  subscribeHttp,
  TIMEOUT_MS,
  topicCount,
  withOwnEmulator,
} from '../support/sns-delivery-suite';

startDeliveryEmulatorBeforeAll();

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

