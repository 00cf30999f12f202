/**
 * The one lease on an item, for work that must be done once however many workers try: a claim
 * is a conditional write of until when (epoch ms) and by whom, which succeeds only while no other
 * holder's lease is live; a holder that crashed leaves a lease that lapses by itself. Replays and
 * retries claim dead letters with it, the retry sweep its due work, and idempotent requests their
 * key (shared/data/idempotency-records.ts, whose lease has no holder attribute: Powertools' layout).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { allOf, type Condition, EXISTS, updateOf } from './expressions';
import type { ItemKey, RecordTable } from './table';

/** The attributes an item kind keeps its lease in. */
export interface LeaseAttributes {
  /** Until when the lease holds, epoch ms. */
  readonly until: string;
  /** Who holds it; absent on a kind whose holder is known otherwise. */
  readonly holder?: string;
}

/** The lease has lapsed (or there never was one: a comparison with a missing attribute is false). */
export const leaseLapsed = (attributes: LeaseAttributes, now: number): Condition => ({
  expression: '#leaseUntil <= :leaseNow',
  names: { '#leaseUntil': attributes.until },
  values: { ':leaseNow': now },
});

/** No live lease but `holder`'s own (the SDK resent a claim whose first answer was lost). */
export function leaseFreeFor(attributes: Required<LeaseAttributes>, holder: string, now: number): Condition {
  const lapsed = leaseLapsed(attributes, now);
  return {
    expression: `attribute_not_exists(#leaseUntil) OR ${lapsed.expression} OR #leaseHolder = :leaseHolder`,
    names: { ...lapsed.names, '#leaseHolder': attributes.holder },
    values: { ...lapsed.values, ':leaseHolder': holder },
  };
}

const heldBy = (attributes: Required<LeaseAttributes>, holder: string): Condition => ({
  expression: '#leaseHolder = :leaseHolder',
  names: { '#leaseHolder': attributes.holder },
  values: { ':leaseHolder': holder },
});

/** Takes the lease on an existing item for `holder` until `until`: false when another holds it, or the item is gone. */
export async function takeLease(table: RecordTable, key: ItemKey, attributes: Required<LeaseAttributes>, holder: string, until: number, now = Date.now()): Promise<boolean> {
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key,
        ...updateOf({ set: { [attributes.until]: until, [attributes.holder]: holder } }, allOf(EXISTS, leaseFreeFor(attributes, holder, now))),
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Gives the lease back early (the work failed), so the next worker need not wait for it to lapse; nothing when it is no longer ours. */
export async function releaseLease(table: RecordTable, key: ItemKey, attributes: Required<LeaseAttributes>, holder: string): Promise<void> {
  try {
    await table.db.send(new UpdateCommand({ TableName: table.tableName, Key: key, ...updateOf({ remove: [attributes.until, attributes.holder] }, heldBy(attributes, holder)) }));
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** Deletes an item whose work is done, while `holder` still holds it; nothing when it is no longer ours. */
export async function deleteHeld(table: RecordTable, key: ItemKey, attributes: Required<LeaseAttributes>, holder: string): Promise<void> {
  const condition = heldBy(attributes, holder);
  try {
    await table.db.send(
      new DeleteCommand({
        TableName: table.tableName,
        Key: key,
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: condition.names,
        ExpressionAttributeValues: condition.values,
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
