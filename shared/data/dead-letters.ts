/**
 * Dead letters (messages SNS gave up on), in the partition of the portal whose subscription they
 * belong to (table.ts deadLetterKeyOf), counted on the subscription's record. Every write that adds
 * or removes one changes its day counter in the same transaction (the record's clause comes from
 * subscription-records.ts), so the counts stay true; DynamoDB deletes expired items only eventually
 * ("Using time to live (TTL) in DynamoDB", Developer Guide), so every read skips them itself.
 */
import { conditionHeld, GetCommand, QueryCommand, UpdateCommand } from './commands';
import { type Bound, bindOperations, type Operation } from './bound-operations';
import { dueWorkDelete, dueWorkPut, type DueWorkOf, retryKeyOf } from './due-work';
import { releaseLease, takeLease, type LeaseAttributes } from './lease';
import { ledgerPut, ledgerRetried, retryLedger, retryLedgers, type RetryOut } from './retry-ledgers';
import { dayExpiryOf, DEAD_LETTER_KEEP_DAYS } from './subscription-record';
import { deadLetterCounted, deadLetterCountedOut, deadLetterRetrying } from './subscription-records';
import { deadLetterKeyOf, deadLetterPrefixOf, EXPIRY_ATTRIBUTE, type ItemKey, type RecordTable } from './table';
import { cancellationCodes, failedACondition, transactOnce, type TransactionItem } from './transactions';

/** One dead letter, as kept. */
export interface DeadLetter {
  /** The subscription whose topic it was published to. */
  configId: string;
  /** The portal its body names; only the service publishes to its topics (topic-policy.ts). */
  portalId: string;
  topicArn: string;
  eventId: string;
  event: string;
  occurredAt: string;
  /** When SNS gave up on it (the queue message's SentTimestamp), ISO 8601. */
  failedAt: string;
  /** SNS's message id of the notification. */
  messageId: string;
  /** The body the service published, to publish again unchanged. */
  message: string;
}

/**
 * A dead letter as read back (its topic is its subscription's), with its sort key to remove it by,
 * how many scheduled retries its event had and when the next is due (null: none), and, while its
 * latest retry is out (SNS's verdict not in yet), when that was sent and SNS's id of it.
 */
export type KeptDeadLetter = Omit<DeadLetter, 'topicArn'> & { sk: string; retries: number; nextRetryAt: string | null; retriedAt: string | null; retryMessageId: string | null };
/** A kept dead letter without its message: what pages and eviction read (a message may be 256 KB). */
export type DeadLetterEntry = Omit<KeptDeadLetter, 'message'>;

/** Dead letters kept per subscription; past this the oldest give way. */
export const MAX_KEPT_PER_SUBSCRIPTION = 1_000;

/** Dead-letter attributes of the retry schedule. */
export const RETRIES_ATTRIBUTE = 'retries';
export const NEXT_RETRY_ATTRIBUTE = 'nextRetryAt';
/** While its retry is out: when it was sent, and SNS's message id of it. */
export const RETRIED_AT_ATTRIBUTE = 'retriedAt';
export const RETRY_MESSAGE_ATTRIBUTE = 'retryMessageId';
/** A replay's or a retry's claim on a dead letter (lease.ts), so that one of them sends it. */
export const LETTER_LEASE: Required<LeaseAttributes> = { until: 'replayClaimedUntil', holder: 'replayClaimedBy' };

/** What the recorder decided of a dead letter: its place in its schedule, and the sweep's work it brings. */
export interface StoredSchedule {
  retries: number;
  nextRetryAt?: string;
  /** It begins a failing streak: the record's failingSince is its failedAt. */
  beginsStreak?: boolean;
  /** The sweep's work it brings (its retry, the notice of a streak, a check for disabling), without keys. */
  dueWork: DueWorkOf[];
}

