/**
 * The item counting a portal's subscriptions (`portal` in its partition), for the atomic
 * per-portal limit: create's transaction counts a record in only while the portal is under its
 * limit, delete's counts it out, so concurrent creates never push a portal past it.
 */
import { GetCommand } from './commands';
import type { TransactionItem } from './transactions';
import { PORTAL_COUNTER_KEY, type RecordTable } from './table';


/** How many subscriptions the portal has (strongly consistent). */
export async function countFor(table: RecordTable, portalId: string): Promise<number> {
  const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: { portalId, sk: PORTAL_COUNTER_KEY }, ConsistentRead: true }));
  return typeof Item?.subscriptionCount === 'number' ? Item.subscriptionCount : 0;
}

/** One more subscription, in a transaction that fails (on this item's condition) when the portal already has `limit`. */
export function countedIn(table: RecordTable, portalId: string, limit: number): TransactionItem {
  return {
    Update: {
      TableName: table.tableName,
      Key: { portalId, sk: PORTAL_COUNTER_KEY },
      UpdateExpression: 'ADD subscriptionCount :one',
      ConditionExpression: 'attribute_not_exists(subscriptionCount) OR subscriptionCount < :limit',
      ExpressionAttributeValues: { ':one': 1, ':limit': limit },
    },
  };
}

/** One subscription fewer. */
export function countedOut(table: RecordTable, portalId: string): TransactionItem {
  return { Update: { TableName: table.tableName, Key: { portalId, sk: PORTAL_COUNTER_KEY }, UpdateExpression: 'ADD subscriptionCount :minusOne', ExpressionAttributeValues: { ':minusOne': -1 } } };
}
