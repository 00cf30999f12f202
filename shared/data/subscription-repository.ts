/**
 * The subscription record's operations bound to one table, for the domain: each function names the
 * ones it uses (`repositoryOf(table, { find, update })`), so its bundle carries only those.
 */
import { type Bound, repositoryOf } from './bound-operations';
import { countFor } from './portal-counters';
import { find, isStored, listFor, scanAllSubscriptions } from './subscription-reads';
import { insert, remove, replaceDeliveryArns, replaceSubscriptionArn, storeDeliveryStatusMark, storeSubscriptionState, storeTopicPolicyMark, update } from './subscription-records';
import type { RecordTable } from './table';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const RECORD_OPERATIONS = {
  countFor,
  insert,
  find,
  isStored,
  listFor,
  scanAllSubscriptions,
  replaceDeliveryArns,
  replaceSubscriptionArn,
  storeSubscriptionState,
  storeDeliveryStatusMark,
  storeTopicPolicyMark,
  update,
  remove,
};

/** Every operation on the records, bound to one table. The domain takes the ones it uses (a Pick of this). */
export type SubscriptionRepository = Bound<RecordTable, typeof RECORD_OPERATIONS>;


/** Every operation on the records of `tableName`: for the reconciler and the suites, which use most of them. */
export function subscriptionRepository(db: DynamoDBDocumentClient, tableName: string): SubscriptionRepository {
  return repositoryOf({ db, tableName }, RECORD_OPERATIONS);
}

export { repositoryOf };
export { countFor, find, insert, isStored, listFor, remove, replaceDeliveryArns, replaceSubscriptionArn, scanAllSubscriptions, storeDeliveryStatusMark, storeSubscriptionState, storeTopicPolicyMark, update };
export type { DeliveryArns, ObservedState, SubscriptionChanges } from './subscription-records';