/** What stored a dead letter, or why not. */
export type StoreOutcome = 'stored' | 'duplicate' | 'subscription gone' | 'evicted one gone' | 'replaced one gone';

// A page of dead letters is at most 1 MB; 1,000 of them (the cap) of up to 256 KB each are many
// pages, and expired ones not yet deleted add to them: the bound only stops a loop that never ends.
const MAX_PAGES = 2_000;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Stores a dead letter and counts it, in one transaction, only while the subscription's record
 * exists, and only once (its key carries SNS's message id and when it failed). `evict`: the oldest
 * kept one, deleted (counted out, counted as dropped) in the same transaction. `staleCounters`: day
 * counters of the record past their time, removed. The record's topic is the letter's: the
 * recorder compared them when it read the record (only create and the reconciler write a topic,
 * and a repaired topic keeps its name, so its ARN). `replaces`: the dead letter whose retry this one
 * is, deleted and counted out in the same transaction (so the event is counted once), only while
 * its retry is still out.
 */
export async function store(
  table: RecordTable,
  letter: DeadLetter,
  options: { evict?: DeadLetterEntry; replaces?: RetryOut; staleCounters?: readonly string[]; lastDeadLetterAt: string; schedule: StoredSchedule },
): Promise<StoreOutcome> {
  const { portalId, configId } = letter;
  const { evict, replaces, schedule } = options;
  const items: TransactionItem[] = [
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
          [EXPIRY_ATTRIBUTE]: dayExpiryOf(letter.failedAt, DEAD_LETTER_KEEP_DAYS),
        },
        ConditionExpression: 'attribute_not_exists(sk)',
      },
    },
    deadLetterCounted(table, letter, {
      failedAt: letter.failedAt,
      lastDeadLetterAt: options.lastDeadLetterAt,
      beginsStreak: schedule.beginsStreak,
      evictedFailedAt: evict?.failedAt,
      evictedRetrying: evict?.retriedAt != null,
      replacedFailedAt: replaces?.failedAt,
      staleCounters: options.staleCounters,
    }),
    ...(evict ? [{ Delete: { TableName: table.tableName, Key: { portalId, sk: evict.sk }, ConditionExpression: 'attribute_exists(sk)' } }] : []),
    ...(replaces ? [retryingDelete(table, { portalId, sk: replaces.sk })] : []),
    // After the conditional items, whose cancellation reasons are read by position below.
    ...schedule.dueWork.map((work) => dueWorkPut(table, work)),
    // The evicted one's scheduled retry goes with it: left, the sweep would read it for nothing.
    ...evictedRetry(table, portalId, configId, evict),
  ];
  try {
    await transactOnce(table, items);
    return 'stored';
  } catch (error) {
    const codes = cancellationCodes(error);
    if (!codes) throw error;
    const [put, record, ...removed] = codes;
    if (put === 'ConditionalCheckFailed') return 'duplicate';
    if (record === 'ConditionalCheckFailed') return 'subscription gone';
    if (evict && removed[0] === 'ConditionalCheckFailed') return 'evicted one gone';
    if (replaces && removed[evict ? 1 : 0] === 'ConditionalCheckFailed') return 'replaced one gone';
    throw error;
  }
}

/** The deletion of an evicted dead letter's scheduled retry, when it has one. */
function evictedRetry(table: RecordTable, portalId: string, configId: string, evict: DeadLetterEntry | undefined): TransactionItem[] {
  const key = evict && retryKeyOf({ portalId, configId, sk: evict.sk, nextRetryAt: evict.nextRetryAt });
  return key ? [dueWorkDelete(table, key)] : [];
}

/** One kept dead letter by its key, with its message; undefined when gone or expired. */
export async function findDeadLetter(table: RecordTable, key: ItemKey): Promise<KeptDeadLetter | undefined> {
  const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }));
  if (!Item || (typeof Item[EXPIRY_ATTRIBUTE] === 'number' && Item[EXPIRY_ATTRIBUTE] * 1000 <= Date.now())) return undefined;
  return toKept(Item, key.portalId);
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

