/**
 * Delivery attempts in DynamoDB, in the partition of the portal whose subscription they belong to
 * (sort key attemptKeyOf), with the subscription's health on its record (counts.ts). One batch of
 * a subscription's attempts (what one CloudWatch Logs subscription event holds: one log group, so
 * one topic) costs one read of the record and one transaction per 40 attempts: their Puts, the
 * oldest they push out past the cap, and one update of the record's counters. Expired attempts
 * are skipped by every read: DynamoDB's TTL deletes them only eventually.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { RecordTable } from '../subscriptions/repository';
import { attemptKeyOf, attemptPrefixOf, EXPIRY_ATTRIBUTE, subscriptionKeyOf } from '../subscriptions/table';
import {
  attemptCountersOf,
  attemptExpiryOf,
  hourCounterOf,
  keptDayCounterOf,
  LAST_DELIVERED_ATTRIBUTE,
  LAST_FAILED_ATTRIBUTE,
} from './counts';
import type { AttemptStatus, DeliveryAttempt } from './delivery-status-record';

export interface AttemptSettings {
  /** Days an attempt is kept after the end of the UTC day it was logged on. */
  readonly keepDays: number;
  /** Attempts kept per subscription; past this the oldest give way. */
  readonly maxPerSubscription: number;
}

/** An attempt as read back: what GET /attempts shows, with its sort key. */
export type KeptAttempt = Omit<DeliveryAttempt, 'topicArn' | 'configId'> & { sk: string };

export type BatchOutcome =
  | { kind: 'stored'; stored: number; duplicates: number; evicted: number }
  /** No record of that subscription in that portal, or one with another topic: nothing is kept. */
  | { kind: 'subscription gone' };

/** Attempts per transaction: with as many evictions and the record's update, within DynamoDB's 100 items. */
const CHUNK = 40;
const MAX_TRIES = 4;
// The bound only stops a loop that never ends: a page is at most 1 MB, and a subscription keeps at most 100,000.
const MAX_PAGES = 2_000;
const ENTRY_ATTRIBUTES = ['sk', 'at', 'status', 'statusCode', 'dwellTimeMs', 'attempts', 'messageId'] as const;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Keeps a batch of one subscription's attempts (all of `topicArn`), counted on its record, at most the cap. */
export async function recordAttempts(
  table: RecordTable,
  settings: AttemptSettings,
  portalId: string,
  configId: string,
  topicArn: string,
  attempts: readonly DeliveryAttempt[],
): Promise<BatchOutcome> {
  const { Item: record } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: { portalId, sk: subscriptionKeyOf(configId) }, ConsistentRead: true }),
  );
  if (!record || record.topicArn !== topicArn) return { kind: 'subscription gone' };
  const counters = attemptCountersOf(record, settings.keepDays);
  let kept = counters.kept;
  let stale = counters.stale;
  const latest: Record<AttemptStatus, string | null> = {
    delivered: typeof record[LAST_DELIVERED_ATTRIBUTE] === 'string' ? record[LAST_DELIVERED_ATTRIBUTE] : null,
    failed: typeof record[LAST_FAILED_ATTRIBUTE] === 'string' ? record[LAST_FAILED_ATTRIBUTE] : null,
  };
  // One key per attempt, even if a batch repeats one (CloudWatch Logs delivers at least once).
  const distinct = [...new Map(attempts.map((attempt) => [attemptKeyOf(configId, attempt.at, attempt.messageId), attempt])).values()];
  // A batch beyond the cap by itself keeps its newest: the older ones would give way at once.
  const unique = distinct.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)).slice(-settings.maxPerSubscription);
  const outcome = { kind: 'stored' as const, stored: 0, duplicates: attempts.length - distinct.length, evicted: distinct.length - unique.length };
  const overflow = kept + unique.length - settings.maxPerSubscription;
  const evictable = overflow > 0 ? await oldestAttempts(table, portalId, configId, overflow) : [];

  for (let start = 0; start < unique.length; start += CHUNK) {
    let chunk = unique.slice(start, start + CHUNK);
    const room = settings.maxPerSubscription - kept;
    const evict = evictable.splice(0, Math.max(0, chunk.length - Math.max(0, room)));
    for (let tries = 1; chunk.length > 0; tries++) {
      const items = transactionItems(table, settings, { portalId, configId, topicArn }, chunk, evict, latest, stale);
      try {
        await table.db.send(new TransactWriteCommand({ TransactItems: items }));
      } catch (error) {
        if (!(error instanceof TransactionCanceledException) || tries >= MAX_TRIES) throw error;
        const reasons = (error.CancellationReasons ?? []).map((reason) => reason.Code);
        if (reasons[chunk.length] === 'ConditionalCheckFailed') return { kind: 'subscription gone' };
        const duplicates = chunk.filter((_, index) => reasons[index] === 'ConditionalCheckFailed');
        // Cancelled for another reason (a conflicting write to the record): the same again.
        outcome.duplicates += duplicates.length;
        chunk = chunk.filter((_, index) => reasons[index] !== 'ConditionalCheckFailed');
        continue;
      }
      outcome.stored += chunk.length;
      outcome.evicted += evict.length;
      kept += chunk.length - evict.length;
      stale = [];
      for (const attempt of chunk) if (!latest[attempt.status] || latest[attempt.status]! < attempt.at) latest[attempt.status] = attempt.at;
      break;
    }
  }
  return outcome;
}

