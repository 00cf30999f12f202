/**
 * The SNS emulator run on its own (`tsx infra/local/sns/emulator.ts`): it prints its endpoint,
 * keeps its state in ${DATA_DIR}/sns.json and its signing key and certificate in ${DATA_DIR}/sns/,
 * and stops cleanly on SIGTERM. And its state file (stateFile) as any start keeps it: what
 * survives a restart, and a file it will not overwrite.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ConfirmSubscriptionCommand,
  CreateTopicCommand,
  DeleteTopicCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsCommand,
  ListTagsForResourceCommand,
  ListTopicsCommand,
  SNSClient,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import { startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import { ACCOUNT, clientFor, recorded, REGION } from '../support/sns-emulator-suite';

const repository = fileURLToPath(new URL('../..', import.meta.url));

/** Starts the emulator script with tsx (on this same Node) and waits for the endpoint it prints. */
async function startStandalone(env: Record<string, string>): Promise<{ child: ChildProcess; endpoint: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/sns/emulator.ts'], {
    cwd: repository,
    env: { ...process.env, SNS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 20_000;
  for (let poll = 0; poll < 1_000 && Date.now() < deadline; poll++) {
    const match = /SNS emulator: (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
    if (match) return { child, endpoint: match[1]!, output: () => output };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGKILL');
  throw new Error(`the standalone emulator did not print its endpoint:\n${output}`);
}

/** Sends SIGTERM and resolves with the exit code; SIGKILLs and fails if it takes over 5 s. */
async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const tooLate = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the standalone emulator did not stop within 5 s of SIGTERM'));
    }, 5_000);
  });
  try {
    return await Promise.race([exited, tooLate]);
  } finally {
    clearTimeout(timer);
  }
}

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sns-emulator-standalone-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

it('serves on the port it prints, keeps state in DATA_DIR/sns.json and its signing key in DATA_DIR/sns/, and stops on SIGTERM', async () => {
  const { child, endpoint, output } = await startStandalone({ DATA_DIR: dataDir, IN_MEMORY: '' });
  const sns = new SNSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  try {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'standalone' }));
    expect((await sns.send(new ListTopicsCommand({}))).Topics).toEqual([{ TopicArn }]);
    const state = JSON.parse(await readFile(join(dataDir, 'sns.json'), 'utf8'));
    expect(state.topics.map((topic: { arn: string }) => topic.arn)).toEqual([TopicArn]);
    await readFile(join(dataDir, 'sns', 'signing-key.pem'), 'utf8');
    const certificate = await readFile(join(dataDir, 'sns', 'signing-cert.pem'), 'utf8');
    const served = await fetch(`${endpoint}/SimpleNotificationService-${new X509Certificate(certificate).fingerprint256.replaceAll(':', '').toLowerCase().slice(0, 32)}.pem`);
    expect(await served.text()).toBe(certificate);
  } finally {
    sns.destroy();
    expect(await stop(child)).toBe(0);
  }
  expect(output()).toContain('SIGTERM');
}, 40_000);

describe('persistence (stateFile)', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'sns-emulator-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps topics, subscriptions, attributes, tags and confirmation tokens across a restart', async () => {
    const stateFile = join(directory, 'nested', 'sns.json');
    const first = await startSnsEmulator({ stateFile });
    trustAuthorityOf(first);
    const firstClient = clientFor(first);
    const { TopicArn } = await firstClient.send(
      new CreateTopicCommand({ Name: 'durable', Tags: [{ Key: 'portalId', Value: 'p1' }], Attributes: { DisplayName: 'Durable' } }),
    );
    const { SubscriptionArn: queueArn } = await firstClient.send(
      new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:durable`, Attributes: { RawMessageDelivery: 'true' } }),
    );
    const { SubscriptionArn: emailArn } = await firstClient.send(
      new SubscribeCommand({ TopicArn, Protocol: 'email', Endpoint: 'durable@example.com', ReturnSubscriptionArn: true }),
    );
    const confirmation = (await recorded(first)).find((delivery) => delivery.subscriptionArn === emailArn);
    const { Token } = JSON.parse(confirmation!.body) as { Token: string };
    firstClient.destroy();
    await first.close();

    const saved = JSON.parse(await readFile(stateFile, 'utf8'));
    expect(saved.topics.map((topic: { arn: string }) => topic.arn)).toEqual([TopicArn]);
    expect((await readdir(join(directory, 'nested'))).filter((name) => name !== 'sns.json')).toEqual([]);

    const second = await startSnsEmulator({ stateFile });
    trustAuthorityOf(second);
    const secondClient = clientFor(second);
    try {
      const { Topics } = await secondClient.send(new ListTopicsCommand({}));
      expect(Topics).toEqual([{ TopicArn }]);
      expect((await secondClient.send(new ListTagsForResourceCommand({ ResourceArn: TopicArn }))).Tags).toEqual([
        { Key: 'portalId', Value: 'p1' },
      ]);
      expect((await secondClient.send(new GetTopicAttributesCommand({ TopicArn }))).Attributes?.DisplayName).toBe('Durable');
      const { Attributes } = await secondClient.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: queueArn }));
      expect(Attributes).toMatchObject({ Protocol: 'sqs', RawMessageDelivery: 'true', PendingConfirmation: 'false' });

      // The token mailed before the restart still confirms.
      const confirmed = await secondClient.send(new ConfirmSubscriptionCommand({ TopicArn, Token }));
      expect(confirmed.SubscriptionArn).toBe(emailArn);

      // New ARNs never collide with old ones, and listings keep creation order.
      const { TopicArn: later } = await secondClient.send(new CreateTopicCommand({ Name: 'after-restart' }));
      expect((await secondClient.send(new ListTopicsCommand({}))).Topics).toEqual([{ TopicArn }, { TopicArn: later }]);
      await secondClient.send(new DeleteTopicCommand({ TopicArn }));
    } finally {
      secondClient.destroy();
      await second.close();
    }

    const third = await startSnsEmulator({ stateFile });
    trustAuthorityOf(third);
    const thirdClient = clientFor(third);
    try {
      expect((await thirdClient.send(new ListTopicsCommand({}))).Topics?.map((topic) => topic.TopicArn)).toEqual([
        `arn:aws:sns:${REGION}:${ACCOUNT}:after-restart`,
      ]);
      expect((await thirdClient.send(new ListSubscriptionsCommand({}))).Subscriptions).toEqual([]);
    } finally {
      thirdClient.destroy();
      await third.close();
    }
  });

  it('refuses to start on a state file that is not its JSON, rather than overwrite it', async () => {
    const stateFile = join(directory, 'corrupt.json');
    await writeFile(stateFile, '{not json');
    await expect(startSnsEmulator({ stateFile })).rejects.toThrow(/corrupt\.json/);
    expect(await readFile(stateFile, 'utf8')).toBe('{not json');
  });
});
