/**
 * Delivery attempts in DynamoDB, in the partition of the portal whose subscription they belong to
 * (sort key attemptKeyOf), with the subscription's health on its record (its counters,
 * subscription-record.ts; their writes are the record owner's clause). One batch of
 * a subscription's attempts (what one CloudWatch Logs subscription event holds: one log group, so
 * one topic) costs one read of the record and one transaction per 40 attempts: their Puts, the
 * oldest they push out past the cap, and one update of the record's counters. Expired attempts
 * are skipped by every read: DynamoDB's TTL deletes them only eventually.
 */
import { QueryCommand } from './commands';
import { attemptCountersOf, dayExpiryOf, hourCounterOf, keptDayCounterOf } from './subscription-record';
import { find } from './subscription-reads';
import { attemptsCounted } from './subscription-records';
import { attemptKeyOf, attemptPrefixOf, EXPIRY_ATTRIBUTE, type RecordTable } from './table';
import { cancellationCodes, transactOnce, type TransactionItem } from './transactions';

export type AttemptStatus = 'delivered' | 'failed';

/** One delivery attempt as the store keeps it. */
export interface DeliveryAttempt {
  configId: string;
  topicArn: string;
  /** When SNS logged it (the log event's timestamp), ISO 8601. */
  at: string;
  status: AttemptStatus;
  /** The endpoint's HTTP status; null when it gave none (no answer, or not an http/https endpoint). */
  statusCode: number | null;
  /** From publishing to the end of the delivery, in milliseconds, as SNS measured it. */
  dwellTimeMs: number;
  /** SNS's count of tries for this message. */
  attempts: number;
  /** SNS's message id: the receiver's `x-amz-sns-message-id` header and the body's `MessageId`. */
  messageId: string;
  /** The eventId of the message it delivered (the one the receiver sees), once joined to the message log. */
  eventId?: string;
  /** Whether that message was a test event: its success ends no failing streak. */
  testEvent?: boolean;
}

export interface AttemptSettings {
  /** Days an attempt is kept after the end of the UTC day it was logged on. */
  readonly keepDays: number;
  /** Attempts kept per subscription; past this the oldest give way. */
  readonly maxPerSubscription: number;
}

/** An attempt as read back: what GET /attempts shows, with its sort key. */
export type KeptAttempt = Omit<DeliveryAttempt, 'topicArn' | 'configId' | 'testEvent'> & { sk: string };

export type BatchOutcome =
  | { kind: 'stored'; stored: number; duplicates: number; evicted: number }
  /** No record of that subscription in that portal, or one with another topic: nothing is kept. */
  | { kind: 'subscription gone' };

/** Attempts per transaction: with as many evictions and the record's update, within DynamoDB's 100 items. */
const CHUNK = 40;
const MAX_TRIES = 4;
// The bound only stops a loop that never ends: a page is at most 1 MB, and a subscription keeps at most 100,000.
const MAX_PAGES = 2_000;
const ENTRY_ATTRIBUTES = ['sk', 'at', 'status', 'statusCode', 'dwellTimeMs', 'attempts', 'messageId', 'eventId'] as const;

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
  // The record's topic is compared here, not in the transaction's condition: only create and the
  // reconciler may write (or name) topicArn, and a repaired topic keeps its name, so its ARN.
  const record = await find(table, portalId, configId);
  if (!record || record.topicArn !== topicArn) return { kind: 'subscription gone' };
  const counters = attemptCountersOf(record, settings.keepDays);
  let kept = counters.kept;
  let stale = counters.stale;
  const latest: Latest = { delivered: record.lastDeliveredAt ?? null, failed: record.lastFailedAt ?? null, eventDelivered: record.lastEventDeliveredAt ?? null };
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
      const items = transactionItems(table, settings, { portalId, configId }, chunk, evict, latest, stale);
      try {
        await transactOnce(table, items);
      } catch (error) {
        const reasons = cancellationCodes(error);
        if (!reasons || tries >= MAX_TRIES) throw error;
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
      Object.assign(latest, newestOf(latest, chunk));
      break;
    }
  }
  return outcome;
}

function transactionItems(
  table: RecordTable,
  settings: AttemptSettings,
  { portalId, configId }: { portalId: string; configId: string },
  chunk: readonly DeliveryAttempt[],
  evict: readonly KeptAttempt[],
  latest: Latest,
  stale: readonly string[],
): TransactionItem[] {
  const add: Record<string, number> = {};
  const count = (attribute: string, by: number) => (add[attribute] = (add[attribute] ?? 0) + by);
  for (const attempt of chunk) {
    count(keptDayCounterOf(attempt.at), 1);
    count(hourCounterOf(attempt.status, attempt.at), 1);
  }
  const newest = newestOf(latest, chunk);
  for (const gone of evict) count(keptDayCounterOf(gone.at), -1);
  const changed = (of: keyof Latest) => (newest[of] && newest[of] !== latest[of] ? newest[of]! : undefined);
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
          ...(attempt.eventId !== undefined && { eventId: attempt.eventId }),
          [EXPIRY_ATTRIBUTE]: dayExpiryOf(attempt.at, settings.keepDays),
        },
        ConditionExpression: 'attribute_not_exists(sk)',
      },
    })),
    attemptsCounted(table, { portalId, configId }, {
      add,
      lastDeliveredAt: changed('delivered'),
      lastFailedAt: changed('failed'),
      lastEventDeliveredAt: changed('eventDelivered'),
      staleCounters: stale,
    }),
    // The oldest give way; one already gone (expired) changes nothing.
    ...evict.map((gone) => ({ Delete: { TableName: table.tableName, Key: { portalId, sk: gone.sk } } })),
  ];
}

/** The latest of each outcome on the record; `eventDelivered`, the latest success of a message that is not a test event. */
type Latest = Record<AttemptStatus | 'eventDelivered', string | null>;

function newestOf(latest: Latest, attempts: readonly DeliveryAttempt[]): Latest {
  const newest = { ...latest };
  const consider = (of: keyof Latest, at: string) => {
    if (!newest[of] || newest[of]! < at) newest[of] = at;
  };
  for (const attempt of attempts) {
    consider(attempt.status, attempt.at);
    if (attempt.status === 'delivered' && !attempt.testEvent) consider('eventDelivered', attempt.at);
  }
  return newest;
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
        ...(typeof item.eventId === 'string' && { eventId: item.eventId }),
      };
    }
    startKey = result.LastEvaluatedKey;
    if (!startKey) return;
  }
  throw new Error(`The attempts of ${configId} did not end within ${MAX_PAGES} pages.`);
}
