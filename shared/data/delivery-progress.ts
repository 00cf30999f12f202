/**
 * Which recipients already got an event, for the tries after a partial failure: an SQS message
 * cannot be changed, so a retried event would otherwise be published again to every recipient.
 *
 * One item per event in the subscriptions table, in a partition of its own,
 * `delivery#<EventBridge event id>` (never a portal's: portal ids cannot contain '#'), written
 * only when some recipients got the event and others did not. It expires with the table's TTL
 * attribute DELIVERY_PROGRESS_DAYS after the last try that failed someone, longer than the
 * events dead-letter queue keeps a message; each such try renews it, because a redrive starts
 * the message's retention again (SQS Developer Guide, "Configure a dead-letter queue redrive"),
 * so an event redriven any number of times is still published only to those it did not reach.
 */
import { GetCommand, UpdateCommand } from './commands';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DELIVERY_PROGRESS_KEY as SORT_KEY, deliveryPartitionOf, EXPIRY_ATTRIBUTE, TABLE_KEYS } from './table';

export { DELIVERY_PARTITIONS_PATTERN, deliveryPartitionOf } from './table';
/** The events dead-letter queue keeps a message 14 days; a day more covers its redrive. */
export const DELIVERY_PROGRESS_DAYS = 15;

export class DeliveryProgress {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The config ids that already got the event. */
  async deliveredTo(eventId: string): Promise<Set<string>> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [TABLE_KEYS.partitionKey]: deliveryPartitionOf(eventId), [TABLE_KEYS.sortKey]: SORT_KEY },
        // Strongly consistent: the write of the previous try may be a moment old.
        ConsistentRead: true,
      }),
    );
    const configIds: unknown = Item?.configIds;
    return configIds instanceof Set ? new Set([...configIds].map(String)) : new Set();
  }

  /**
   * Adds recipients that got the event (a set union: concurrent tries never erase each other) and
   * renews the record's expiry; with none to add (DynamoDB refuses an empty set) it only renews.
   */
  async add(eventId: string, configIds: readonly string[]): Promise<void> {
    const expiry = Math.floor(Date.now() / 1000) + DELIVERY_PROGRESS_DAYS * 24 * 60 * 60;
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [TABLE_KEYS.partitionKey]: deliveryPartitionOf(eventId), [TABLE_KEYS.sortKey]: SORT_KEY },
        UpdateExpression: configIds.length > 0 ? 'ADD configIds :configIds SET #expiry = :expiry' : 'SET #expiry = :expiry',
        ExpressionAttributeNames: { '#expiry': EXPIRY_ATTRIBUTE },
        ExpressionAttributeValues: { ':expiry': expiry, ...(configIds.length > 0 && { ':configIds': new Set(configIds) }) },
      }),
    );
  }
}
