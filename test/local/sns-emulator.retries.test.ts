/**
 * The SNS emulator and an http endpoint that fails, the way SNS treats one: retried with the same
 * MessageId (5xx, no connection, or no answer within the timeout, 15 s by default) until it
 * answers 2xx or the retries run out; not retried after a 4xx or once its subscription is gone;
 * and an API that keeps answering whatever the endpoints do. What becomes of a delivery given up
 * on is in sns-emulator.dead-letters.test.ts; deliveries that go through are in
 * sns-emulator.delivery.test.ts; the emulator each starts and what they share is
 * test/support/sns-delivery-suite.ts. The endpoints are local receivers on 127.0.0.1.
 */
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  GetSubscriptionAttributesCommand,
  ListTopicsCommand,
  PublishCommand,
  SNSClient,
  SubscribeCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import { freePort } from '../../infra/local/free-port';
import { startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import {
  confirmedSubscription,
  emulator,
  logLines,
  newTopic,
  ofType,
  pause,
  receiver,
  sns,
  startDeliveryEmulatorBeforeAll,
  subscribeHttp,
  TIMEOUT_MS,
  topicCount,
  withOwnEmulator,
} from '../support/sns-delivery-suite';
import { waitFor } from '../support/wait-for';

startDeliveryEmulatorBeforeAll();

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

  it("that never answers holds only its share of the emulator's connections: another subscription's message goes out at once", async () => {
    // Prepare: one endpoint that takes its confirmation and then never answers a notification.
    const hanging = await receiver((_n, request) => (request.headers['x-amz-sns-message-type'] === 'Notification' ? undefined : 200));
    const healthy = await receiver();
    await withOwnEmulator({ limits: { inFlightInAll: 8 }, deliveryTimeoutMs: 10_000 }, async ({ client }) => {
      const hangingTopic = await newTopic(client);
      const healthyTopic = await newTopic(client);
      await confirmedSubscription(hanging, hangingTopic, client);
      await confirmedSubscription(healthy, healthyTopic, client);

      // Act: 100 messages for the hanging endpoint, then one for the healthy one.
      for (let n = 0; n < 100; n++) await client.send(new PublishCommand({ TopicArn: hangingTopic, Message: `to the hanging endpoint ${n}` }));
      await waitFor('the hanging endpoint holding its share', () => (ofType(hanging, 'Notification').length === 8 ? true : undefined));
      await client.send(new PublishCommand({ TopicArn: healthyTopic, Message: 'to the healthy endpoint' }));

      // Assess: the healthy endpoint has its message while the other's 8 requests (all 8 of the
      // emulator's while it was alone, where each subscription could once open 50) still hang.
      await waitFor("the healthy endpoint's message", () => ofType(healthy, 'Notification')[0]);
      await pause(200);
      expect(ofType(hanging, 'Notification')).toHaveLength(8);
    });
  });

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
