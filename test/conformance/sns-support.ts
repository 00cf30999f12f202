/**
 * What the SNS conformance suites (sns.test.ts, sns.subscriptions.test.ts) share: the SNS
 * recordings, the emulator and the http receiver each suite starts (the suite's share of the
 * tally printed when it ends), topics and queue subscriptions of a test's own, and the recording
 * with its caller as the local principal.
 *
 * `sns` and `receiver` are set by the beforeAll that startEmulatorBeforeAll() adds
 * to the calling suite (each suite has its own copy of this module, and so its own emulator).
 */
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import type { Server } from 'node:http';
import { type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import { type Received, recordings, type Scenario, startReceiver, tally } from './support';

export const recorded = recordings('sns.json');
let emulator: SnsEmulator;
export let sns: SNSClient;
export let receiver: { url: string; received: Received[]; server: Server };
/** How many topics the suite made, the last one's number (for a name of a test's own). */
export let topicCount = 0;

/** Starts the suite's emulator and receiver before its tests; after them, stops both and prints the suite's share of the tally. */
export function startEmulatorBeforeAll(): void {
  beforeAll(async () => {
    emulator = await startSnsEmulator({ deliveryRetries: 0 });
    // Its SubscribeURLs are https:// under the emulator's own authority (test/support/local-authority.ts).
    trustAuthorityOf(emulator);
    sns = new SNSClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    sns.destroy();
    await emulator.close();
    await new Promise((resolve) => receiver.server.close(resolve));
    console.log(
      `SNS conformance: ${tally.recorded} recorded values compared, ${tally.documented} resting on documentation alone; ` +
        `differences left as they are (docs/local.md): ${tally.leftAsIs.length ? tally.leftAsIs.join('; ') : 'none'}`,
    );
  });
}

/** A number no other topic of the suite has, for a topic name of a test's own. */
export const nextTopicNumber = () => ++topicCount;

export const newTopic = async (attributes?: Record<string, string>, suffix = '') =>
  (await sns.send(new CreateTopicCommand({ Name: `conformance-${nextTopicNumber()}${suffix}`, Attributes: attributes }))).TopicArn!;
export const queueArn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;
export const sqsSubscription = async (topicArn: string) =>
  (await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: queueArn(`queue-${topicCount}`), ReturnSubscriptionArn: true })))
    .SubscriptionArn!;
export const bytes = (text: string) => new TextEncoder().encode(text);

/**
 * The recording with its caller, an IAM user, as the local principal that calls here: the role
 * its access key id names (docs/local.md, "How local differs from AWS").
 */
export function asLocalCaller(scenario: Scenario): Scenario {
  const text = JSON.stringify(scenario).replace(/arn:<partition>:iam::111111111111:user\/<resource:\d+>/g, 'arn:<partition>:iam::111111111111:role/<caller>');
  return JSON.parse(text) as Scenario;
}
