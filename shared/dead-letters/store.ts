/**
 * Dead letters in DynamoDB, in the partition of the portal whose subscription they belong to
 * (sort key deadLetterKeyOf), with their counts on the subscription's record (day-counts.ts).
 * Every write that adds or removes a dead letter changes its day counter in the same
 * transaction, so the counts stay true; DynamoDB deletes expired items only eventually
 * ("Using time to live (TTL) in DynamoDB", Developer Guide), so every read skips them itself.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Bound, bindOperations, type Operation } from '../subscriptions/bound-operations';
import type { RecordTable } from '../subscriptions/repository';
import { deadLetterKeyOf, deadLetterPrefixOf, EXPIRY_ATTRIBUTE, retryLedgerKeyOf, subscriptionKeyOf } from '../subscriptions/table';
import { dayCounterOf, DROPPED_ATTRIBUTE, expiryOf, LAST_DEAD_LETTER_ATTRIBUTE } from './day-counts';
import type { DeadLetter } from './dead-letter-message';
import { retryLedger, retryLedgers } from './retry-ledgers';
import { dueItemOf, FAILING_SINCE_ATTRIBUTE, NEXT_RETRY_ATTRIBUTE, RETRIES_ATTRIBUTE, type RetryLedger, retryKeyOf } from './due-work';

/**
 * A dead letter as read back (its topic is its subscription's), with its sort key to remove it by,
 * how many scheduled retries its event had and when the next is due (null: none).
 */
export type KeptDeadLetter = Omit<DeadLetter, 'topicArn'> & { sk: string; retries: number; nextRetryAt: string | null };

/** A ledger outlives the dead letters of its event (14 to 15 days) by a day. */
const LEDGER_KEEP_S = 16 * 86_400;

/** What the recorder learned of a dead letter's schedule and its subscription's streak, stored with it. */
export interface ScheduleWrite {
  retries: number;
  nextRetryAt?: string;
  /** The dead letter begins a failing streak: the record's failingSince, and the `failing` notice due now. */
  beginsStreak?: boolean;
  /** The schedule is spent: the subscription is checked for disabling at `at`, for the streak begun `failingSince`. */
  disableCheck?: { at: string; failingSince: string };
}
/** A kept dead letter without its message: what pages and eviction read (a message may be 256 KB). */
export type DeadLetterEntry = Omit<KeptDeadLetter, 'message'>;

/** What stored a dead letter, or why not. */
export type StoreOutcome = 'stored' | 'duplicate' | 'subscription gone' | 'evicted one gone';

/** The record's attributes the recorder reads: where its deliveries go, and its dead-letter counts. */
export type SubscriptionRecordItem = Record<string, unknown> & { topicArn?: string };

// A page of dead letters is at most 1 MB; 1,000 of them (the cap) of up to 256 KB each are many
// pages, and expired ones not yet deleted add to them: the bound only stops a loop that never ends.
const MAX_PAGES = 2_000;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The subscription's record, strongly consistent; undefined when there is none. */
export async function subscriptionRecord(table: RecordTable, portalId: string, configId: string): Promise<SubscriptionRecordItem | undefined> {
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: { portalId, sk: subscriptionKeyOf(configId) }, ConsistentRead: true }),
  );
  return Item;
}

/**
 * Stores a dead letter and counts it, in one transaction, only while the subscription's record
 * exists in that portal with that topic, and only once (its key carries SNS's message id and
 * when it failed). `evict`: the oldest kept one, deleted (and uncounted, and counted as dropped)
 * in the same transaction. `staleCounters`: day counters of the record past their time, removed.
 */
