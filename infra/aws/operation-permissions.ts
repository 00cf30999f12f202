/**
 * The AWS actions each operation's function calls, and nothing more: its IAM policy is built
 * from this map. Read off the code each handler runs (the item owners of shared/data/, and
 * shared/subscriptions/topics.ts, create-subscription.ts, delete-subscription.ts,
 * confirm-subscription.ts); change it together with them. Only create (its insert) and the
 * reconciler (replaceDeliveryArns) may name a record's `topicArn`, in a write or in a condition:
 * IAM cannot tell the two apart (shared/data/subscription-records.ts).
 * The functions granted sns:Publish here are, with the dispatcher, the only principals the
 * topics' access policy lets publish (webhook-subscriptions-stack.ts).
 *
 * DynamoDB has no IAM action for a transaction as a whole: TransactWriteItems is authorized
 * per item, as the PutItem / UpdateItem / DeleteItem it contains.
 */
import { LETTER_LEASE, RETRIES_ATTRIBUTE } from '../../shared/data/dead-letters';
import { CLEARED_BY_ACTIVATION, DAY_COUNTER_PREFIX, RETRYING_DAY_PREFIX } from '../../shared/data/subscription-record';
import { RECOVERY_ATTRIBUTES } from '../../shared/data/recoveries';
import {
  DELIVERY_PARTITIONS_PATTERN,
  EXPIRY_ATTRIBUTE,
  IDEMPOTENCY_PARTITIONS_PATTERN,
  MESSAGE_ID_PARTITIONS_PATTERN,
  RETRY_DUE_PARTITIONS_PATTERN,
  RUNNING_RECOVERIES_PARTITION,
  TABLE_KEYS,
} from '../../shared/data/table';
import type { OperationId } from '../../shared/operations';
import { DELIVERY_STATUS_ATTRIBUTE } from '../../shared/subscriptions/delivery-status';
import { TOPIC_POLICY_ATTRIBUTE } from '../../shared/subscriptions/topic-policy';

/**
 * The partitions that are no portal's: the idempotency records', the dispatcher's delivery
 * records', the retry sweep's due work and the message log's owners by message id. A grant on the portals' partitions is held there by `dynamodb:LeadingKeys` (the
 * partition key of every item a request names, "Using IAM policy conditions for fine-grained
 * access control", DynamoDB Developer Guide): `ForAllValues:StringNotLike` these patterns.
 */
