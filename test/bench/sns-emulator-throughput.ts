/**
 * The SNS emulator's publish-to-delivery latency and throughput, for docs/performance.md
 * ("The SNS emulator"). Not part of `npm run bench` (which measures the functions): run by hand,
 * against this tree or another checkout of the project, so two versions are measured by the same
 * script with the same SDK client:
 *
 *   node --import tsx test/bench/sns-emulator-throughput.ts [<tree>]
 *
 * It starts the emulator of `<tree>` (default: this one) in this process, an http receiver on
 * 127.0.0.1, subscribes the receiver with the service's delivery policy and confirms it, then:
 * - latency: 200 Publish calls one after another, each timed from the call to the receiver's
 *   arrival (median and 95th percentile);
 * - throughput: 2,000 messages in PublishBatch calls of 10, 8 calls at a time, timed from the
 *   first call to the last arrival, with the process's CPU time per message over that phase.
 * Prints one JSON line.
 */
import { ConfirmSubscriptionCommand, CreateTopicCommand, PublishBatchCommand, PublishCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

const LATENCY_MESSAGES = 200;
const THROUGHPUT_MESSAGES = 2_000;
const BATCHES_IN_FLIGHT = 8;
/** The service's http/https delivery policy (shared/subscriptions/delivery-policy.ts), written out so that any version takes it. */
const DELIVERY_POLICY = JSON.stringify({
  healthyRetryPolicy: { minDelayTarget: 5, maxDelayTarget: 300, numRetries: 12, numNoDelayRetries: 0, numMinDelayRetries: 2, numMaxDelayRetries: 4, backoffFunction: 'exponential' },
  requestPolicy: { headerContentType: 'application/json' },
});

const tree = resolve(process.argv[2] ?? '.');
const { startSnsEmulator } = (await import(resolve(tree, 'infra/local/sns/emulator.ts'))) as {
  startSnsEmulator(options: { log?: (line: string) => void }): Promise<{ endpoint: string; close(): Promise<unknown> }>;
};

const arrivals = new Map<string, number>();
let confirmationToken: string | undefined;
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Type: string; Message: string; Token?: string };
    if (envelope.Type === 'SubscriptionConfirmation') confirmationToken = envelope.Token;
    else arrivals.set(envelope.Message, performance.now());
    response.end();
  });
});
await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const emulator = await startSnsEmulator({ log: () => {} });
const sns = new SNSClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

async function until(what: string, done: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let poll = 0; !done(); poll++) {
    if (Date.now() > deadline || poll > 1_000_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((next) => setTimeout(next, 1));
  }
}

try {
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `throughput-${Date.now()}` }));
  await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: endpoint, Attributes: { DeliveryPolicy: DELIVERY_POLICY } }));
  await until('the confirmation', () => confirmationToken !== undefined);
  await sns.send(new ConfirmSubscriptionCommand({ TopicArn, Token: confirmationToken }));

  const latencies: number[] = [];
  for (let index = 0; index < LATENCY_MESSAGES; index++) {
    const message = `latency-${index}`;
    const sentAt = performance.now();
    await sns.send(new PublishCommand({ TopicArn, Message: message }));
    await until(message, () => arrivals.has(message));
    latencies.push(arrivals.get(message)! - sentAt);
  }
  latencies.sort((a, b) => a - b);

  const batches = Array.from({ length: THROUGHPUT_MESSAGES / 10 }, (_, batch) =>
    Array.from({ length: 10 }, (_, entry) => ({ Id: `e${entry}`, Message: `throughput-${batch * 10 + entry}` })),
  );
  const startedAt = performance.now();
  const cpuBefore = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: BATCHES_IN_FLIGHT }, async () => {
      while (next < batches.length) {
        const entries = batches[next++]!;
        await sns.send(new PublishBatchCommand({ TopicArn, PublishBatchRequestEntries: entries }));
      }
    }),
  );
  await until('every batch delivered', () => arrivals.size >= LATENCY_MESSAGES + THROUGHPUT_MESSAGES, 120_000);
  const lastArrival = Math.max(...[...arrivals.entries()].filter(([message]) => message.startsWith('throughput-')).map(([, at]) => at));
  const seconds = (lastArrival - startedAt) / 1000;
  // CPU time of the whole process (emulator, receiver and client alike in both versions) per
  // message: what a busy machine's waits do not change, unlike the wall-clock figures.
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerMessage = (cpu.user + cpu.system) / 1000 / THROUGHPUT_MESSAGES;

  console.log(
    JSON.stringify({
      tree,
      latencyMedianMs: Number(latencies[Math.floor(latencies.length / 2)]!.toFixed(2)),
      latencyP95Ms: Number(latencies[Math.floor(latencies.length * 0.95)]!.toFixed(2)),
      throughputPerSecond: Math.round(THROUGHPUT_MESSAGES / seconds),
      cpuMsPerMessage: Number(cpuMsPerMessage.toFixed(3)),
    }),
  );
} finally {
  sns.destroy();
  await emulator.close();
  receiver.closeAllConnections();
  await new Promise((done) => receiver.close(done));
}
