/**
 * Every write of a subscription record, and nothing else writes one: the record's own operations
 * (create's insert, update, delete, the SNS side's ARNs and state, the reconciler's marks), and the
 * clauses other owners put in their transactions (a dead letter counted in or out, attempts
 * counted, the failing streak begun) or that the retry sweep and confirm ask for (a disabling, a
 * confirmation request's turn). Each write names only the attributes it changes and those its
 * condition reads, which is what each function's IAM grant is held to (`dynamodb:Attributes`,
 * infra/aws/operation-permissions.ts): only insert and replaceDeliveryArns name `topicArn`.
 */
import { ConditionalCheckFailedException, conditionHeld, UpdateCommand } from './commands';
import { SubscriptionLimitReachedError, SubscriptionNotFoundError, ThrottleNotSupportedError } from '../subscriptions/errors';
import { updateOf, type UpdateParts } from './expressions';
import { countedIn, countedOut } from './portal-counters';
import {
  ACTIVATED,
  CLEARED_BY_ACTIVATION,
  dayCounterOf,
  retryingDayCounterOf,
  DISABLED_FOR_FAILING,
  type Subscription,
  type SubscriptionState,
} from './subscription-record';
import { toSubscription } from './subscription-reads';
import { subscriptionKeyOf, type RecordTable } from './table';
import { transact, type TransactionItem } from './transactions';

/** What rename, update and activate may change. */
export type SubscriptionChanges = Partial<Pick<Subscription, 'name' | 'events' | 'status'>> & {
  /** A number sets the throttle (http/https records only); null removes it. */
  maxReceivesPerSecond?: number | null;
  /** The filter's JSON text sets it; null removes it. */
  filter?: string | null;
};

/** Where a record's deliveries go: its topic and its endpoint's SNS subscription. */
export type DeliveryArns = Pick<Subscription, 'topicArn' | 'subscriptionArn'>;

/** A state of the record's SNS subscription, observed at `observedAt` (ISO 8601). */
export interface ObservedState {
  subscriptionState: SubscriptionState;
  observedAt: string;
}

type RecordKey = Pick<Subscription, 'portalId' | 'configId'>;
/** An UpdateItem's expressions, its condition required. */
type Write = Omit<UpdateParts, 'ExpressionAttributeNames'> & { ConditionExpression: string; ExpressionAttributeNames?: Record<string, string> };
const keyOf = ({ portalId, configId }: RecordKey) => ({ portalId, sk: subscriptionKeyOf(configId) });

/**
 * One conditional UpdateItem of the record; false when its condition failed. Writes of a fixed
 * shape are written out (a bundle then carries no expression builder); those whose attributes
 * vary (counters, the fields a request changes) come from updateOf.
 */
function change(table: RecordTable, record: RecordKey, write: Write): Promise<boolean> {
  return conditionHeld(table.db.send(new UpdateCommand({ TableName: table.tableName, Key: keyOf(record), ...write })));
}

/** Stores a new subscription and counts it in one transaction, which fails when the portal already has `limit`. */
export async function insert(table: RecordTable, subscription: Subscription, limit: number): Promise<void> {
  const { portalId, configId } = subscription;
  const items = (): TransactionItem[] => [
    countedIn(table, portalId, limit),
    { Put: { TableName: table.tableName, Item: { ...subscription, ...keyOf(subscription) }, ConditionExpression: 'attribute_not_exists(sk)' } },
  ];
  await transact(table, items, (codes) => {
    if (codes[0] === 'ConditionalCheckFailed') throw new SubscriptionLimitReachedError(limit);
  });
}

/** Deletes the record and counts it out in one transaction. */
export async function remove(table: RecordTable, portalId: string, configId: string): Promise<void> {
  const items = (): TransactionItem[] => [
    { Delete: { TableName: table.tableName, Key: keyOf({ portalId, configId }), ConditionExpression: 'attribute_exists(sk)' } },
    countedOut(table, portalId),
  ];
  await transact(table, items, (codes) => {
    if (codes[0] === 'ConditionalCheckFailed') throw new SubscriptionNotFoundError(configId);
  });
}

/**
 * Sets only the given attributes (a null one is removed), and only if the subscription exists in
 * this portal, so concurrent changes of different attributes never overwrite each other. A
 * throttle is set only on an http/https record, in the same condition: protocols never change.
 * Activating clears a disabling for failing and its streak: the count starts again.
 */
