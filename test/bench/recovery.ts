/**
 * The recovery row: a recovery of 1,000 logged messages worked to its end by the worker's slices
 * (shared/recoveries/worker.ts), in this process against the bench's DynamoDB Local and SNS
 * emulator, beside a floor that makes the same calls and nothing else: per slice the recovery, its
 * portal's running entries, the subscription, the lease and the window's Query; per batch of 10 the
 * bodies (BatchGetItem), 10 Publish, the log (BatchWriteItem) and the cursor (UpdateItem); at the end
 * one TransactWriteItems. The pace is the worker's by construction (a clock of the row's own, that
 * never waits): the row times the work, not the waiting. Function and floor take turns, each on a
 * log of its own, and the ratio is taken per turn (docs/decisions/bench-against-a-floor.md).
 */
import { PublishCommand } from '@aws-sdk/client-sns';
import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { snsClient } from '../../shared/aws/sns';
import { repositoryOf } from '../../shared/data/bound-operations';
import { logMessages, messageLogOf, type PublishedMessage } from '../../shared/data/messages';
import { startRecovery } from '../../shared/data/recoveries';
import { find } from '../../shared/data/subscription-reads';
import type { RecoveryJob } from '../../shared/recoveries/jobs';
import { type Clock, RECOVERY_BATCH, runRecoverySlice } from '../../shared/recoveries/worker';
import { seedDeadLetters, type Fixtures } from './fixtures';
import { log } from './progress';
import { FUNCTION_ENV } from './services';
import { warmPairs } from './statistics';
import type { Row } from './table';

export const RECOVERY_LABEL = 'recovery, 1,000 messages';
const MESSAGES = 1_000;
/** The portal's pace for the row: the setting's largest; the row's clock never waits anyway. */
const PACE = 1_000;
const TABLE = FUNCTION_ENV.TABLE_NAME;
const KEEP_DAYS = 30;

/** A clock whose time moves only when the worker would wait. */
function clockOfItsOwn(): Clock {
  let time = Date.now();
  return { now: () => time, sleep: async (ms) => void (time += ms) };
}

/** A subscription of its own (its record pointing at the confirmed one's topic) with MESSAGES messages logged, failed. */
async function seededLog(documentClient: DynamoDBDocumentClient, fixtures: Fixtures) {
  const { portalId, configId, topicArn } = await seedDeadLetters(documentClient, fixtures.confirmed, 0);
  const start = Date.now() - 3_600_000;
  const messages: PublishedMessage[] = Array.from({ length: MESSAGES }, (_, index) => {
    const sentAt = new Date(start + index).toISOString();
    const eventId = randomUUID();
    return { portalId, configId, messageId: randomUUID(), eventId, event: 'asset_bank.media.create', occurredAt: sentAt, sentAt, body: JSON.stringify({ event: 'asset_bank.media.create', portalId, configId, occurredAt: sentAt, eventId, data: { assetId: `asset-${index}` } }) };
  });
  const table = { db: documentClient, tableName: TABLE };
  const { notLogged } = await logMessages(table, KEEP_DAYS, messages);
  if (notLogged.length > 0) throw new Error(`${notLogged.length} messages not logged`);
  const recovery = { portalId, configId, recoveryId: randomUUID(), since: new Date(start - 1).toISOString(), until: new Date().toISOString(), status: 'all' as const, createdAt: new Date().toISOString() };
  await startRecovery(table, KEEP_DAYS, recovery);
  return { recovery, topicArn, since: recovery.since, until: recovery.createdAt };
}

/** The service's worker, slice after slice until the recovery is done; answers the milliseconds it took. */
async function workerRun(documentClient: DynamoDBDocumentClient, fixtures: Fixtures): Promise<number> {
  const { recovery } = await seededLog(documentClient, fixtures);
  const table = { db: documentClient, tableName: TABLE };
  const repository = repositoryOf(table, { find });
  let job: RecoveryJob = { portalId: recovery.portalId, configId: recovery.configId, recoveryId: recovery.recoveryId };
  const queued: RecoveryJob[] = [];
  const deps = {
    table, sns: snsClient, messages: messageLogOf(table, KEEP_DAYS), jobs: { send: async (next: RecoveryJob) => void queued.push(next) },
    findSubscription: (portalId: string, configId: string) => repository.find(portalId, configId), portalSendsPerSecond: PACE, clock: clockOfItsOwn(),
  };
  const started = performance.now();
  for (let slice = 0; slice < 100; slice++) {
    const outcome = await runRecoverySlice(deps, job, randomUUID(), 60_000);
    if (outcome.outcome === 'done') return performance.now() - started;
    if (outcome.outcome !== 'continued') throw new Error(`the recovery ended ${outcome.outcome}`);
    job = queued.at(-1)!;
  }
  throw new Error('the recovery did not end within 100 slices');
}