export async function store(
  table: RecordTable,
  letter: DeadLetter,
  options: { evict?: DeadLetterEntry; staleCounters?: readonly string[]; lastDeadLetterAt: string; schedule?: ScheduleWrite },
): Promise<StoreOutcome> {
  const { portalId, configId } = letter;
  const names: Record<string, string> = { '#day': dayCounterOf(letter.failedAt), '#last': LAST_DEAD_LETTER_ATTRIBUTE };
  const values: Record<string, unknown> = { ':one': 1, ':topicArn': letter.topicArn, ':last': options.lastDeadLetterAt };
  const adds = ['#day :one'];
  const evict = options.evict;
  if (evict) {
    names['#dropped'] = DROPPED_ATTRIBUTE;
    adds.push('#dropped :one');
    const evictedDay = dayCounterOf(evict.failedAt);
    // The same day: one in, one out, the counter unchanged (one expression may not name it twice).
    if (evictedDay === names['#day']) {
      adds.shift();
      delete names['#day'];
    } else {
      names['#evictedDay'] = evictedDay;
      values[':minusOne'] = -1;
      adds.push('#evictedDay :minusOne');
    }
  }
  const stale = (options.staleCounters ?? []).filter((name) => name !== dayCounterOf(letter.failedAt) && !Object.values(names).includes(name));
  stale.forEach((name, index) => (names[`#stale${index}`] = name));
  const schedule = options.schedule ?? { retries: 0 };
  const sets = ['#last = :last'];
  if (schedule.beginsStreak) {
    names['#failingSince'] = FAILING_SINCE_ATTRIBUTE;
    values[':failingSince'] = letter.failedAt;
    sets.push('#failingSince = :failingSince');
  }
  const update =
    `SET ${sets.join(', ')} ADD ${adds.join(', ')}` + (stale.length > 0 ? ` REMOVE ${stale.map((_, index) => `#stale${index}`).join(', ')}` : '');
  const items = [
    {
      Put: {
        TableName: table.tableName,
        Item: {
          portalId,
          sk: deadLetterKeyOf(configId, letter.failedAt, letter.messageId),
          configId,
          eventId: letter.eventId,
          event: letter.event,
          occurredAt: letter.occurredAt,
          failedAt: letter.failedAt,
          messageId: letter.messageId,
          message: letter.message,
          [RETRIES_ATTRIBUTE]: schedule.retries,
          ...(schedule.nextRetryAt && { [NEXT_RETRY_ATTRIBUTE]: schedule.nextRetryAt }),
          [EXPIRY_ATTRIBUTE]: expiryOf(letter.failedAt),
        },
        ConditionExpression: 'attribute_not_exists(sk)',
      },
    },
    {
      Update: {
        TableName: table.tableName,
        Key: { portalId, sk: subscriptionKeyOf(configId) },
        UpdateExpression: update,
        ConditionExpression: 'attribute_exists(sk) AND topicArn = :topicArn',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    ...(evict ? [{ Delete: { TableName: table.tableName, Key: { portalId, sk: evict.sk }, ConditionExpression: 'attribute_exists(sk)' } }] : []),
    // The sweep's work this dead letter brings (due-work.ts): after the conditional items, whose
    // cancellation reasons are read by position below.
    ...dueWorkOf(letter, schedule).map((Item) => ({ Put: { TableName: table.tableName, Item } })),
  ];
  try {
    await table.db.send(new TransactWriteCommand({ TransactItems: items }));
    return 'stored';
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const [put, record, deleted] = (error.CancellationReasons ?? []).map((reason) => reason.Code);
    if (put === 'ConditionalCheckFailed') return 'duplicate';
    if (record === 'ConditionalCheckFailed') return 'subscription gone';
    if (deleted === 'ConditionalCheckFailed') return 'evicted one gone';
    throw error;
  }
}

/** The sweep's work a new dead letter brings: its next retry, the notice of a new streak, the check of a spent schedule. */
function dueWorkOf(letter: DeadLetter, schedule: ScheduleWrite) {
  const whose = { subscriptionPortalId: letter.portalId, configId: letter.configId };
  return [
    ...(schedule.nextRetryAt
      ? [dueItemOf({ kind: 'retry', dueAt: schedule.nextRetryAt, ...whose, letterSk: deadLetterKeyOf(letter.configId, letter.failedAt, letter.messageId) })]
      : []),
    ...(schedule.beginsStreak ? [dueItemOf({ kind: 'failing', dueAt: letter.failedAt, ...whose, failingSince: letter.failedAt })] : []),
    ...(schedule.disableCheck ? [dueItemOf({ kind: 'disable', dueAt: schedule.disableCheck.at, ...whose, failingSince: schedule.disableCheck.failingSince })] : []),
  ];
}

/** The ledger item of an event's retries for a subscription (written when a retry or a replay sends it). */
export function ledgerItemOf(letter: Pick<KeptDeadLetter, 'portalId' | 'configId' | 'eventId'>, ledger: RetryLedger) {
  return {
    portalId: letter.portalId,
    sk: retryLedgerKeyOf(letter.configId, letter.eventId),
    retries: ledger.retries,
    cancelled: ledger.cancelled,
    [EXPIRY_ATTRIBUTE]: nowSeconds() + LEDGER_KEEP_S,
  };
}

/** The `count` oldest dead letters kept for the subscription (not expired), oldest first. */
export async function oldest(table: RecordTable, portalId: string, configId: string, count: number): Promise<DeadLetterEntry[]> {
  const found: DeadLetterEntry[] = [];
  for await (const item of entries(table, portalId, configId, { newestFirst: false, pageSize: Math.min(count, 100) })) {
    found.push(item);
    if (found.length >= count) break;
  }
  return found;
}

/**
 * One page of the subscription's dead letters, newest first, after `afterKey` (a sort key of
 * this subscription's, checked by the caller). `nextKey`: where the next page starts, if any.
 */
export async function page(table: RecordTable, portalId: string, configId: string, limit: number, afterKey?: string): Promise<{ deadLetters: DeadLetterEntry[]; nextKey?: string }> {
  const deadLetters: DeadLetterEntry[] = [];
  // One more than asked tells whether a next page exists.
  for await (const item of entries(table, portalId, configId, { newestFirst: true, pageSize: limit + 1, afterKey })) {
    if (deadLetters.length === limit) return { deadLetters, nextKey: deadLetters[limit - 1]!.sk };
    deadLetters.push(item);
  }
  return { deadLetters };
}

/** Every dead letter kept for the subscription, oldest first, that `wanted` keeps, up to `max`. */
export async function select(table: RecordTable, portalId: string, configId: string, max: number, wanted: (letter: KeptDeadLetter) => boolean): Promise<KeptDeadLetter[]> {
  const found: KeptDeadLetter[] = [];
  for await (const item of items(table, portalId, configId, { newestFirst: false, pageSize: 100, withMessage: true })) {
    if (!wanted(item as KeptDeadLetter)) continue;
    found.push(item as KeptDeadLetter);
    if (found.length >= max) break;
  }
  return found;
}

/**
 * The two writes of a transaction that removes a dead letter and uncounts it on its record's day
 * counter; they fail the transaction when the letter (or its record) is gone already.
 */
export function removalOf(table: RecordTable, letter: Pick<KeptDeadLetter, 'portalId' | 'sk' | 'configId' | 'failedAt'>) {
  return [
    { Delete: { TableName: table.tableName, Key: { portalId: letter.portalId, sk: letter.sk }, ConditionExpression: 'attribute_exists(sk)' } },
    {
      Update: {
        TableName: table.tableName,
        Key: { portalId: letter.portalId, sk: subscriptionKeyOf(letter.configId) },
        UpdateExpression: 'ADD #day :minusOne',
        ConditionExpression: 'attribute_exists(sk)',
        ExpressionAttributeNames: { '#day': dayCounterOf(letter.failedAt) },
        ExpressionAttributeValues: { ':minusOne': -1 },
      },
    },
  ];
}

/**
 * Removes a dead letter a replay sent and uncounts it, in one transaction, which also ends its
 * schedule: its next retry is dropped, and its ledger says a replay sent it (should it fail again,
 * the new dead letter waits for a person). False when it was already gone (a concurrent replay,
 * or the cap). Throws when DynamoDB did not do it for another reason.
 */
export async function remove(table: RecordTable, letter: KeptDeadLetter): Promise<boolean> {
  const retry = retryKeyOf(letter);
  try {
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          ...(retry ? [{ Delete: { TableName: table.tableName, Key: retry } }] : []),
          { Put: { TableName: table.tableName, Item: ledgerItemOf(letter, { retries: letter.retries, cancelled: true }) } },
          ...removalOf(table, letter),
        ],
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.some((reason) => reason.Code === 'ConditionalCheckFailed')) return false;
    throw error;
  }
}

/** Attributes of a dead letter a replay claimed: until when (epoch ms), and which replay. */
const CLAIM_NAMES = { '#until': 'replayClaimedUntil', '#by': 'replayClaimedBy' };

/**
 * Claims a dead letter for one replay until `until` (epoch ms), so that no concurrent replay
 * publishes it too: true when this replay has it; false when it is gone or another replay holds
 * it. A claim left by a replay that crashed lapses at `until`, and the letter can be claimed again.
 */
export async function claim(table: RecordTable, letter: KeptDeadLetter, claimant: string, until: number): Promise<boolean> {
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId: letter.portalId, sk: letter.sk },
        UpdateExpression: 'SET #until = :until, #by = :by',
        // Or already this replay's: the SDK retried a claim whose first answer was lost.
        ConditionExpression: 'attribute_exists(sk) AND (attribute_not_exists(#until) OR #until <= :now OR #by = :by)',
        ExpressionAttributeNames: CLAIM_NAMES,
        ExpressionAttributeValues: { ':until': until, ':by': claimant, ':now': Date.now() },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Gives a claimed dead letter back (its publish failed), so the next replay need not wait for the claim to lapse. */
export async function unclaim(table: RecordTable, letter: KeptDeadLetter, claimant: string): Promise<void> {
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId: letter.portalId, sk: letter.sk },
        UpdateExpression: 'REMOVE #until, #by',
        ConditionExpression: '#by = :by',
        ExpressionAttributeNames: CLAIM_NAMES,
        ExpressionAttributeValues: { ':by': claimant },
      }),
    );
  } catch (error) {
    // Gone, or claimed again after this claim lapsed: nothing of ours to give back.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** The attributes of a DeadLetterEntry: a page or an eviction reads these, never the message. */
const ENTRY_ATTRIBUTES = ['sk', 'configId', 'eventId', 'event', 'occurredAt', 'failedAt', 'messageId', RETRIES_ATTRIBUTE, NEXT_RETRY_ATTRIBUTE] as const;

/** The subscription's dead letters not expired, without their messages, page by page. */
function entries(table: RecordTable, portalId: string, configId: string, options: { newestFirst: boolean; pageSize: number; afterKey?: string }) {
  return items(table, portalId, configId, { ...options, withMessage: false }) as AsyncGenerator<DeadLetterEntry>;
}

/** The subscription's dead letters not expired, page by page, strongly consistent; with their messages only when asked. */
async function* items(
  table: RecordTable,
  portalId: string,
  configId: string,
  options: { newestFirst: boolean; pageSize: number; afterKey?: string; withMessage: boolean },
): AsyncGenerator<DeadLetterEntry | KeptDeadLetter> {
  let startKey: Record<string, unknown> | undefined = options.afterKey ? { portalId, sk: options.afterKey } : undefined;
  const projected = options.withMessage ? {} : Object.fromEntries(ENTRY_ATTRIBUTES.map((name) => [`#${name}`, name]));
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const result = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
        FilterExpression: '#expiry > :now',
        ...(!options.withMessage && { ProjectionExpression: Object.keys(projected).join(', ') }),
        ExpressionAttributeNames: { '#expiry': EXPIRY_ATTRIBUTE, ...projected },
        ExpressionAttributeValues: { ':portalId': portalId, ':prefix': deadLetterPrefixOf(configId), ':now': nowSeconds() },
        ScanIndexForward: !options.newestFirst,
        ConsistentRead: true,
        Limit: options.pageSize,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) yield options.withMessage ? toKept(item, portalId) : toEntry(item, portalId);
    startKey = result.LastEvaluatedKey;
    if (!startKey) return;
  }
  throw new Error(`The dead letters of ${configId} did not end within ${MAX_PAGES} pages.`);
}

