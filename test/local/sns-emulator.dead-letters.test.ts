/**
 * What becomes of the SNS emulator's deliveries to http endpoints that do not go through: an
 * answer read as SNS reads it (3xx/4xx never retried, 5xx retried by the delivery policy, each
 * then dead-lettered), limits per subscription that end in dead letters rather than silence, and
 * deliveries still pending at close kept in the state file and resumed. Delivery itself is
 * sns-emulator.delivery.test.ts's; what the suites share is test/support/sns-delivery-suite.ts.
 * The endpoints are local receivers on 127.0.0.1.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PublishCommand } from '@aws-sdk/client-sns';
import { waitFor } from '../support/wait-for';
import {
  confirmedSubscription,
  DEAD_LETTER_QUEUE,
  deadLetterListing,
  newTopic,
  ofType,
  pause,
  receiver,
  REDRIVE,
  sns,
  startDeliveryEmulatorBeforeAll,
  withOwnEmulator,
} from '../support/sns-delivery-suite';

startDeliveryEmulatorBeforeAll();

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
