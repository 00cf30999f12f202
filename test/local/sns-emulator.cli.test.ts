/**
 * The SNS emulator through the AWS CLI (`aws sns … --endpoint-url`), which parses the Query
 * protocol's XML with botocore rather than the JS SDK. Each CLI call costs about half a second,
 * so one test walks through every action.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { type RecordedDelivery, type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
import { AWS_CLI, awsCliEnvironment } from '../support/aws-cli-env';

const run = promisify(execFile);

const cliEnv = awsCliEnvironment();

let emulator: SnsEmulator;

beforeAll(async () => {
  emulator = await startSnsEmulator();
});

afterAll(async () => {
  await emulator.close();
});

/** `aws sns <args>` against the emulator; its JSON output parsed (undefined when it prints nothing). */
async function aws(...args: string[]): Promise<any> {
  try {
    const { stdout } = await run(AWS_CLI, ['sns', ...args, '--endpoint-url', emulator.endpoint, '--output', 'json'], {
      env: cliEnv,
      timeout: 30_000,
    });
    return stdout.trim() === '' ? undefined : JSON.parse(stdout);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') throw new Error('The AWS CLI (`aws`) is not installed or not on PATH; these tests need it.');
    throw Object.assign(new Error(`aws sns ${args[0]} failed: ${failure.stderr ?? failure.message}`), { stderr: failure.stderr });
  }
}

/** The CLI's complaint when the call fails; fails the test if it succeeds. */
async function awsError(...args: string[]): Promise<string> {
  try {
    await aws(...args);
  } catch (error) {
    return (error as { stderr?: string }).stderr ?? '';
  }
  throw new Error(`expected aws sns ${args[0]} to fail`);
}

async function recorded(): Promise<RecordedDelivery[]> {
  const response = await fetch(`${emulator.endpoint}/_emulator/deliveries`);
  return ((await response.json()) as { deliveries: RecordedDelivery[] }).deliveries;
}

