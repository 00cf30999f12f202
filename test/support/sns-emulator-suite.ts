/**
 * The SNS emulator a suite of test/local/sns-emulator*.test.ts talks to through
 * @aws-sdk/client-sns, and the readings those suites share: a topic of a test's own, a queue
 * subscribed to it, a subscription's attributes, the messages the emulator recorded for
 * non-HTTP subscribers (GET /_emulator/deliveries), and the error a call fails with.
 *
 * `emulator` and `sns` are set by the beforeAll that startEmulatorBeforeAll() adds to the
 * calling suite (each suite has its own copy of this module, and so its own emulator).
 */
import { CreateTopicCommand, GetSubscriptionAttributesCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { type RecordedDelivery, type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from './local-authority';

export const ACCOUNT = '000000000000';
export const REGION = 'us-east-1';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function clientFor(emulator: SnsEmulator): SNSClient {
  return new SNSClient({
    endpoint: emulator.endpoint,
    region: REGION,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

export let emulator: SnsEmulator;
export let sns: SNSClient;
let topicCount = 0;

/** Starts the suite's emulator (default settings) before its tests, and closes it after. */
export function startEmulatorBeforeAll(): void {
  beforeAll(async () => {
    emulator = await startSnsEmulator();
    trustAuthorityOf(emulator);
    sns = clientFor(emulator);
  });

  afterAll(async () => {
    sns.destroy();
    await emulator.close();
  });
}

/** A number no other topic of the suite has, for a topic name of a test's own. */
export const nextTopicNumber = () => ++topicCount;

/** A topic of its own for each test, so tests do not see each other's subscriptions. */
export async function newTopic(prefix = 'topic'): Promise<string> {
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `${prefix}-${nextTopicNumber()}` }));
  return TopicArn!;
}

export async function recorded(target: SnsEmulator = emulator): Promise<RecordedDelivery[]> {
  const response = await fetch(`${target.endpoint}/_emulator/deliveries`);
  return ((await response.json()) as { deliveries: RecordedDelivery[] }).deliveries;
}

export async function recordedFor(subscriptionArn: string): Promise<RecordedDelivery[]> {
  return (await recorded()).filter((delivery) => delivery.subscriptionArn === subscriptionArn);
}

export async function subscribeQueue(topicArn: string, queue: string, attributes?: Record<string, string>): Promise<string> {
  const { SubscriptionArn } = await sns.send(
    new SubscribeCommand({
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:${queue}`,
      Attributes: attributes,
    }),
  );
  return SubscriptionArn!;
}

export async function attributesOf(subscriptionArn: string): Promise<Record<string, string>> {
  return (await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }))).Attributes ?? {};
}

/** The error an SDK call fails with; fails the test if it succeeds. */
export async function failureOf(promise: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}