function transactionItems(
  table: RecordTable,
  settings: AttemptSettings,
  { portalId, configId, topicArn }: { portalId: string; configId: string; topicArn: string },
  chunk: readonly DeliveryAttempt[],
  evict: readonly KeptAttempt[],
  latest: Record<AttemptStatus, string | null>,
  stale: readonly string[],
) {
  const deltas = new Map<string, number>();
  const add = (attribute: string, count: number) => deltas.set(attribute, (deltas.get(attribute) ?? 0) + count);
  const newest: Record<AttemptStatus, string | null> = { ...latest };
  for (const attempt of chunk) {
    add(keptDayCounterOf(attempt.at), 1);
    add(hourCounterOf(attempt.status, attempt.at), 1);
    if (!newest[attempt.status] || newest[attempt.status]! < attempt.at) newest[attempt.status] = attempt.at;
  }
  for (const gone of evict) add(keptDayCounterOf(gone.at), -1);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':topicArn': topicArn };
  const adds = [...deltas].filter(([, count]) => count !== 0).map(([attribute, count], index) => {
    names[`#c${index}`] = attribute;
    values[`:c${index}`] = count;
    return `#c${index} :c${index}`;
  });
  const sets: string[] = [];
  for (const [status, attribute] of [
    ['delivered', LAST_DELIVERED_ATTRIBUTE],
    ['failed', LAST_FAILED_ATTRIBUTE],
  ] as const) {
    if (newest[status] === latest[status] || !newest[status]) continue;
    names[`#${status}`] = attribute;
    values[`:${status}`] = newest[status];
    sets.push(`#${status} = :${status}`);
  }
  const removes = stale.filter((attribute) => !deltas.has(attribute)).map((attribute, index) => {
    names[`#s${index}`] = attribute;
    return `#s${index}`;
  });
  const update = [sets.length && `SET ${sets.join(', ')}`, adds.length && `ADD ${adds.join(', ')}`, removes.length && `REMOVE ${removes.join(', ')}`]
    .filter(Boolean)
    .join(' ');
  return [
    ...chunk.map((attempt) => ({
      Put: {
        TableName: table.tableName,
        Item: {
          portalId,
          sk: attemptKeyOf(configId, attempt.at, attempt.messageId),
          at: attempt.at,
          status: attempt.status,
          statusCode: attempt.statusCode,
          dwellTimeMs: attempt.dwellTimeMs,
          attempts: attempt.attempts,
          messageId: attempt.messageId,
          [EXPIRY_ATTRIBUTE]: attemptExpiryOf(attempt.at, settings.keepDays),
        },
        ConditionExpression: 'attribute_not_exists(sk)',
      },
    })),
    {
      Update: {
        TableName: table.tableName,
        Key: { portalId, sk: subscriptionKeyOf(configId) },
        UpdateExpression: update,
        ConditionExpression: 'topicArn = :topicArn',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    // The oldest give way; one already gone (expired) changes nothing.
    ...evict.map((gone) => ({ Delete: { TableName: table.tableName, Key: { portalId, sk: gone.sk } } })),
  ];
}

/** The `count` oldest attempts kept for the subscription (not expired), oldest first. */
async function oldestAttempts(table: RecordTable, portalId: string, configId: string, count: number): Promise<KeptAttempt[]> {
  const found: KeptAttempt[] = [];
  for await (const attempt of entries(table, portalId, configId, { newestFirst: false, pageSize: Math.min(count, 500) })) {
    found.push(attempt);
    if (found.length >= count) break;
  }
  return found;
}

/**
 * One page of the subscription's attempts, newest first, after `afterKey` (a sort key of this
 * subscription's, checked by the caller), of one outcome if `status` is given.
 */
export async function attemptPage(
  table: RecordTable,
  portalId: string,
  configId: string,
  { limit, afterKey, status }: { limit: number; afterKey?: string; status?: AttemptStatus },
): Promise<{ attempts: KeptAttempt[]; nextKey?: string }> {
  const attempts: KeptAttempt[] = [];
  for await (const attempt of entries(table, portalId, configId, { newestFirst: true, pageSize: limit + 1, afterKey, status })) {
    if (attempts.length === limit) return { attempts, nextKey: attempts[limit - 1]!.sk };
    attempts.push(attempt);
  }
  return { attempts };
}

async function* entries(
  table: RecordTable,
  portalId: string,
  configId: string,
  options: { newestFirst: boolean; pageSize: number; afterKey?: string; status?: AttemptStatus },
): AsyncGenerator<KeptAttempt> {
  let startKey: Record<string, unknown> | undefined = options.afterKey ? { portalId, sk: options.afterKey } : undefined;
  const projected = Object.fromEntries(ENTRY_ATTRIBUTES.map((name) => [`#${name}`, name]));
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const result = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
        FilterExpression: `#expiry > :now${options.status ? ' AND #status = :status' : ''}`,
        ProjectionExpression: Object.keys(projected).join(', '),
        ExpressionAttributeNames: { '#expiry': EXPIRY_ATTRIBUTE, ...projected },
        ExpressionAttributeValues: {
          ':portalId': portalId,
          ':prefix': attemptPrefixOf(configId),
          ':now': nowSeconds(),
          ...(options.status && { ':status': options.status }),
        },
        ScanIndexForward: !options.newestFirst,
        ConsistentRead: true,
        Limit: options.pageSize,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) {
      yield {
        sk: String(item.sk),
        at: String(item.at),
        status: item.status === 'failed' ? 'failed' : 'delivered',
        statusCode: typeof item.statusCode === 'number' ? item.statusCode : null,
        dwellTimeMs: Number(item.dwellTimeMs ?? 0),
        attempts: Number(item.attempts ?? 1),
        messageId: String(item.messageId),
      };
    }
    startKey = result.LastEvaluatedKey;
    if (!startKey) return;
  }
  throw new Error(`The attempts of ${configId} did not end within ${MAX_PAGES} pages.`);
}
