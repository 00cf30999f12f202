/**
 * Subscription records in DynamoDB, always addressed within one portal's partition (the
 * reconciler's scan aside): one function per operation on the records, each taking the table
 * first (bound-operations.ts says why).
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type Bound, bindOperations, type Operation } from './bound-operations';
import { SubscriptionLimitReachedError, SubscriptionNotFoundError, ThrottleNotSupportedError } from './errors';
import { ACTIVATED, type Subscription } from './model';
import type { SubscriptionState } from './sns-subscription';
import { DELIVERY_STATUS_ATTRIBUTE } from './delivery-status';
import { TOPIC_POLICY_ATTRIBUTE } from './topic-policy';
import { PORTAL_COUNTER_KEY, SUBSCRIPTION_KEY_PREFIX, subscriptionKeyOf } from './table';
import { CLEARED_BY_ACTIVATION } from '../dead-letters/due-work';

/** What rename, update and activate may change. */
export type SubscriptionChanges = Partial<Pick<Subscription, 'name' | 'events' | 'status'>> & {
  /** A number sets the throttle (http/https records only); null removes it. */
  maxReceivesPerSecond?: number | null;
};

/** Where a record's deliveries go: its topic and its endpoint's SNS subscription. */
export type DeliveryArns = Pick<Subscription, 'topicArn' | 'subscriptionArn'>;

/** A state of the record's SNS subscription, observed at `observedAt` (ISO 8601). */
export interface ObservedState {
  subscriptionState: SubscriptionState;
  observedAt: string;
}

// A table of 100,000 subscriptions of about 1 KB is some 100 pages of 1 MB; the bound only
// stops a scan that never ends.
const MAX_SCAN_PAGES = 100_000;

// Concurrent transactions on one portal's counter conflict; DynamoDB cancels the losers and
// they are tried again, a bounded number of times.
const MAX_TRANSACTION_ATTEMPTS = 12;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The table that holds the records, and the client that reaches it. */
export interface RecordTable {
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
}


/** How many subscriptions the portal has (strongly consistent). */
export async function countFor(table: RecordTable, portalId: string): Promise<number> {
  const { Item } = await table.db.send(
    new GetCommand({
      TableName: table.tableName,
      Key: { portalId, sk: PORTAL_COUNTER_KEY },
      ConsistentRead: true,
    }),
  );
  return typeof Item?.subscriptionCount === 'number' ? Item.subscriptionCount : 0;
}

/**
 * Stores a new subscription and counts it in one transaction, which fails when the portal
 * already has `limit` subscriptions: concurrent inserts can never exceed the limit.
 */
export async function insert(table: RecordTable, subscription: Subscription, limit: number): Promise<void> {
  const { portalId, configId, ...attributes } = subscription;
  const transactItems = () => ({
    TransactItems: [
      {
        Update: {
          TableName: table.tableName,
          Key: { portalId, sk: PORTAL_COUNTER_KEY },
          UpdateExpression: 'ADD subscriptionCount :one',
          ConditionExpression: 'attribute_not_exists(subscriptionCount) OR subscriptionCount < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': limit },
        },
      },
      {
        Put: {
          TableName: table.tableName,
          Item: { portalId, sk: subscriptionKeyOf(configId), configId, ...attributes },
          ConditionExpression: 'attribute_not_exists(sk)',
        },
      },
    ],
  });
  await transact(table, transactItems, (reasons) => {
    if (reasons[0] === 'ConditionalCheckFailed') throw new SubscriptionLimitReachedError(limit);
  });
}

export async function find(table: RecordTable, portalId: string, configId: string): Promise<Subscription | undefined> {
  const { Item } = await table.db.send(
    new GetCommand({
      TableName: table.tableName,
      Key: { portalId, sk: subscriptionKeyOf(configId) },
      ConsistentRead: true,
    }),
  );
  return Item ? toSubscription(Item) : undefined;
}

/**
 * Whether the subscription is stored, for a write whose answer was lost; undefined when
 * DynamoDB cannot tell either.
 */
export async function isStored(table: RecordTable, portalId: string, configId: string): Promise<boolean | undefined> {
  try {
    return (await find(table, portalId, configId)) !== undefined;
  } catch {
    return undefined;
  }
}