export async function update(table: RecordTable, portalId: string, configId: string, changes: SubscriptionChanges): Promise<Subscription> {
  const names = (Object.keys(changes) as (keyof SubscriptionChanges)[]).filter((name) => changes[name] !== undefined);
  const set = names.filter((name) => changes[name] !== null);
  const removed: string[] = [...names.filter((name) => changes[name] === null), ...(changes.status === ACTIVATED ? CLEARED_BY_ACTIVATION : [])];
  const throttled = typeof changes.maxReceivesPerSecond === 'number';
  try {
    const { Attributes } = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keyOf({ portalId, configId }),
        UpdateExpression: [
          set.length > 0 ? `SET ${set.map((name) => `#${name} = :${name}`).join(', ')}` : '',
          removed.length > 0 ? `REMOVE ${removed.map((name) => `#${name}`).join(', ')}` : '',
        ].join(' '),
        ConditionExpression: throttled ? 'attribute_exists(sk) AND #protocol IN (:http, :https)' : 'attribute_exists(sk)',
        ExpressionAttributeNames: {
          ...Object.fromEntries([...set, ...removed].map((name) => [`#${name}`, name])),
          ...(throttled && { '#protocol': 'protocol' }),
        },
        // DynamoDB refuses an empty map: none when the update only removes.
        ExpressionAttributeValues:
          set.length > 0 ? { ...Object.fromEntries(set.map((name) => [`:${name}`, changes[name]])), ...(throttled && { ':http': 'http', ':https': 'https' }) } : undefined,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return toSubscription(Attributes!);
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const protocol = error.Item?.protocol;
    if (throttled && protocol) throw new ThrottleNotSupportedError(String((protocol as { S?: string }).S ?? protocol));
    throw new SubscriptionNotFoundError(configId);
  }
}

/**
 * The reconciler's repair: points the record at a recreated topic and SNS subscription, with the
 * state SNS gave the new subscription, only if it still points where it did when the repair began
 * (`previous`): a record deleted or repaired meanwhile is left alone (SubscriptionNotFoundError).
 * Answers the record as written.
 */
