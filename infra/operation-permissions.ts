/**
 * The AWS actions each operation's function calls, and nothing more: its IAM policy is built
 * from this map. Read off the code each handler runs (shared/subscriptions/repository.ts,
 * topics.ts, create-subscription.ts, delete-subscription.ts, and for create the idempotency
 * records of shared/http/idempotency.ts); change it together with them.
 *
 * DynamoDB has no IAM action for a transaction as a whole: TransactWriteItems is authorized
 * per item, as the PutItem / UpdateItem / DeleteItem it contains.
 */
import type { OperationId } from '../shared/operations';

export interface OperationPermissions {
  /** Actions on the subscriptions table. */
  readonly table: readonly string[];
  /** Actions on the service's topics (`${TOPIC_PREFIX}-*`) and their subscriptions. */
  readonly topics: readonly string[];
}

/** Rename, update and activate: one conditional UpdateItem of their own attributes. */
const UPDATE_ATTRIBUTES: OperationPermissions = { table: ['dynamodb:UpdateItem'], topics: [] };

export const OPERATION_PERMISSIONS = {
  createSubscriptionRoute: {
    // GetItem: the early limit check (countFor), and the look-up after a write whose answer
    // was lost. UpdateItem + PutItem: the insert transaction (counter + record).
    // Idempotency records (Powertools' DynamoDBPersistenceLayer): PutItem takes a key, GetItem
    // reads one already taken, UpdateItem stores the result, DeleteItem frees the key when the
    // create failed.
    table: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    // CreateTopic with Tags needs TagResource too. DeleteTopic: undoing a create that failed
    // half-way.
    topics: ['sns:CreateTopic', 'sns:TagResource', 'sns:Subscribe', 'sns:DeleteTopic'],
  },
  updateSubscriptionRoute: UPDATE_ATTRIBUTES,
  activateSubscriptionRoute: UPDATE_ATTRIBUTES,
  listSubscriptionsRoute: { table: ['dynamodb:Query'], topics: [] },
  renameSubscriptionRoute: UPDATE_ATTRIBUTES,
  deleteSubscriptionRoute: {
    // GetItem: find the record. DeleteItem + UpdateItem: the remove transaction (record + counter).
    table: ['dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
    // DeleteTopic removes the topic's SNS subscription with it.
    topics: ['sns:DeleteTopic'],
  },
} as const satisfies Record<OperationId, OperationPermissions>;
