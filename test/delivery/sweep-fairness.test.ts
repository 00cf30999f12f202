/**
 * The retry sweep serves portals fairly: while one portal holds 2,000 pieces of due work, each
 * slow (its reads held up by a fault, as a throttled or distant table would), a quiet portal's due
 * retry still goes out in the first run, within a run's time that the backlog alone would take
 * several times over; and the backlog is still worked off by the runs that follow.
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { listFor } from '../../shared/data/subscription-reads';
import { repositoryOf } from '../../shared/data/bound-operations';
import { dueItemOf, shardOf } from '../../shared/data/due-work';
import { sweepDueWork } from '../../shared/dead-letters/sweep';
import { config, messageKeepDays } from '../../shared/environment';
import { messageLogOf } from '../../shared/data/messages';
import { call, freshPortal, newSubscription } from '../support/api';
import { deadLetterRecord, recordBatch } from '../support/dead-letters';

const BACKLOG = 2_000;
/** How long each read of the flooding portal's partition is held up. */
const SLOW_READ_MS = 25;

/** The service's document client, with the flooding portal's reads held up. */
function slowFor(portalId: string): typeof documentClient {
  const send = async (command: { input?: { Key?: { portalId?: string } } }) => {
    if (command.input?.Key?.portalId === portalId) await new Promise((resolve) => setTimeout(resolve, SLOW_READ_MS));
    return (documentClient.send as (command: unknown) => Promise<unknown>)(command);
  };
  return Object.assign(Object.create(documentClient), { send }) as typeof documentClient;
}

it("sends a quiet portal's due retry in the first run while another portal holds 2,000 due pieces ahead of it", async () => {
  // Prepare: portal-b's dead letter, its first retry due; portal-a's backlog, due earlier, in
  // portal-b's shard and the shards below it (config ids picked for their shard).
  const quiet = freshPortal('quiet');
  const created = await call('createSubscriptionRoute', { portalId: quiet, body: newSubscription() });
  expect(created.statusCode).toBe(200);
  const subscription = { portalId: quiet, configId: created.body.record.configId, topicArn: created.body.record.topicArn };
  expect(await recordBatch([deadLetterRecord(subscription, { sentAt: Date.now() - 10 * 60_000 })])).toEqual({ batchItemFailures: [] });
  const quietShard = shardOf(subscription.configId);

  const flooding = freshPortal('flooding');
  const floodIds: string[] = [];
  for (let tries = 0; floodIds.length < 20 && tries < 10_000; tries++) {
    const configId = randomUUID();
    if (shardOf(configId) <= quietShard) floodIds.push(configId);
  }
  const dueAt = new Date(Date.now() - 60 * 60_000).toISOString();
  const backlog = Array.from({ length: BACKLOG }, (_, n) =>
    dueItemOf({ kind: 'retry', dueAt, subscriptionPortalId: flooding, configId: floodIds[n % floodIds.length]!, letterSk: `dead#${n}` }),
  );
  for (let first = 0; first < backlog.length; first += 25) {
    const items = backlog.slice(first, first + 25).map((Item) => ({ PutRequest: { Item } }));
    await documentClient.send(new BatchWriteCommand({ RequestItems: { [config.tableName]: items } }));
  }
  const table = { db: slowFor(flooding), tableName: config.tableName };
  const deps = {
    table,
    sns: snsClient,
    repository: repositoryOf(table, { listFor }),
    settings: { disableFailingAfterMs: 5 * 86_400_000 },
    messages: messageLogOf(table, messageKeepDays),
  };

  // Act: one run with 3 s of time; the backlog alone takes at least 2,000 x 2 reads x 25 ms / 10
  // at a time = 10 s.
  const now = Date.now();
  const first = await sweepDueWork(deps, now, now + 3_000);

  // Assess: portal-b's retry went out (its dead letter sent, kept as retrying until SNS's verdict),
  // and the run ran out of time with most of the backlog left.
  expect(first.failures).toEqual([]);
  expect(first.counts.retried).toBe(1);
  expect(first.unfinished).toBe(true);
  const listed = await call('listDeadLettersRoute', { portalId: quiet, query: { config_id: subscription.configId } });
  expect(listed.body.deadLetters).toEqual([expect.objectContaining({ state: 'retrying', retries: 1 })]);

  // And the runs that follow work the backlog off (each piece's dead letter is gone: dropped).
  let dropped = first.counts.dropped ?? 0;
  for (let run = 0; run < 20 && dropped < BACKLOG; run++) {
    const outcome = await sweepDueWork(deps, Date.now(), Date.now() + 10_000);
    dropped += outcome.counts.dropped ?? 0;
  }
  expect(dropped).toBe(BACKLOG);
}, 300_000);
