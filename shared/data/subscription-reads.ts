/**
 * Reads of subscription records, always within one portal's partition but for the reconciler's
 * scan. Strongly consistent: a write a moment old is seen.
 */
import { GetCommand, QueryCommand, ScanCommand } from './commands';
import type { Subscription } from './subscription-record';
import { SUBSCRIPTION_KEY_PREFIX, subscriptionKeyOf, type RecordTable } from './table';

// A table of 100,000 subscriptions of about 1 KB is some 100 pages of 1 MB; the bound only stops a scan that never ends.
const MAX_SCAN_PAGES = 100_000;

export async function find(table: RecordTable, portalId: string, configId: string): Promise<Subscription | undefined> {
  const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: { portalId, sk: subscriptionKeyOf(configId) }, ConsistentRead: true }));
  return Item ? toSubscription(Item) : undefined;
}

/** Whether the subscription is stored, for a write whose answer was lost; undefined when DynamoDB cannot tell either. */
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
 * Every subscription of every portal: a Scan of the whole table, for the reconciler only, which
 * compares all records with all topics; every request-serving path stays inside its partition.
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

/** The stored item as a record: its attributes are the record's (written by subscription-records.ts alone), less the sort key. */
export function toSubscription(item: Record<string, unknown>): Subscription {
  const { sk: _sortKey, ...subscription } = item;
  // The one place an item becomes a record: the SDK types items as plain maps, and only this owner writes them.
  return subscription as unknown as Subscription;
}