it('walks through every action', async () => {
  const { TopicArn: topicArn } = await aws(
    'create-topic',
    '--name', 'cli-walk',
    '--attributes', 'DisplayName=Walk',
    '--tags', 'Key=portalId,Value=p1', 'Key=configId,Value=c1',
  );
  expect(topicArn).toBe('arn:aws:sns:us-east-1:000000000000:cli-walk');
  expect(await aws('create-topic', '--name', 'cli-walk')).toEqual({ TopicArn: topicArn });
  expect(await awsError('create-topic', '--name', 'no spaces allowed')).toMatch(/\(InvalidParameter\)/);

  expect((await aws('get-topic-attributes', '--topic-arn', topicArn)).Attributes).toMatchObject({
    TopicArn: topicArn,
    DisplayName: 'Walk',
    Owner: '000000000000',
  });

  const queue = 'arn:aws:sqs:us-east-1:000000000000:cli-queue';
  const { SubscriptionArn: queueArn } = await aws('subscribe', '--topic-arn', topicArn, '--protocol', 'sqs', '--notification-endpoint', queue);
  expect(queueArn).toMatch(new RegExp(`^${topicArn}:[0-9a-f-]{36}$`));
  expect(await aws('subscribe', '--topic-arn', topicArn, '--protocol', 'email', '--notification-endpoint', 'a@example.com')).toEqual({
    SubscriptionArn: 'pending confirmation',
  });
  const { SubscriptionArn: mailArn } = await aws(
    'subscribe', '--topic-arn', topicArn, '--protocol', 'email-json', '--notification-endpoint', 'b@example.com',
    '--return-subscription-arn',
  );
  expect(mailArn).toMatch(new RegExp(`^${topicArn}:`));
  expect(await awsError('subscribe', '--topic-arn', `${topicArn}-missing`, '--protocol', 'sqs', '--notification-endpoint', queue)).toMatch(
    /\(NotFound\).*Topic does not exist/,
  );

  const confirmation = (await recorded()).find((delivery) => delivery.subscriptionArn === mailArn);
  const { Token } = JSON.parse(confirmation!.body);
  expect(await aws('confirm-subscription', '--topic-arn', topicArn, '--token', Token)).toEqual({ SubscriptionArn: mailArn });

  await aws('set-subscription-attributes', '--subscription-arn', queueArn, '--attribute-name', 'RawMessageDelivery', '--attribute-value', 'true');
  await aws(
    'set-subscription-attributes', '--subscription-arn', mailArn,
    '--attribute-name', 'FilterPolicy', '--attribute-value', '{"kind":["asset_bank.media.create"]}',
  );
  expect((await aws('get-subscription-attributes', '--subscription-arn', queueArn)).Attributes).toMatchObject({
    SubscriptionArn: queueArn,
    TopicArn: topicArn,
    Protocol: 'sqs',
    Endpoint: queue,
    PendingConfirmation: 'false',
    RawMessageDelivery: 'true',
  });
  expect((await aws('get-subscription-attributes', '--subscription-arn', mailArn)).Attributes).toMatchObject({
    PendingConfirmation: 'false',
    ConfirmationWasAuthenticated: 'true',
    FilterPolicy: '{"kind":["asset_bank.media.create"]}',
  });

  expect((await aws('list-topics')).Topics).toContainEqual({ TopicArn: topicArn });
  const bySubscriptionArn = (list: { SubscriptionArn: string }[]) => list.map((entry) => entry.SubscriptionArn).sort();
  const expectedArns = [queueArn, mailArn, 'PendingConfirmation'].sort();
  expect(bySubscriptionArn((await aws('list-subscriptions')).Subscriptions)).toEqual(expectedArns);
  const byTopic = (await aws('list-subscriptions-by-topic', '--topic-arn', topicArn)).Subscriptions;
  expect(bySubscriptionArn(byTopic)).toEqual(expectedArns);
  expect(byTopic).toContainEqual({ SubscriptionArn: queueArn, Owner: '000000000000', Protocol: 'sqs', Endpoint: queue, TopicArn: topicArn });

  const { MessageId } = await aws(
    'publish', '--topic-arn', topicArn, '--message', 'from the CLI', '--subject', 'CLI',
    '--message-attributes', '{"kind":{"DataType":"String","StringValue":"asset_bank.media.create"}}',
  );
  expect(MessageId).toMatch(/^[0-9a-f-]{36}$/);
  const handed = (await recorded()).filter((delivery) => delivery.messageId === MessageId);
  expect(handed.find((delivery) => delivery.subscriptionArn === queueArn)?.body).toBe('from the CLI');
  expect(JSON.parse(handed.find((delivery) => delivery.subscriptionArn === mailArn)!.body)).toMatchObject({
    Subject: 'CLI',
    MessageAttributes: { kind: { Type: 'String', Value: 'asset_bank.media.create' } },
  });

  const batch = await aws(
    'publish-batch', '--topic-arn', topicArn, '--publish-batch-request-entries',
    'Id=first,Message=one', 'Id=second,Message=two,MessageAttributes={kind={DataType=String,StringValue=workflow.job.create}}',
  );
  expect(batch.Failed ?? []).toEqual([]);
  expect(batch.Successful.map((entry: { Id: string }) => entry.Id)).toEqual(['first', 'second']);
  const batchIds = batch.Successful.map((entry: { MessageId: string }) => entry.MessageId);
  expect((await recorded()).filter((delivery) => delivery.subscriptionArn === queueArn && batchIds.includes(delivery.messageId)).map((delivery) => delivery.body)).toEqual([
    'one',
    'two',
  ]);
  expect(
    await awsError('publish-batch', '--topic-arn', topicArn, '--publish-batch-request-entries', 'Id=same,Message=one', 'Id=same,Message=two'),
  ).toMatch(/\(BatchEntryIdsNotDistinct\)/);
  const eleven = Array.from({ length: 11 }, (_, index) => `Id=e${index},Message=m${index}`);
  expect(await awsError('publish-batch', '--topic-arn', topicArn, '--publish-batch-request-entries', ...eleven)).toMatch(/\(TooManyEntriesInBatchRequest\)/);

  await aws('tag-resource', '--resource-arn', topicArn, '--tags', 'Key=stage,Value=dev');
  await aws('untag-resource', '--resource-arn', topicArn, '--tag-keys', 'configId');
  expect((await aws('list-tags-for-resource', '--resource-arn', topicArn)).Tags).toEqual([
    { Key: 'portalId', Value: 'p1' },
    { Key: 'stage', Value: 'dev' },
  ]);
  expect(await awsError('list-tags-for-resource', '--resource-arn', `${topicArn}-missing`)).toMatch(/\(ResourceNotFound\)/);

  await aws('unsubscribe', '--subscription-arn', queueArn);
  // Unsubscribe is idempotent (test/conformance); the subscription is gone.
  expect(await awsError('get-subscription-attributes', '--subscription-arn', queueArn)).toMatch(/\(NotFound\).*Subscription does not exist/);

  await aws('delete-topic', '--topic-arn', topicArn);
  expect((await aws('list-topics')).Topics).not.toContainEqual({ TopicArn: topicArn });
  await aws('delete-topic', '--topic-arn', topicArn);
  // A guard against a hang, not a speed check: some thirty CLI processes, each a Python start of
  // about a second alone, and several times that while the slowest suites start beside it.
}, 300_000);

it('pages through long listings by NextToken, as the CLI does by itself', async () => {
  const sdk = new SNSClient({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  try {
    const created: string[] = [];
    for (let i = 0; i < 130; i++) {
      created.push((await sdk.send(new CreateTopicCommand({ Name: `cli-page-${i}` }))).TopicArn!);
    }
    for (let i = 0; i < 110; i++) {
      await sdk.send(new SubscribeCommand({ TopicArn: created[0], Protocol: 'sqs', Endpoint: `arn:aws:sqs:us-east-1:000000000000:q${i}` }));
    }
  } finally {
    sdk.destroy();
  }

  const topics: string[] = (await aws('list-topics')).Topics.map((topic: { TopicArn: string }) => topic.TopicArn);
  expect(topics.filter((arn) => arn.includes(':cli-page-'))).toHaveLength(130);
  expect(new Set(topics).size).toBe(topics.length);
  const subscriptions = (await aws('list-subscriptions-by-topic', '--topic-arn', 'arn:aws:sns:us-east-1:000000000000:cli-page-0')).Subscriptions;
  expect(subscriptions).toHaveLength(110);
}, 180_000);