/** The letter deleted and counted out of its record's day; both fail the transaction when gone already. */
function removal(table: RecordTable, letter: Pick<KeptDeadLetter, 'portalId' | 'sk' | 'configId' | 'failedAt' | 'retriedAt'>): TransactionItem[] {
  return [
    { Delete: { TableName: table.tableName, Key: { portalId: letter.portalId, sk: letter.sk }, ConditionExpression: 'attribute_exists(sk)' } },
    deadLetterCountedOut(table, { ...letter, retrying: letter.retriedAt != null }),
  ];
}

/** The deletion of a dead letter only while its retry is out (a retry's verdict, or the letter it is replaced by). */
const retryingDelete = (table: RecordTable, { portalId, sk }: ItemKey): TransactionItem => ({
  Delete: { TableName: table.tableName, Key: { portalId, sk }, ConditionExpression: 'attribute_exists(#retriedAt)', ExpressionAttributeNames: { '#retriedAt': RETRIED_AT_ATTRIBUTE } },
});

/**
 * Removes a dead letter a replay sent and counts it out, in one transaction, which also ends its
 * schedule: its next retry is dropped, and its ledger says a replay sent it (should it fail again,
 * the new dead letter waits for a person). False when it was already gone (a concurrent replay,
 * or the cap). Throws when DynamoDB did not do it for another reason.
 */
export async function remove(table: RecordTable, letter: KeptDeadLetter): Promise<boolean> {
  const retry = retryKeyOf(letter);
  try {
    await transactOnce(table, [...(retry ? [dueWorkDelete(table, retry)] : []), ledgerPut(table, letter, { retries: letter.retries, cancelled: true }), ...removal(table, letter)]);
    return true;
  } catch (error) {
    if (failedACondition(error)) return false;
    throw error;
  }
}

/**
 * A dead letter a scheduled retry sent stays kept while its retry is out (docs/failed-deliveries.md,
 * "Scheduled retries"): marked retrying (when, and SNS's id of the retry), one retry more, no next
 * retry, counted among those retrying, in one transaction with its ledger (which names it, for the
 * recorder to replace should the retry fail too), the retry's due work done, and `settle`: the work
 * that removes it should SNS's verdict never come. False when it was removed meanwhile (a replay,
 * the subscription deleted).
 */
export async function markRetrying(table: RecordTable, letter: KeptDeadLetter, work: ItemKey, retry: { messageId: string; sentAt: string }, settle: DueWorkOf): Promise<boolean> {
  const retries = letter.retries + 1;
  try {
    await transactOnce(table, [
      {
        Update: {
          TableName: table.tableName,
          Key: { portalId: letter.portalId, sk: letter.sk },
          UpdateExpression: 'SET #retriedAt = :sentAt, #retryMessageId = :messageId, #retries = :retries REMOVE #nextRetryAt',
          ConditionExpression: 'attribute_exists(sk)',
          ExpressionAttributeNames: { '#retriedAt': RETRIED_AT_ATTRIBUTE, '#retryMessageId': RETRY_MESSAGE_ATTRIBUTE, '#retries': RETRIES_ATTRIBUTE, '#nextRetryAt': NEXT_RETRY_ATTRIBUTE },
          ExpressionAttributeValues: { ':sentAt': retry.sentAt, ':messageId': retry.messageId, ':retries': retries },
        },
      },
      deadLetterRetrying(table, letter),
      ledgerRetried(table, letter, retries, { sk: letter.sk, failedAt: letter.failedAt, messageId: retry.messageId }),
      dueWorkDelete(table, work),
      dueWorkPut(table, settle),
    ]);
    return true;
  } catch (error) {
    if (failedACondition(error)) return false;
    throw error;
  }
}