/** Every subscription of the portal, oldest first, through all of DynamoDB's pages. */
export async function listFor(table: RecordTable, portalId: string): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':portalId': portalId, ':prefix': SUBSCRIPTION_KEY_PREFIX },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) subscriptions.push(toSubscription(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return subscriptions;
}

/**
 * Every subscription of every portal, through all of DynamoDB's pages (strongly consistent).
 * A Scan of the whole table: for the reconciler only, which has to compare all records with
 * all topics; every request-serving path stays inside the caller's partition.
 */
export async function scanAllSubscriptions(table: RecordTable): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  let startKey: Record<string, unknown> | undefined;
  for (let page = 0; page < MAX_SCAN_PAGES; page++) {
    const result = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':prefix': SUBSCRIPTION_KEY_PREFIX },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) subscriptions.push(toSubscription(item));
    startKey = result.LastEvaluatedKey;
    if (!startKey) return subscriptions;
  }
  throw new Error(`The table scan did not end within ${MAX_SCAN_PAGES} pages.`);
}

/**
 * Points the record at a recreated topic and SNS subscription, with the state SNS gave the new
 * subscription, only if it still points where it did when the repair began (`previous`): a
 * record deleted or repaired meanwhile is left alone (SubscriptionNotFoundError). Answers the
 * record as written, with the events and status it has now.
 */
