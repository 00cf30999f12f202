/**
 * The recovery worker's slices (shared/recoveries/worker.ts) against DynamoDB Local and the SNS
 * emulator, with a clock of the suite's own: the pace holds by construction (no more sends in a
 * slice than its time at the pace allows, each an interval after the last), a slice that fails
 * midway (SNS refusing one Publish, as a fault injected in the client) is worked again from the
 * last batch written, and the recovery ends `done` with every event sent once, oldest first.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { randomUUID } from 'node:crypto';
import { documentClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { repositoryOf } from '../../shared/data/bound-operations';
import { logMessages, messageLogOf } from '../../shared/data/messages';
import { recoveryOf, startRecovery } from '../../shared/data/recoveries';
import { find } from '../../shared/data/subscription-reads';
import { config } from '../../shared/environment';
import type { RecoveryJob } from '../../shared/recoveries/jobs';
import { type Clock, runRecoverySlice, type SliceOutcome } from '../../shared/recoveries/worker';
import { freshPortal } from '../support/api';
import { CREATE, messagesDeliveredTo, subscribeQueue } from '../support/dispatcher';

const table = { db: documentClient, tableName: config.tableName };
const repository = repositoryOf(table, { find });
const PACE = 10;
const SLICE_MS = 1_000;

/** A clock whose time moves only when the worker waits; it keeps the time of every Publish. */
function suiteClock() {
  let time = Date.now();
  const clock: Clock = { now: () => time, sleep: async (ms) => void (time += ms) };
  return { clock, now: () => time };
}

describe('the recovery worker', () => {
  it('keeps the pace in each slice, goes on after a failed slice from its last batch, and ends done with each event sent once', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const start = Date.now() - 60_000;
    const events = Array.from({ length: 25 }, (_, n) => ({ eventId: randomUUID(), sentAt: new Date(start + n * 1_000).toISOString() }));
    const logged = await logMessages(table, config.messageKeepDays, events.map(({ eventId, sentAt }) => ({
      portalId, configId: subscription.configId, messageId: randomUUID(), eventId, event: CREATE, occurredAt: sentAt, sentAt,
      body: JSON.stringify({ event: CREATE, portalId, configId: subscription.configId, occurredAt: sentAt, eventId, data: {} }),
    })));
    expect(logged.notLogged).toEqual([]);
    const recovery = {
      portalId, configId: subscription.configId, recoveryId: randomUUID(), since: new Date(start - 1).toISOString(),
      until: new Date().toISOString(), status: 'all' as const, createdAt: new Date().toISOString(),
    };
    await startRecovery(table, config.messageKeepDays, recovery);

    const { clock, now } = suiteClock();
    const publishedAt: number[] = [];
    let publishes = 0;
    // SNS refuses the fourth Publish once, as an outage would (a server fault: worth trying again).
    const sns = {
      send: (command: Parameters<SNSClient['send']>[0]) => {
        if (command.constructor.name === 'PublishCommand' && ++publishes === 4) {
          return Promise.reject(Object.assign(new Error('SNS is unavailable'), { name: 'InternalErrorException', $fault: 'server' }));
        }
        if (command.constructor.name === 'PublishCommand') publishedAt.push(now());
        return snsClient.send(command as never);
      },
    } as unknown as SNSClient;
    const queued: RecoveryJob[] = [];
    const deps = {
      table, sns, messages: messageLogOf(table, config.messageKeepDays), jobs: { send: async (job: RecoveryJob) => void queued.push(job) },
      findSubscription: (p: string, c: string) => repository.find(p, c), portalSendsPerSecond: PACE, clock,
    };
    const slices: (SliceOutcome | 'threw')[] = [];
    const sentBySlice: number[] = [];
    let job: RecoveryJob = { portalId, configId: recovery.configId, recoveryId: recovery.recoveryId };
    for (let slice = 0; slice < 10; slice++) {
      const before = publishedAt.length;
      const outcome = await runRecoverySlice(deps, job, randomUUID(), SLICE_MS).catch(() => 'threw' as const);
      slices.push(outcome);
      sentBySlice.push(publishedAt.length - before);
      if (outcome !== 'threw' && outcome.outcome === 'done') break;
      // A failed slice: the queue delivers the same job again; a finished one queued its next.
      if (outcome !== 'threw') job = queued.at(-1)!;
    }

    expect(slices.map((outcome) => (outcome === 'threw' ? outcome : outcome.outcome))).toEqual(['threw', 'continued', 'continued', 'done']);
    // At most a slice's time at the pace: 1 s at 10 a second.
    expect(sentBySlice).toEqual([3, 10, 10, 2]);
    const gaps = publishedAt.slice(1).map((at, index) => at - publishedAt[index]!);
    expect(gaps.filter((gap) => gap < 1000 / PACE)).toEqual([]);
    const delivered = await messagesDeliveredTo(subscription.subscriptionArn);
    expect(delivered.map(({ body }) => JSON.parse(body).eventId)).toEqual(events.map(({ eventId }) => eventId));
    expect(await recoveryOf(table, portalId, recovery.configId, recovery.recoveryId)).toMatchObject({ state: 'done', matched: 25, sent: 25, failed: 0 });
  });
});