/**
 * Removes a dead letter whose retry is out, counted out of the kept and the retrying: its retry was
 * delivered (the attempts consumer), or no verdict came in time (the sweep's `settle`). False when
 * it is gone or its retry is no longer out (replaced by the retry's own dead letter, replayed).
 */
export async function removeRetrying(table: RecordTable, letter: { portalId: string; configId: string; sk: string }): Promise<boolean> {
  const failedAt = failedAtOfKey(letter.configId, letter.sk);
  if (!failedAt) return false;
  try {
    await transactOnce(table, [retryingDelete(table, letter), deadLetterCountedOut(table, { ...letter, failedAt, retrying: true })]);
    return true;
  } catch (error) {
    if (failedACondition(error)) return false;
    throw error;
  }
}

/** When a dead letter failed, from its sort key (deadLetterKeyOf); undefined when the key is not one of the subscription's. */
function failedAtOfKey(configId: string, sk: string): string | undefined {
  const prefix = deadLetterPrefixOf(configId);
  if (!sk.startsWith(prefix)) return undefined;
  const [failedAt] = sk.slice(prefix.length).split('#');
  return failedAt && !Number.isNaN(Date.parse(failedAt)) ? failedAt : undefined;
}

/** The subscription was deleted or deactivated: the dead letter stays, for a replay, with no next retry. */
export async function stopRetries(table: RecordTable, letter: ItemKey): Promise<void> {
  // Gone already (replayed, expired): nothing to stop.
  await conditionHeld(
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId: letter.portalId, sk: letter.sk },
        UpdateExpression: `REMOVE ${NEXT_RETRY_ATTRIBUTE}`,
        ConditionExpression: 'attribute_exists(sk)',
      }),
    ),
  );
}

/**
 * Claims a dead letter for one replay or retry until `until` (epoch ms), so that no concurrent one
 * publishes it too: true when this claimant has it; false when it is gone or another holds it.
 */
export const claim = (table: RecordTable, letter: KeptDeadLetter, claimant: string, until: number) =>
  takeLease(table, { portalId: letter.portalId, sk: letter.sk }, LETTER_LEASE, claimant, until);

/** Gives a claimed dead letter back (its publish failed), so the next replay need not wait for the claim to lapse. */
export const unclaim = (table: RecordTable, letter: KeptDeadLetter, claimant: string) => releaseLease(table, { portalId: letter.portalId, sk: letter.sk }, LETTER_LEASE, claimant);

/** The attributes of a DeadLetterEntry: a page or an eviction reads these, never the message. */
const ENTRY_ATTRIBUTES = ['sk', 'configId', 'eventId', 'event', 'occurredAt', 'failedAt', 'messageId', RETRIES_ATTRIBUTE, NEXT_RETRY_ATTRIBUTE, RETRIED_AT_ATTRIBUTE, RETRY_MESSAGE_ATTRIBUTE] as const;

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

export { retryLedger, retryLedgers };

const DEAD_LETTER_OPERATIONS = { retryLedger, retryLedgers, store, findDeadLetter, oldest, page, select, claim, unclaim, remove, markRetrying, removeRetrying, stopRetries };

/** Every operation on the dead letters, bound to one table; each function takes the ones it uses (a Pick of this). */
export type DeadLetterStore = Bound<RecordTable, typeof DEAD_LETTER_OPERATIONS>;

/** The operations named, bound to `table`: `deadLetterStoreOf(table, { page })`. */
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
    retriedAt: typeof item[RETRIED_AT_ATTRIBUTE] === 'string' ? item[RETRIED_AT_ATTRIBUTE] : null,
    retryMessageId: typeof item[RETRY_MESSAGE_ATTRIBUTE] === 'string' ? item[RETRY_MESSAGE_ATTRIBUTE] : null,
  };
}

function toKept(item: Record<string, unknown>, portalId: string): KeptDeadLetter {
  return { ...toEntry(item, portalId), message: String(item.message ?? '') };
}
