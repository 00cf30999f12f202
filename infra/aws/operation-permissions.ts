/**
 * The AWS actions each operation's function calls, and nothing more: its IAM policy is built
 * from this map. Read off the code each handler runs (shared/subscriptions/repository.ts,
 * topics.ts, create-subscription.ts, delete-subscription.ts, confirm-subscription.ts, and for
 * create the idempotency records of shared/http/idempotency.ts); change it together with them.
 * The functions granted sns:Publish here are, with the dispatcher, the only principals the
 * topics' access policy lets publish (webhook-subscriptions-stack.ts).
 *
 * DynamoDB has no IAM action for a transaction as a whole: TransactWriteItems is authorized
 * per item, as the PutItem / UpdateItem / DeleteItem it contains.
 */
import type { OperationId } from '../../shared/operations';

export interface OperationPermissions {
  /**
   * Actions on the subscriptions table: on the portals' partitions only when the operation has
   * idempotency records too, on the whole table otherwise.
   */
  readonly table: readonly string[];
  /**
   * Actions on the operation's own idempotency partition (`idempotency#<operation id>`,
   * shared/subscriptions/table.ts), granted under a `dynamodb:LeadingKeys` condition naming it.
   */
  readonly idempotencyRecords?: readonly string[];
  /** Actions on the service's topics (`${TOPIC_PREFIX}-*`) and their subscriptions. */
  readonly topics: readonly string[];
}

/**
 * Update, activate and rename: one conditional UpdateItem each, and nothing in SNS (the
 * dispatcher reads the events and status when it publishes; subscriptions carry no filter).
 */
const CHANGE_RECORD: OperationPermissions = { table: ['dynamodb:UpdateItem'], topics: [] };

export const OPERATION_PERMISSIONS = {
  createSubscriptionRoute: {
    // GetItem: the early limit check (countFor), and the look-up after a write whose answer
    // was lost. UpdateItem + PutItem: the insert transaction (counter + record).
    table: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
    // shared/http/idempotency.ts: PutItem takes a key, GetItem reads one already
    // taken, UpdateItem stores the result, DeleteItem frees the key when the create failed.
    idempotencyRecords: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    // CreateTopic with Tags needs TagResource too; its access policy is an attribute of the same
    // call. DeleteTopic: undoing a create that failed half-way. Subscribe sets the delivery and
    // redrive policies in the same call.
    topics: ['sns:CreateTopic', 'sns:TagResource', 'sns:Subscribe', 'sns:DeleteTopic'],
  },
  updateSubscriptionRoute: CHANGE_RECORD,
  activateSubscriptionRoute: CHANGE_RECORD,
  // GetSubscriptionAttributes: the state of a subscription not known to be confirmed;
  // UpdateItem: the conditional write-back of a state SNS answered (subscription-states.ts).
  listSubscriptionsRoute: { table: ['dynamodb:Query', 'dynamodb:UpdateItem'], topics: ['sns:GetSubscriptionAttributes'] },
  renameSubscriptionRoute: CHANGE_RECORD,
  deleteSubscriptionRoute: {
    // GetItem: find the record. DeleteItem + UpdateItem: the remove transaction (record + counter).
    table: ['dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
    // DeleteTopic removes the topic's SNS subscription with it.
    topics: ['sns:DeleteTopic'],
  },
  // GetItem: find the record in the caller's portal; GetSubscriptionAttributes: whether its
  // endpoint confirmed; Publish: the test message to its topic.
  testSubscriptionRoute: { table: ['dynamodb:GetItem'], topics: ['sns:GetSubscriptionAttributes', 'sns:Publish'] },
  // GetItem: find the record (and look again when Subscribe failed); GetSubscriptionAttributes:
  // its state; Subscribe: the endpoint again; UpdateItem: the conditional write of a new ARN, or
  // of the state when it differs from the stored one.
  confirmSubscriptionRoute: {
    table: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    topics: ['sns:GetSubscriptionAttributes', 'sns:Subscribe'],
  },
  // GetItem: the record (it must exist in the caller's portal; its dropped count); Query: a page
  // of dead letters (shared/dead-letters/store.ts).
  listDeadLettersRoute: { table: ['dynamodb:GetItem', 'dynamodb:Query'], topics: [] },
  // GetItem: the record (with its dead-letter counts); GetSubscriptionAttributes: whether the endpoint
  // confirmed; Query: the dead letters chosen; UpdateItem: the claim of each (and its release);
  // Publish: each again; DeleteItem + UpdateItem: the transaction removing one and uncounting it.
  replayDeadLettersRoute: {
    table: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
    // shared/http/idempotency.ts, as for create.
    idempotencyRecords: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    topics: ['sns:GetSubscriptionAttributes', 'sns:Publish'],
  },
} as const satisfies Record<OperationId, OperationPermissions>;

/**
 * The operations the operations table marks `limitedPerPortal` also update their portal's rate
 * limit item (shared/http/middleware/portal-rate-limit.ts): granted in a statement of its own,
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
  topics: ['sns:CreateTopic', 'sns:TagResource', 'sns:Subscribe', 'sns:DeleteTopic'],
  accountListings: ['sns:ListTopics', 'sns:ListSubscriptions'],
} as const;