export const NOT_PORTAL_PARTITIONS = [IDEMPOTENCY_PARTITIONS_PATTERN, DELIVERY_PARTITIONS_PATTERN, RETRY_DUE_PARTITIONS_PATTERN, MESSAGE_ID_PARTITIONS_PATTERN, RUNNING_RECOVERIES_PARTITION] as const;
/** A grant held to the running recoveries' partition (shared/data/recoveries.ts). */
export const RUNNING_RECOVERIES_ONLY = { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [RUNNING_RECOVERIES_PARTITION] } } as const;
/** A grant held to the retry sweep's due work. */
export const RETRY_DUE_PARTITIONS_ONLY = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [RETRY_DUE_PARTITIONS_PATTERN] } } as const;
export const PORTAL_PARTITIONS_ONLY = { 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': [...NOT_PORTAL_PARTITIONS] } } as const;

/** The DynamoDB actions that change items (a transaction is authorized as these, per item). */
export const DYNAMODB_WRITES: readonly string[] = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/**
 * `dynamodb:Attributes` names every top-level attribute a request names, its condition's and
 * its key's too, so a list of the attributes a role may write starts with the key.
 */
const withKeys = (...attributes: string[]) => [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...attributes];

/** What storeSubscriptionState writes (and reads in its condition): list, confirm and the reconciler. */
const SUBSCRIPTION_STATE = ['subscriptionArn', 'subscriptionState', 'subscriptionStateAt'];

export interface OperationPermissions {
  /**
   * Actions on the subscriptions table, on the portals' partitions only (PORTAL_PARTITIONS_ONLY).
   */
  readonly table: readonly string[];
  /**
   * When the operation writes only some attributes: those (with the key), the one thing its
   * writes among `table` may name (`dynamodb:Attributes`). Its reads are not held to them.
   */
  readonly writtenAttributes?: readonly string[];
  /**
   * Actions on the operation's own idempotency partition (`idempotency#<operation id>`,
   * shared/data/table.ts), granted under a `dynamodb:LeadingKeys` condition naming it.
   */
  readonly idempotencyRecords?: readonly string[];
  /** Actions on the service's topics (`${TOPIC_PREFIX}-*`) and their subscriptions. */
  readonly topics: readonly string[];
  /** Whether it publishes, so logs what it publishes (message-log-permissions.ts). */
  readonly logsMessages?: true;
}

/**
 * Activate and rename: one conditional UpdateItem each of the one attribute they change
 * (shared/data/subscription-records.ts's update: its condition names `sk`), and nothing in SNS (the dispatcher reads
 * the events and status when it publishes; subscriptions carry no filter).
 */
const changeOf = (attribute: string): OperationPermissions => ({ table: ['dynamodb:UpdateItem'], writtenAttributes: withKeys(attribute), topics: [] });

export const OPERATION_PERMISSIONS = {
  createSubscriptionRoute: {
    // GetItem: the early limit check (countFor), and the look-up after a write whose answer
    // was lost. UpdateItem + PutItem: the insert transaction (counter + record).
    table: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
    // shared/data/idempotency-records.ts: UpdateItem takes a key and stores the result, GetItem
    // reads one already taken, DeleteItem frees the key when the create failed.
    idempotencyRecords: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    // CreateTopic with Tags needs TagResource too; its access policy is an attribute of the same
    // call. DeleteTopic: undoing a create that failed half-way. Subscribe sets the delivery and
    // redrive policies in the same call.
    topics: ['sns:CreateTopic', 'sns:TagResource', 'sns:Subscribe', 'sns:DeleteTopic'],
  },
  // UpdateItem: the events, the throttle and the filter (subscription-records.ts's update); SetSubscriptionAttributes:
  // the delivery policy with the new throttle on the record's SNS subscription (update-subscription.ts).
  // `protocol` is only read, by the condition that a throttle is set on an http/https record.
  updateSubscriptionRoute: {
    table: ['dynamodb:UpdateItem'],
    writtenAttributes: withKeys('events', 'maxReceivesPerSecond', 'filter', 'protocol'),
    topics: ['sns:SetSubscriptionAttributes'],
  },
  // Activating also removes a disabling for failing and its streak (CLEARED_BY_ACTIVATION, shared/data/subscription-record.ts).
  activateSubscriptionRoute: { table: ['dynamodb:UpdateItem'], writtenAttributes: withKeys('status', ...CLEARED_BY_ACTIVATION), topics: [] },
  // GetSubscriptionAttributes: the state of a subscription not known to be confirmed;
  // UpdateItem: the conditional write-back of a state SNS answered (subscription-states.ts).
  listSubscriptionsRoute: {
    table: ['dynamodb:Query', 'dynamodb:UpdateItem'],
    writtenAttributes: withKeys(...SUBSCRIPTION_STATE),
    topics: ['sns:GetSubscriptionAttributes'],
  },
  renameSubscriptionRoute: changeOf('name'),
  deleteSubscriptionRoute: {
    // GetItem: find the record. DeleteItem + UpdateItem: the remove transaction (record + counter,
    // shared/data/portal-counters.ts): its writes name the key and the counter only.
    table: ['dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
    writtenAttributes: withKeys('subscriptionCount'),
    // DeleteTopic removes the topic's SNS subscription with it.
    topics: ['sns:DeleteTopic'],
  },
  // GetItem: find the record in the caller's portal; GetSubscriptionAttributes: whether its
  // endpoint confirmed; Publish: the test message to its topic.
  testSubscriptionRoute: { table: ['dynamodb:GetItem'], topics: ['sns:GetSubscriptionAttributes', 'sns:Publish'], logsMessages: true },
  // GetItem: find the record (and look again when Subscribe failed); GetSubscriptionAttributes:
  // its state; Subscribe: the endpoint again, to the record's own topic; UpdateItem: the
  // conditional write of the new subscription ARN (replaceSubscriptionArn: never the topic), or of
  // the state when it differs from the stored one. A new attribute confirm writes must be added
  // here, or AWS refuses it.
  confirmSubscriptionRoute: {
    table: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    // and the confirmation request's turn (shared/subscriptions/confirmation-requests.ts).
    writtenAttributes: withKeys(...SUBSCRIPTION_STATE, 'confirmationRequestedAt', 'confirmationRequestsDay', 'confirmationRequestsThatDay'),
    topics: ['sns:GetSubscriptionAttributes', 'sns:Subscribe'],
  },
  // GetItem: the record (it must exist in the caller's portal; its dropped count); Query: a page
  // of dead letters (shared/data/dead-letters.ts).
  listDeadLettersRoute: { table: ['dynamodb:GetItem', 'dynamodb:Query'], topics: [] },
  // GetItem: the record (with its dead-letter counts); GetSubscriptionAttributes: whether the endpoint
  // confirmed; Query: the dead letters chosen; UpdateItem: the claim of each (and its release);
  // Publish: each again; DeleteItem + UpdateItem + PutItem: the transaction removing one, uncounting
  // it and ending its schedule in its ledger (its due retry: REPLAY_DUE_WORK).
  replayDeadLettersRoute: {
    table: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
    // The dead letter's claim, its day counters on the record (of the kept, of those retrying), its ledger (shared/data/dead-letters.ts remove).
    writtenAttributes: withKeys(LETTER_LEASE.until, LETTER_LEASE.holder, `${DAY_COUNTER_PREFIX}*`, `${RETRYING_DAY_PREFIX}*`, RETRIES_ATTRIBUTE, 'cancelled', EXPIRY_ATTRIBUTE),
    // shared/http/idempotency.ts, as for create.
    idempotencyRecords: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    topics: ['sns:GetSubscriptionAttributes', 'sns:Publish'],
    logsMessages: true,
  },
  // GetItem: the record (it must exist in the caller's portal; its protocol); Query: a page of
  // attempts (shared/data/attempts.ts).
  listAttemptsRoute: { table: ['dynamodb:GetItem', 'dynamodb:Query'], topics: [] },
  // GetItem: the record (it must exist in the caller's portal); Query: a page of its messages (shared/data/messages.ts).
  listMessagesRoute: { table: ['dynamodb:GetItem', 'dynamodb:Query'], topics: [] },
  // GetItem: the record (it must exist in the caller's portal, activated); GetSubscriptionAttributes:
  // whether its endpoint confirmed; Query: the event's latest logged message (shared/data/messages.ts);
  // Publish: it again to the record's topic; the message log's write of the new message.
  resendMessageRoute: { table: ['dynamodb:GetItem', 'dynamodb:Query'], topics: ['sns:GetSubscriptionAttributes', 'sns:Publish'], logsMessages: true },
  // GetItem: the record (it must exist in the caller's portal, activated); GetSubscriptionAttributes:
  // whether its endpoint confirmed; PutItem: the recovery (shared/data/recoveries.ts startRecovery),
  // its running entry (RECOVERY_RUNNING_WRITES, in the stack); UpdateItem: the recovery ended failed
  // when its job could not be queued; the job itself: sqs:SendMessage on the recovery queue (the stack).
  recoverMessagesRoute: {
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    writtenAttributes: withKeys(...RECOVERY_ATTRIBUTES, EXPIRY_ATTRIBUTE),
    idempotencyRecords: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    topics: ['sns:GetSubscriptionAttributes'],
  },
  // GetItem: the record (it must exist in the caller's portal); Query: a page of its recoveries (shared/data/recoveries.ts).
  listRecoveriesRoute: { table: ['dynamodb:GetItem', 'dynamodb:Query'], topics: [] },
  // Nothing but its rate-limit bucket (granted below): a filter tried on an example data, in the function alone.
  testFilterRoute: { table: [], topics: [] },
} as const satisfies Record<OperationId, OperationPermissions>;

/** Recover puts a recovery's running entry, and deletes it when its job could not be queued: there only (RUNNING_RECOVERIES_ONLY). */
export const RECOVERY_RUNNING_WRITES = { actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'], attributes: [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, 'configId', EXPIRY_ATTRIBUTE] } as const;

/** Replay deletes the due retry of each dead letter it sends, in the retry-due partitions (shared/data/dead-letters.ts remove). */
export const REPLAY_DUE_WORK = ['dynamodb:DeleteItem'] as const;

/**
 * Every operation that makes an AWS call also updates its portal's rate limit item (shared/http/middleware/portal-rate-limit.ts;
 * the operations table's `limitedPerPortal` or `portalBudget`): granted in a statement of its own,
 * held to the portals' partitions and to that item's attributes.
 */
export const RATE_LIMIT_PERMISSIONS = ['dynamodb:UpdateItem'] as const;

/**
 * The reconciler (shared/reconciliation/reconcile.ts): a Scan of the table; GetItem to read a
 * record again before repairing it and a conditional UpdateItem of its two ARNs (or of its
 * subscription's state), on the portals' partitions only; CreateTopic (+ TagResource for its tags) and Subscribe to recreate a lost
 * topic with its subscription, DeleteTopic for orphans, on the service's topics; and the
 * account-wide ListTopics and ListSubscriptions, which IAM can only grant on "*".
 */
export const RECONCILER_PERMISSIONS = {
  scan: ['dynamodb:Scan'],
  records: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  // replaceDeliveryArns, storeSubscriptionState, storeDeliveryStatusMark and storeTopicPolicyMark (shared/data/subscription-records.ts).
  writtenAttributes: withKeys('topicArn', ...SUBSCRIPTION_STATE, DELIVERY_STATUS_ATTRIBUTE, TOPIC_POLICY_ATTRIBUTE),
  // SetTopicAttributes: delivery status logging and the present access policy on topics made
  // before them (delivery-status.ts, topic-policy.ts). Get/SetSubscriptionAttributes: the
  // delivery policy of an http/https subscription read, and set again when it drifted.
  topics: [
    'sns:CreateTopic',
    'sns:TagResource',
    'sns:Subscribe',
    'sns:DeleteTopic',
    'sns:SetTopicAttributes',
    'sns:GetSubscriptionAttributes',
    'sns:SetSubscriptionAttributes',
  ],
  accountListings: ['sns:ListTopics', 'sns:ListSubscriptions'],
  // The retention of the delivery status log groups SNS makes for the topics (shared/reconciliation/log-retention.ts):
  // listed by name prefix among the account's log groups, set on the topics' own only.
  logGroupListing: ['logs:DescribeLogGroups'],
  topicLogGroups: ['logs:PutRetentionPolicy'],
} as const;
