/**
 * The dispatcher's in-process queue as the local stack uses it: what is still queued when it
 * closes is kept in its state file and handed to the handler after the next start, and its
 * dead-letter list keeps the latest 1,000 while counting the older ones, never losing count.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventQueue, type SqsHandler } from '../../infra/local/events/event-queue';
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
