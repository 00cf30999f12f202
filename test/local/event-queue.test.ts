/**
 * The dispatcher's in-process queue as the local stack uses it: what is still queued when it
 * closes is kept in its state file and handed to the handler after the next start, and its
 * dead-letter list keeps the latest 1,000 while counting the older ones, never losing count; and
 * it serves portals as an SQS fair queue does, with no portal able to fill it for the others.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventQueue, MAX_QUEUED_PER_GROUP, type SqsHandler } from '../../infra/local/events/event-queue';
import { fairBatch } from '../../infra/local/events/fair-selection';
import { startEventBus } from '../../infra/local/events/event-bus';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { waitFor } from '../support/wait-for';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'event-queue-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function queue(handler: SqsHandler, stateFile?: string, log: string[] = []): EventQueue {
  return new EventQueue({
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:events',
    region: 'us-east-1',
    handler,
    context: () => ({}) as Context,
    maxReceiveCount: 1,
    visibilityDelayMs: 10,
    stateFile,
    log: (line) => log.push(line),
  });
}

it('keeps what is still queued at close in its state file, and the next queue on that file hands it over', async () => {
  const stateFile = join(directory, 'event-queue.json');
  let release: () => void = () => {};
  const handled: string[] = [];
  // The first batch is held until the queue closes: what came after it is still queued then.
  const first = queue(async (event: SQSEvent) => {
    handled.push(...event.Records.map((record) => record.body));
    await new Promise<void>((resolve) => (release = resolve));
  }, stateFile);
  const bodies = Array.from({ length: 25 }, (_, n) => `event ${n}`);
  for (const body of bodies) expect(first.send(body)).toBe(true);
  await waitFor('the first batch', () => (handled.length === 10 ? true : undefined));
  const closed = first.close();
  release();
  await closed;
  expect(first.send('after close')).toBe(false);
  const saved = JSON.parse(await readFile(stateFile, 'utf8'));
  expect(saved.messages.map((message: { body: string }) => message.body)).toEqual(bodies.slice(10));

  const log: string[] = [];
  const resumed: string[] = [];
  const second = queue(async (event: SQSEvent) => {
    resumed.push(...event.Records.map((record) => record.body));
  }, stateFile, log);
  try {
    await waitFor('the kept events', () => (resumed.length === 15 ? true : undefined));
    expect(resumed).toEqual(bodies.slice(10));
    expect(log).toContain('resuming 15 events still queued at the last stop');
  } finally {
    await second.close();
  }
});

it('keeps the latest 1,000 dead letters and counts the older ones', async () => {
  const failing = queue(async (event: SQSEvent) => ({
    batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })),
  }));
  try {
    for (let n = 0; n < 1_005; n++) failing.send(`doomed ${n}`);
    await waitFor('every event dead-lettered', () => (failing.depth === 0 ? true : undefined), 20_000);
    expect(failing.deadLetters).toHaveLength(1_000);
    expect(failing.deadLetters[0]!.body).toBe('doomed 5');
    expect(failing.deadLettersNotKept).toBe(5);
  } finally {
    await failing.close();
  }
});

describe('as a fair queue keyed by portal', () => {
  const fairQueue = (handler: SqsHandler) =>
    new EventQueue({
      queueArn: 'arn:aws:sqs:us-east-1:000000000000:events',
      region: 'us-east-1',
      handler,
      context: () => ({}) as Context,
      maxConcurrency: 5,
    });

  it("hands a quiet portal's message out next while another portal's 2,000 fill what is in flight", async () => {
    // Prepare: every batch takes a while, so portal-a's flood is in flight when portal-b sends.
    const started: string[] = [];
    const handled: string[] = [];
    const queue = fairQueue(async (event: SQSEvent) => {
      started.push(...event.Records.map((record) => record.body));
      await new Promise((resolve) => setTimeout(resolve, 5));
      handled.push(...event.Records.map((record) => record.body));
    });
    try {
      for (let n = 0; n < 2_000; n++) expect(queue.send(`a ${n}`, undefined, 'portal-a')).toBe(true);
      await waitFor('some of the flood handled', () => (handled.length >= 100 ? true : undefined));

      // Act
      const startedBefore = started.length;
      expect(queue.send('b 0', undefined, 'portal-b')).toBe(true);
      await waitFor("portal-b's message", () => (handled.includes('b 0') ? true : undefined));

      // Assess: it goes out once the flood holds 30 in flight again (at most three batches of it,
      // when every batch in flight ended at once), where a first-in, first-out queue would hand out
      // the rest of the flood (some 1,900 messages) first.
      expect(started.indexOf('b 0') - startedBefore).toBeLessThanOrEqual(30);
      await waitFor('the flood', () => (queue.depth === 0 ? true : undefined), 20_000);
      expect(handled.filter((body) => body.startsWith('a ')).length).toBe(2_000);
    } finally {
      await queue.close();
    }
  });

  it("refuses a portal over its share alone: another portal's message still goes on the queue", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const queue = fairQueue(() => held);
    try {
      let accepted = 0;
      for (let n = 0; n < MAX_QUEUED_PER_GROUP + 5; n++) if (queue.send(`a ${n}`, undefined, 'portal-a')) accepted++;
      expect(accepted).toBe(MAX_QUEUED_PER_GROUP);
      expect(queue.send('b 0', undefined, 'portal-b')).toBe(true);
      expect(queue.depth).toBe(MAX_QUEUED_PER_GROUP + 1);
    } finally {
      release();
      await queue.close();
    }
  });
});

describe('behind the event bus, as PutEvents answers', () => {
  it("answers portal-a's entries InternalFailure once it holds its share, and takes portal-b's in the same request", async () => {
    // Prepare: nothing is handed out (the handler never ends), and portal-a fills its share.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const queue = new EventQueue({ queueArn: 'arn:aws:sqs:us-east-1:000000000000:events', region: 'us-east-1', handler: () => held, context: () => ({}) as Context });
    const bus = await startEventBus({ port: 0, busName: 'portal-events', region: 'us-east-1', accountId: '000000000000', queue });
    const client = new EventBridgeClient({ endpoint: bus.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    try {
      for (let n = 0; n < MAX_QUEUED_PER_GROUP; n++) expect(queue.send(`a ${n}`, undefined, 'portal-a')).toBe(true);
      const entry = (portalId: string) => ({ EventBusName: 'portal-events', Source: 'portal.events', DetailType: 'asset_bank.media.create', Detail: JSON.stringify({ portalId }) });

      // Act
      const answer = await client.send(new PutEventsCommand({ Entries: [entry('portal-a'), entry('portal-b')] }));

      // Assess: portal-a's refused alone, portal-b's queued.
      expect(answer.FailedEntryCount).toBe(1);
      expect(answer.Entries![0]).toMatchObject({ ErrorCode: 'InternalFailure' });
      expect(answer.Entries![1]!.EventId).toEqual(expect.any(String));
      expect(answer.Entries![1]!.ErrorCode).toBeUndefined();
      expect(queue.depth).toBe(MAX_QUEUED_PER_GROUP + 1);
    } finally {
      client.destroy();
      await bus.close();
      release();
      await queue.close();
    }
  });
});

describe('fairBatch', () => {
  const waiting = (groups: string[]) => groups.map((groupId, n) => ({ groupId, n }));

  it('keeps the order of the waiting messages while no group is noisy', () => {
    const batch = fairBatch(waiting(['a', 'a', 'b', 'a']), new Map([['a', 29]]), 3);
    expect(batch.map((message) => message.n)).toEqual([0, 1, 2]);
  });

  it("puts quiet groups' messages (and those without a group) first once a group holds over 10% and 30 in flight", () => {
    const messages = [...waiting(['a', 'a', 'a', 'b', 'a', 'c']), { groupId: undefined, n: 6 }];
    const batch = fairBatch(messages, new Map([['a', 30], ['b', 1]]), 4);
    expect(batch.map((message) => message.groupId)).toEqual(['b', 'c', undefined, 'a']);
  });

  it('takes from the noisy group with the fewest in flight first when only noisy ones wait', () => {
    const batch = fairBatch(waiting(['a', 'b', 'a', 'b']), new Map([['a', 60], ['b', 40]]), 3);
    expect(batch.map((message) => message.groupId)).toEqual(['b', 'b', 'a']);
  });
});
