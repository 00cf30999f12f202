/**
 * A second start with the same data directory finds what the first one left: the records in
 * DynamoDB Local, their topics and subscriptions in the SNS emulator (so the ARNs in the records
 * still work), the token signing key (so a token from before the restart still works), and the
 * SNS emulator's signing key and certificate (so a receiver's cached certificate still verifies).
 */
import { GetTopicAttributesCommand, ListSubscriptionsByTopicCommand, ListTopicsCommand, SNSClient } from '@aws-sdk/client-sns';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../infra/local/free-port';
import { LOCAL_CREDENTIALS, type LocalStack, type LocalStackOptions, startLocalStack } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import { call, newSubscription, TEST_CLIENTS, tokenFor } from '../support/local-stack-client';

let workDir: string;
let running: LocalStack | undefined;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'local-stack-persistence-'));
});

afterAll(async () => {
  await running?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

it('keeps records, topics, subscriptions and tokens across a restart with the same DATA_DIR', async () => {
  const clientsFile = join(workDir, 'oauth-clients.json');
  writeFileSync(clientsFile, JSON.stringify(Object.values(TEST_CLIENTS)));
  // The same ports both times, as `npm start` uses: the handlers of this process keep their endpoints.
  const options: LocalStackOptions = {
    port: await freePort(),
    dynamoDbPort: await freePort(),
    snsPort: await freePort(),
    eventsPort: await freePort(),
    dataDir: join(workDir, 'data'),
    clientsFile,
  };
  const [prefix] = API_PREFIXES;

  // First run: create a subscription.
  running = await startLocalStack(options);
  const token = await tokenFor(running, TEST_CLIENTS.alphaAdmin);
  const created = await call(running, 'POST', prefix, { token, body: newSubscription({ name: 'Kept' }) });
  expect(created.status).toBe(200);
  const { configId, topicArn, subscriptionArn } = created.body.record;
  const signingCertUrl = running.sns.signingCertUrl;
  await running.stop();
  running = undefined;
  for (const kept of ['dynamodb', 'sns.json', 'oauth-signing-key.json', 'sns/signing-key.pem', 'sns/signing-cert.pem']) {
    expect(existsSync(join(workDir, 'data', kept))).toBe(true);
  }

  // Second run on the same directory.
  running = await startLocalStack(options);
  expect(running.sns.signingCertUrl).toBe(signingCertUrl);
  const listed = await call(running, 'GET', `${prefix}/list`, { token });
  expect(listed.status).toBe(200);
  expect(listed.body.configs).toEqual([expect.objectContaining({ configId, name: 'Kept', status: 1 })]);

  const sns = new SNSClient({ endpoint: running.sns.endpoint, region: running.region, credentials: LOCAL_CREDENTIALS });
  try {
    const { Topics = [] } = await sns.send(new ListTopicsCommand({}));
    expect(Topics.map((topic) => topic.TopicArn)).toContain(topicArn);
    const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
    expect(Attributes?.TopicArn).toBe(topicArn);
    const { Subscriptions = [] } = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }));
    expect(Subscriptions).toEqual([
      expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: topicArn }),
    ]);
    // Still pending: nobody confirmed the e-mail; the ARN the record holds is the one SNS knows.
    expect(subscriptionArn).toContain(topicArn);

    // The restarted service works on the kept record, and deleting it removes its topic.
    const renamed = await call(running, 'PUT', `${prefix}/rename`, { token, body: { config_id: configId, name: 'Still here' } });
    expect(renamed.status).toBe(200);
    const deleted = await call(running, 'DELETE', `${prefix}/${configId}`, { token });
    expect(deleted.status).toBe(200);
    const after = await sns.send(new ListTopicsCommand({}));
    expect((after.Topics ?? []).map((topic) => topic.TopicArn)).not.toContain(topicArn);
  } finally {
    sns.destroy();
  }
}, 120_000);