export async function replaceDeliveryArns(table: RecordTable, portalId: string, configId: string, previous: DeliveryArns, next: DeliveryArns & ObservedState): Promise<Subscription> {
  try {
    const { Attributes } = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keyOf({ portalId, configId }),
        UpdateExpression: 'SET topicArn = :topicArn, subscriptionArn = :subscriptionArn, subscriptionState = :state, subscriptionStateAt = :observedAt',
        ConditionExpression: 'topicArn = :previousTopicArn AND subscriptionArn = :previousSubscriptionArn',
        ExpressionAttributeValues: {
          ':topicArn': next.topicArn,
          ':subscriptionArn': next.subscriptionArn,
          ':state': next.subscriptionState,
          ':observedAt': next.observedAt,
          ':previousTopicArn': previous.topicArn,
          ':previousSubscriptionArn': previous.subscriptionArn,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toSubscription(Attributes!);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new SubscriptionNotFoundError(configId);
    throw error;
  }
}

/**
 * Confirm's new SNS subscription of the endpoint to the record's own topic, with its state, only
 * if the record still names `previousSubscriptionArn` (a confirm racing a repair or another confirm
 * overwrites nothing: SubscriptionNotFoundError). The topic is not confirm's to write.
 */
export async function replaceSubscriptionArn(table: RecordTable, record: RecordKey, previousSubscriptionArn: string, next: { subscriptionArn: string } & ObservedState): Promise<void> {
  const written = await change(table, record, {
    UpdateExpression: 'SET subscriptionArn = :arn, subscriptionState = :state, subscriptionStateAt = :observedAt',
    ConditionExpression: 'subscriptionArn = :previous',
    ExpressionAttributeValues: { ':arn': next.subscriptionArn, ':state': next.subscriptionState, ':observedAt': next.observedAt, ':previous': previousSubscriptionArn },
  });
  if (!written) throw new SubscriptionNotFoundError(record.configId);
}

/**
 * Stores the state of the record's SNS subscription only while the record still names
 * `subscriptionArn` (a deleted record is never written again, a new subscription keeps its own
 * state) and only over a state observed before `observedAt`. False when the record did not qualify.
 */
export async function storeSubscriptionState(
  table: RecordTable,
  record: Pick<Subscription, 'portalId' | 'configId' | 'subscriptionArn'>,
  { subscriptionState, observedAt }: ObservedState,
): Promise<boolean> {
  return change(table, record, {
    UpdateExpression: 'SET subscriptionState = :state, subscriptionStateAt = :observedAt',
    ConditionExpression: 'subscriptionArn = :subscriptionArn AND (attribute_not_exists(subscriptionStateAt) OR subscriptionStateAt < :observedAt)',
    ExpressionAttributeValues: { ':state': subscriptionState, ':observedAt': observedAt, ':subscriptionArn': record.subscriptionArn },
  });
}

type TopicOfRecord = Pick<Subscription, 'portalId' | 'configId' | 'topicArn'>;
/** A mark of what the reconciler set on a record's topic, kept only while the record has that topic. */
const storeTopicMark = (table: RecordTable, record: TopicOfRecord, attribute: 'deliveryStatusLogging' | 'topicPolicy', mark: string) =>
  change(table, record, {
    UpdateExpression: 'SET #mark = :mark',
    ConditionExpression: 'topicArn = :topicArn',
    ExpressionAttributeNames: { '#mark': attribute },
    ExpressionAttributeValues: { ':mark': mark, ':topicArn': record.topicArn },
  });

/** The reconciler's mark of the delivery status logging it gave the record's topic. */
export const storeDeliveryStatusMark = (table: RecordTable, record: TopicOfRecord, mark: string) => storeTopicMark(table, record, 'deliveryStatusLogging', mark);

/** The reconciler's mark of the access policy it gave the record's topic. */
export const storeTopicPolicyMark = (table: RecordTable, record: TopicOfRecord, mark: string) => storeTopicMark(table, record, 'topicPolicy', mark);

/** A confirmation request's turn: when it went out, its UTC day, and how many that day. */
export interface ConfirmationTurn {
  at: string;
  day: string;
  count: number;
}
const TURN_ATTRIBUTES = ['confirmationRequestedAt', 'confirmationRequestsDay', 'confirmationRequestsThatDay'] as const;
const turnOf = (record: Partial<Subscription>) => [record.confirmationRequestedAt, record.confirmationRequestsDay, record.confirmationRequestsThatDay] as const;

/** The three turn attributes are as `values` has them (an undefined one absent), under `#<tag>0..2`. */
function turnIs(values: readonly unknown[], tag: string) {
  const names: Record<string, string> = {};
  const given: Record<string, unknown> = {};
  const parts = TURN_ATTRIBUTES.map((attribute, index) => {
    names[`#${tag}${index}`] = attribute;
    if (values[index] === undefined) return `attribute_not_exists(#${tag}${index})`;
    given[`:${tag}${index}`] = values[index];
    return `#${tag}${index} = :${tag}${index}`;
  });
  return { expression: parts.join(' AND '), names, values: given };
}

/** Takes a turn: stored only while the record's turn is still as `record` has it (concurrent confirms cannot both send). */
export function takeConfirmationTurn(table: RecordTable, record: Subscription, taken: ConfirmationTurn): Promise<boolean> {
  const was = turnIs(turnOf(record), 'was');
  return change(table, record, {
    UpdateExpression: 'SET #was0 = :at, #was1 = :day, #was2 = :count',
    ConditionExpression: `attribute_exists(sk) AND ${was.expression}`,
    ExpressionAttributeNames: was.names,
    ExpressionAttributeValues: { ...was.values, ':at': taken.at, ':day': taken.day, ':count': taken.count },
  });
}

/** Gives a turn back (Subscribe failed): the record's turn as it was, only while it is still as `taken` wrote it. */
export async function giveBackConfirmationTurn(table: RecordTable, before: Subscription, taken: ConfirmationTurn): Promise<void> {
  const previous = turnOf(before);
  const set = Object.fromEntries(TURN_ATTRIBUTES.map((attribute, index) => [attribute, previous[index]]));
  const remove = TURN_ATTRIBUTES.filter((_, index) => previous[index] === undefined);
  const stillTaken = turnIs([taken.at, taken.day, taken.count], 'taken');
  const changes = updateOf({ set, remove });
  // False: another request took one since (or the record is gone): nothing to give back.
  await change(table, before, {
    ...changes,
    ConditionExpression: stillTaken.expression,
    ExpressionAttributeNames: { ...changes.ExpressionAttributeNames, ...stillTaken.names },
    ExpressionAttributeValues: { ...changes.ExpressionAttributeValues, ...stillTaken.values },
  });
}

/**
 * The record's side of storing a dead letter, for the dead-letter owner's transaction: counted on
 * its day, the latest failure, a new failing streak, one given way to the cap (counted out of its
 * own day, counted as dropped), the dead letter of the same message whose retry this one is
 * (`replacedFailedAt`: counted out, as retrying too), stale day counters removed. Fails the
 * transaction when the record is gone.
 */
export function deadLetterCounted(
  table: RecordTable,
  record: RecordKey,
  options: {
    failedAt: string;
    lastDeadLetterAt: string;
    beginsStreak?: boolean;
    evictedFailedAt?: string;
    /** The evicted one's retry was out: counted out of those retrying too. */
    evictedRetrying?: boolean;
    replacedFailedAt?: string;
    staleCounters?: readonly string[];
  },
): TransactionItem {
  const { failedAt, lastDeadLetterAt, beginsStreak, evictedFailedAt, replacedFailedAt, staleCounters = [] } = options;
  // One expression may not name a counter twice: a day's ins and outs are summed.
  const add: Record<string, number> = {};
  const count = (counter: string, by: number) => (add[counter] = (add[counter] ?? 0) + by);
  count(dayCounterOf(failedAt), 1);
  if (evictedFailedAt !== undefined) {
    add.deadLettersDropped = 1;
    count(dayCounterOf(evictedFailedAt), -1);
    if (options.evictedRetrying) count(retryingDayCounterOf(evictedFailedAt), -1);
  }
  if (replacedFailedAt !== undefined) {
    count(dayCounterOf(replacedFailedAt), -1);
    count(retryingDayCounterOf(replacedFailedAt), -1);
  }
  const remove = staleCounters.filter((name) => !(name in add));
  return { Update: { TableName: table.tableName, Key: keyOf(record), ...updateOf({ set: { lastDeadLetterAt, ...(beginsStreak && { failingSince: failedAt }) }, add, remove }), ConditionExpression: 'attribute_exists(sk)' } };
}

/**
 * The record's side of removing a dead letter (replay, a retry delivered or settled, the cap):
 * counted out of its day, and out of those retrying when its retry was out. Fails the transaction
 * when the record is gone.
 */
export function deadLetterCountedOut(table: RecordTable, letter: RecordKey & { failedAt: string; retrying?: boolean }): TransactionItem {
  const add = { [dayCounterOf(letter.failedAt)]: -1, ...(letter.retrying && { [retryingDayCounterOf(letter.failedAt)]: -1 }) };
  return { Update: { TableName: table.tableName, Key: keyOf(letter), ...updateOf({ add }), ConditionExpression: 'attribute_exists(sk)' } };
}

/** The record's side of a dead letter's retry sent (it stays kept): counted among those retrying. Fails the transaction when the record is gone. */
export function deadLetterRetrying(table: RecordTable, letter: RecordKey & { failedAt: string }): TransactionItem {
  return { Update: { TableName: table.tableName, Key: keyOf(letter), ...updateOf({ add: { [retryingDayCounterOf(letter.failedAt)]: 1 } }), ConditionExpression: 'attribute_exists(sk)' } };
}

/**
 * The record's side of storing delivery attempts, for the attempts owner's transaction: counters
 * added (kept per day, outcomes per hour), the latest of each outcome, stale counters removed.
 * Fails the transaction when the record is gone.
 */
export function attemptsCounted(
  table: RecordTable,
  record: RecordKey,
  {
    add,
    lastDeliveredAt,
    lastFailedAt,
    lastEventDeliveredAt,
    staleCounters,
  }: { add: Record<string, number>; lastDeliveredAt?: string; lastFailedAt?: string; lastEventDeliveredAt?: string; staleCounters: readonly string[] },
): TransactionItem {
  const remove = staleCounters.filter((name) => !(name in add));
  return { Update: { TableName: table.tableName, Key: keyOf(record), ...updateOf({ set: { lastDeliveredAt, lastFailedAt, lastEventDeliveredAt }, add, remove }), ConditionExpression: 'attribute_exists(sk)' } };
}

/**
 * Deactivates a failing subscription with the reason and when, only while it is activated and
 * still in the streak that began at `failingSince` (an activation or a new streak since ends it).
 * False when it no longer qualifies.
 */
export const disableForFailing = (table: RecordTable, record: RecordKey, failingSince: string, disabledAt: string) =>
  change(table, record, {
    UpdateExpression: 'SET #status = :deactivated, disabledReason = :reason, disabledAt = :at',
    ConditionExpression: '#status = :activated AND failingSince = :since',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':deactivated': 0, ':activated': ACTIVATED, ':reason': DISABLED_FOR_FAILING, ':at': disabledAt, ':since': failingSince },
  });