/** The floor: the same calls, in the same order, and nothing else. */
async function floorRun(documentClient: DynamoDBDocumentClient, fixtures: Fixtures): Promise<number> {
  const { recovery, topicArn, since, until } = await seededLog(documentClient, fixtures);
  const { portalId, configId, recoveryId } = recovery;
  const key = { portalId, sk: `recovery#${configId}#${recoveryId}` };
  const started = performance.now();
  await documentClient.send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }));
  await documentClient.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'portalId = :p AND begins_with(sk, :s)', ExpressionAttributeValues: { ':p': 'recovery#running', ':s': `${portalId}#` }, ConsistentRead: true, Limit: 1 }));
  await documentClient.send(new GetCommand({ TableName: TABLE, Key: { portalId, sk: `subscription#${configId}` }, ConsistentRead: true }));
  await documentClient.send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'SET leaseUntil = :u, leaseHolder = :h', ExpressionAttributeValues: { ':u': Date.now() + 60_000, ':h': 'floor' } }));
  const keys: string[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: TABLE, KeyConditionExpression: 'portalId = :p AND sk BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':p': portalId, ':low': `message#${configId}#${since}`, ':high': `message#${configId}#${until}~` }, ConsistentRead: true, ExclusiveStartKey: startKey,
      }),
    );
    keys.push(...(page.Items ?? []).map((item) => String(item.sk)));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  for (let index = 0; index < keys.length; index += RECOVERY_BATCH) {
    const batch = keys.slice(index, index + RECOVERY_BATCH);
    const { Responses } = await documentClient.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: batch.map((sk) => ({ portalId, sk })), ConsistentRead: true } } }));
    const published: PublishedMessage[] = [];
    for (const item of Responses?.[TABLE] ?? []) {
      const { MessageId } = await snsClient.send(new PublishCommand({ TopicArn: topicArn, Message: String(item.body), MessageAttributes: { event: { DataType: 'String', StringValue: String(item.event) } } }));
      published.push({ portalId, configId, messageId: MessageId!, eventId: String(item.eventId), event: String(item.event), occurredAt: String(item.occurredAt), sentAt: new Date().toISOString(), body: String(item.body) });
    }
    await logMessages({ db: documentClient, tableName: TABLE }, KEEP_DAYS, published);
    await documentClient.send(new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'SET #c = :c, #s = :s', ExpressionAttributeNames: { '#c': 'cursor', '#s': 'sent' }, ExpressionAttributeValues: { ':c': batch.at(-1), ':s': index + batch.length } }));
  }
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: TABLE, Key: key, UpdateExpression: 'SET recoveryState = :done REMOVE leaseUntil, leaseHolder', ExpressionAttributeValues: { ':done': 'done' } } },
        { Delete: { TableName: TABLE, Key: { portalId: 'recovery#running', sk: `${portalId}#${recoveryId}` } } },
      ],
    }),
  );
  return performance.now() - started;
}

/** `turns` runs of each, taking turns at going first. */
export async function recoveryRow(documentClient: DynamoDBDocumentClient, fixtures: Fixtures, turns: number): Promise<Row> {
  const fnBlocks: number[][] = [];
  const floorBlocks: number[][] = [];
  for (let turn = 0; turn < turns; turn++) {
    log(`${RECOVERY_LABEL}: turn ${turn + 1} of ${turns}`);
    if (turn % 2 === 0) {
      fnBlocks.push([await workerRun(documentClient, fixtures)]);
      floorBlocks.push([await floorRun(documentClient, fixtures)]);
    } else {
      floorBlocks.push([await floorRun(documentClient, fixtures)]);
      fnBlocks.push([await workerRun(documentClient, fixtures)]);
    }
  }
  return {
    label: RECOVERY_LABEL,
    ...warmPairs(fnBlocks, floorBlocks),
    note: `one recovery worked to its end (a slice of up to a minute holds it all at ${PACE} a second; the row's clock never waits), ${turns} turns; per batch of ${RECOVERY_BATCH}: BatchGetItem, ${RECOVERY_BATCH} Publish, BatchWriteItem, UpdateItem`,
  };
}
