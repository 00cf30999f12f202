/**
 * The SNS emulator's publish-to-delivery latency and throughput, for docs/performance.md
 * ("The SNS emulator"). Not part of `npm run bench` (which measures the functions): run by hand,
 * against this tree and, to compare, another checkout of the project:
 *
 *   node --import tsx test/bench/sns-emulator-throughput.ts [<tree> ...]
 *
 * It starts the emulator of each tree (default: this one) in this one process, each with its own
 * http receiver on 127.0.0.1 and a topic whose http subscription has the service's delivery
 * policy, confirmed. Then 10 rounds; in each, every emulator in turn (the order alternating from
 * round to round, so a slower stretch of a shared machine falls on all of them) gets:
 * - latency: 20 Publish calls one after another, each timed from the call to the receiver's
 *   arrival;
 * - throughput: 200 messages in PublishBatch calls of 10, 8 calls at a time, timed from the first
 *   call to the last arrival.
 * Prints one JSON line per tree: the latencies' median and 95th percentile over all rounds, the
 * median of the rounds' throughputs, and, for a second tree, the median of its rounds' ratios to
 * the first tree's in the same round.
 */
import { ConfirmSubscriptionCommand, CreateTopicCommand, PublishBatchCommand, PublishCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

const ROUNDS = 10;
const LATENCY_MESSAGES = 20;
const THROUGHPUT_MESSAGES = 200;
const BATCHES_IN_FLIGHT = 8;
/** The service's http/https delivery policy (shared/subscriptions/delivery-policy.ts), written out so that any version takes it. */
const DELIVERY_POLICY = JSON.stringify({
  healthyRetryPolicy: { minDelayTarget: 5, maxDelayTarget: 300, numRetries: 12, numNoDelayRetries: 0, numMinDelayRetries: 2, numMaxDelayRetries: 4, backoffFunction: 'exponential' },
  requestPolicy: { headerContentType: 'application/json' },
});

interface Emulator {
  endpoint: string;
  close(): Promise<unknown>;
}

interface Target {
  tree: string;
  emulator: Emulator;
  receiver: Server;
  sns: SNSClient;
  topicArn: string;
  arrivals: Map<string, number>;
  latencies: number[];
  throughputs: number[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], share: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * share)]!;

async function until(what: string, done: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let poll = 0; !done(); poll++) {
    if (Date.now() > deadline || poll > 1_000_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((next) => setTimeout(next, 1));
  }
}

async function targetOf(tree: string): Promise<Target> {
  const { startSnsEmulator } = (await import(resolve(tree, 'infra/local/sns/emulator.ts'))) as {
    startSnsEmulator(options: { log?: (line: string) => void }): Promise<Emulator>;
  };
  const arrivals = new Map<string, number>();
  let token: string | undefined;
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Type: string; Message: string; Token?: string };
      if (envelope.Type === 'SubscriptionConfirmation') token = envelope.Token;
      else arrivals.set(envelope.Message, performance.now());
      response.end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const emulator = await startSnsEmulator({ log: () => {} });
  const sns = new SNSClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `throughput-${Date.now()}` }));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: endpoint, Attributes: { DeliveryPolicy: DELIVERY_POLICY } }));
  await until('the confirmation', () => token !== undefined);
  await sns.send(new ConfirmSubscriptionCommand({ TopicArn, Token: token }));
  return { tree, emulator, receiver, sns, topicArn: TopicArn!, arrivals, latencies: [], throughputs: [] };
}

async function round(target: Target, index: number): Promise<void> {
  const { sns, topicArn: TopicArn, arrivals } = target;
  for (let message = 0; message < LATENCY_MESSAGES; message++) {
    const text = `latency-${index}-${message}`;
    const sentAt = performance.now();
    await sns.send(new PublishCommand({ TopicArn, Message: text }));
    await until(text, () => arrivals.has(text));
    target.latencies.push(arrivals.get(text)! - sentAt);
  }
  const batches = Array.from({ length: THROUGHPUT_MESSAGES / 10 }, (_, batch) =>
    Array.from({ length: 10 }, (_, entry) => ({ Id: `e${entry}`, Message: `throughput-${index}-${batch * 10 + entry}` })),
  );
  const startedAt = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: BATCHES_IN_FLIGHT }, async () => {
      while (next < batches.length) await sns.send(new PublishBatchCommand({ TopicArn, PublishBatchRequestEntries: batches[next++]! }));
    }),
  );
  const mine = batches.flat().map(({ Message }) => Message);
  await until('the round delivered', () => mine.every((text) => arrivals.has(text)), 120_000);
  const lastArrival = Math.max(...mine.map((text) => arrivals.get(text)!));
  target.throughputs.push(THROUGHPUT_MESSAGES / ((lastArrival - startedAt) / 1000));
}

const trees = (process.argv.length > 2 ? process.argv.slice(2) : ['.']).map((tree) => resolve(tree));
const targets: Target[] = [];
try {
  for (const tree of trees) targets.push(await targetOf(tree));
  for (let index = 0; index < ROUNDS; index++) {
    const order = index % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) await round(target, index);
  }
  const [first] = targets;
  for (const target of targets) {
    console.log(
      JSON.stringify({
        tree: target.tree,
        latencyMedianMs: Number(median(target.latencies).toFixed(2)),
        latencyP95Ms: Number(percentile(target.latencies, 0.95).toFixed(2)),
        throughputPerSecond: Math.round(median(target.throughputs)),
        ...(target !== first && {
          throughputRatioToFirst: Number(median(target.throughputs.map((value, index) => value / first!.throughputs[index]!)).toFixed(2)),
        }),
      }),
    );
  }
} finally {
  for (const target of targets) {
    target.sns.destroy();
    await target.emulator.close();
    target.receiver.closeAllConnections();
    await new Promise((done) => target.receiver.close(done));
  }
}