export async function replaceDeliveryArns(
  table: RecordTable,
  portalId: string,
  configId: string,
  previous: DeliveryArns,
  next: DeliveryArns & ObservedState,
): Promise<Subscription> {
  try {
    const { Attributes } = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId, sk: subscriptionKeyOf(configId) },
        UpdateExpression:
          'SET topicArn = :topicArn, subscriptionArn = :subscriptionArn, subscriptionState = :state, subscriptionStateAt = :observedAt',
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
 * Stores the state of the record's SNS subscription, and nothing else, only while the record
 * still names `subscriptionArn` (so a deleted record is never written again, and a new
 * subscription made meanwhile keeps its own state) and only over a state observed before
 * `observedAt` (a slower writer never undoes what a later look had learned). False when the
 * record did not qualify.
 */
export async function storeSubscriptionState(
  table: RecordTable,
  { portalId, configId, subscriptionArn }: Pick<Subscription, 'portalId' | 'configId' | 'subscriptionArn'>,
  { subscriptionState, observedAt }: ObservedState,
): Promise<boolean> {
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId, sk: subscriptionKeyOf(configId) },
        UpdateExpression: 'SET subscriptionState = :state, subscriptionStateAt = :observedAt',
        ConditionExpression: 'subscriptionArn = :subscriptionArn AND (attribute_not_exists(subscriptionStateAt) OR subscriptionStateAt < :observedAt)',
        ExpressionAttributeValues: { ':state': subscriptionState, ':observedAt': observedAt, ':subscriptionArn': subscriptionArn },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Remembers on the record the delivery status logging its topic was given (delivery-status.ts),
 * only while the record still has that topic; false when it has not.
 */
export async function storeDeliveryStatusMark(table: RecordTable, record: TopicOfRecord, mark: string): Promise<boolean> {
  return storeTopicMark(table, record, DELIVERY_STATUS_ATTRIBUTE, mark);
}

/**
 * Remembers on the record the access policy its topic was given (topic-policy.ts), only while the
 * record still has that topic; false when it has not.
 */
export async function storeTopicPolicyMark(table: RecordTable, record: TopicOfRecord, mark: string): Promise<boolean> {
  return storeTopicMark(table, record, TOPIC_POLICY_ATTRIBUTE, mark);
}

type TopicOfRecord = Pick<Subscription, 'portalId' | 'configId' | 'topicArn'>;

/** A mark of what the reconciler set on a record's topic, kept only while the record has that topic. */
async function storeTopicMark(table: RecordTable, { portalId, configId, topicArn }: TopicOfRecord, attribute: string, mark: string): Promise<boolean> {
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId, sk: subscriptionKeyOf(configId) },
        UpdateExpression: 'SET #mark = :mark',
        ConditionExpression: 'topicArn = :topicArn',
        ExpressionAttributeNames: { '#mark': attribute },
        ExpressionAttributeValues: { ':mark': mark, ':topicArn': topicArn },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Sets only the given attributes (a null one is removed), and only if the subscription exists in
 * this portal, so concurrent changes of different attributes never overwrite each other. A
 * throttle is set only on an http/https record, in the same condition: protocols never change.
 */
export async function update(table: RecordTable, portalId: string, configId: string, changes: SubscriptionChanges): Promise<Subscription> {
  const names = (Object.keys(changes) as (keyof SubscriptionChanges)[]).filter((name) => changes[name] !== undefined);
  const set = names.filter((name) => changes[name] !== null);
  // Activating clears a disabling for failing and its streak: the count starts again (docs/failed-deliveries.md).
  const removed: string[] = [...names.filter((name) => changes[name] === null), ...(changes.status === ACTIVATED ? CLEARED_BY_ACTIVATION : [])];
  const throttled = typeof changes.maxReceivesPerSecond === 'number';
  try {
    const { Attributes } = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId, sk: subscriptionKeyOf(configId) },
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
          set.length > 0
            ? { ...Object.fromEntries(set.map((name) => [`:${name}`, changes[name]])), ...(throttled && { ':http': 'http', ':https': 'https' }) }
            : undefined,
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

/** Deletes the record and uncounts it in one transaction. */
export async function remove(table: RecordTable, portalId: string, configId: string): Promise<void> {
  const transactItems = () => ({
    TransactItems: [
      {
        Delete: {
          TableName: table.tableName,
          Key: { portalId, sk: subscriptionKeyOf(configId) },
          ConditionExpression: 'attribute_exists(sk)',
        },
      },
      {
        Update: {
          TableName: table.tableName,
          Key: { portalId, sk: PORTAL_COUNTER_KEY },
          UpdateExpression: 'ADD subscriptionCount :minusOne',
          ExpressionAttributeValues: { ':minusOne': -1 },
        },
      },
    ],
  });
  await transact(table, transactItems, (reasons) => {
    if (reasons[0] === 'ConditionalCheckFailed') throw new SubscriptionNotFoundError(configId);
  });
}

/**
 * Runs a transaction, retrying it when it lost a conflict with a concurrent one. A
 * cancellation for any other reason goes to `onCancelled` (with one reason code per item)
 * to be turned into the caller's error.
 *
 * The SDK gives each send a client request token (ClientRequestToken is an idempotency
 * token) and keeps it when it resends after a lost answer, so DynamoDB does not apply a
 * transaction twice; test/service/consistency.test.ts checks it. A retry after a conflict is a new
 * transaction, so each attempt builds a new command (and gets a new token).
 */
async function transact(
  table: RecordTable,
  transactItems: () => ConstructorParameters<typeof TransactWriteCommand>[0],
  onCancelled: (reasons: (string | undefined)[]) => void,
) {
  for (let attempt = 1; ; attempt++) {
    try {
      await table.db.send(new TransactWriteCommand(transactItems()));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      const conflicted = reasons.includes('TransactionConflict');
      if (!conflicted) onCancelled(reasons);
      if (!conflicted || attempt >= MAX_TRANSACTION_ATTEMPTS) throw error;
      await sleep(Math.random() * 20 * attempt);
    }
  }
}

const RECORD_OPERATIONS = { countFor, insert, find, isStored, listFor, scanAllSubscriptions, replaceDeliveryArns, storeSubscriptionState, storeDeliveryStatusMark, storeTopicPolicyMark, update, remove };

/** Every operation on the records, bound to one table. The domain takes the ones it uses (a Pick of this). */
export type SubscriptionRepository = Bound<RecordTable, typeof RECORD_OPERATIONS>;

/** The operations named, bound to `table`: `repositoryOf(table, { find, update })`. */
export const repositoryOf = <Operations extends { [Name in keyof Operations]: Operation<RecordTable> }>(table: RecordTable, operations: Operations) =>
  bindOperations(table, operations);

/** Every operation on the records of `tableName`: for the reconciler and the suites, which use most of them. */
export function subscriptionRepository(db: DynamoDBDocumentClient, tableName: string): SubscriptionRepository {
  return repositoryOf({ db, tableName }, RECORD_OPERATIONS);
}

function toSubscription(item: Record<string, unknown>): Subscription {
  const { sk: _sortKey, ...subscription } = item;
  return subscription as unknown as Subscription;
}