export { retryLedger, retryLedgers, ledgerLookupKey } from './retry-ledgers';

const DEAD_LETTER_OPERATIONS = { subscriptionRecord, retryLedger, retryLedgers, store, oldest, page, select, claim, unclaim, remove };

/** Every operation on the dead letters, bound to one table; each function takes the ones it uses (a Pick of this). */
export type DeadLetterStore = Bound<RecordTable, typeof DEAD_LETTER_OPERATIONS>;

/** The operations named, bound to `table`: `deadLetterStoreOf(table, { subscriptionRecord, page })`. */
export const deadLetterStoreOf = <Operations extends { [Name in keyof Operations]: Operation<RecordTable> }>(table: RecordTable, operations: Operations) =>
  bindOperations(table, operations);

function toEntry(item: Record<string, unknown>, portalId: string): DeadLetterEntry {
  const text = (name: string) => String(item[name] ?? '');
  return {
    sk: text('sk'),
    portalId,
    configId: text('configId'),
    eventId: text('eventId'),
    event: text('event'),
    occurredAt: text('occurredAt'),
    failedAt: text('failedAt'),
    messageId: text('messageId'),
    retries: typeof item[RETRIES_ATTRIBUTE] === 'number' ? item[RETRIES_ATTRIBUTE] : 0,
    nextRetryAt: typeof item[NEXT_RETRY_ATTRIBUTE] === 'string' ? item[NEXT_RETRY_ATTRIBUTE] : null,
  };
}

export function toKept(item: Record<string, unknown>, portalId: string): KeptDeadLetter {
  return { ...toEntry(item, portalId), message: String(item.message ?? '') };
}
