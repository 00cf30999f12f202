/**
 * The one lease on an item, for work that must be done once however many workers try: a claim
 * is a conditional write of until when (epoch ms) and by whom, which succeeds only while no other
 * holder's lease is live; a holder that crashed leaves a lease that lapses by itself. Replays and
 * retries claim dead letters with it, the retry sweep its due work, and idempotent requests their
 * key (shared/data/idempotency-records.ts, whose lease has no holder attribute: Powertools' layout).
 */
import { conditionHeld, DeleteCommand, UpdateCommand } from './commands';
import type { Condition } from './expressions';
import type { ItemKey, RecordTable } from './table';

/** The attributes an item kind keeps its lease in. */
export interface LeaseAttributes {
  /** Until when the lease holds, epoch ms. */
  readonly until: string;
  /** Who holds it; absent on a kind whose holder is known otherwise. */
  readonly holder?: string;
}

/** The lease has lapsed (or there never was one: a comparison with a missing attribute is false). */
export const leaseLapsed = (attributes: LeaseAttributes, now: number): Condition => ({ expression: '#lu <= :ln', names: { '#lu': attributes.until }, values: { ':ln': now } });

/** One write of a lease: taken (an UpdateItem on a free lease), given back (an UpdateItem while ours), or its item deleted (while ours). */
async function leaseWrite(table: RecordTable, key: ItemKey, attributes: Required<LeaseAttributes>, holder: string, command: 'take' | 'release' | 'delete', extra: Record<string, unknown> = {}): Promise<boolean> {
  const { until, holder: holderAttribute } = attributes;
  // The attributes by their names (none is a reserved word): no placeholders to carry.
  const input = {
    TableName: table.tableName,
    Key: key,
    ConditionExpression:
      command === 'take' ? `attribute_exists(sk) AND (attribute_not_exists(${until}) OR ${until} <= :ln OR ${holderAttribute} = :lh)` : `${holderAttribute} = :lh`,
    ExpressionAttributeValues: { ':lh': holder, ...extra },
  };
  return conditionHeld(
    command === 'delete'
      ? table.db.send(new DeleteCommand(input))
      : table.db.send(new UpdateCommand({ ...input, UpdateExpression: command === 'take' ? `SET ${until} = :lu, ${holderAttribute} = :lh` : `REMOVE ${until}, ${holderAttribute}` })),
  );
}

/**
 * Takes the lease on an existing item for `holder` until `until`, unless another holder's is live
 * (a holder may take its own again: the SDK resent a take whose first answer was lost). False when
 * another holds it, or the item is gone.
 */
export const takeLease = (table: RecordTable, key: ItemKey, attributes: Required<LeaseAttributes>, holder: string, until: number, now = Date.now()) =>
  leaseWrite(table, key, attributes, holder, 'take', { ':lu': until, ':ln': now });

/** Gives the lease back early (the work failed), so the next worker need not wait for it to lapse; nothing when it is no longer ours. */
export async function releaseLease(table: RecordTable, key: ItemKey, attributes: Required<LeaseAttributes>, holder: string): Promise<void> {
  await leaseWrite(table, key, attributes, holder, 'release');
}

/** Deletes an item whose work is done, while `holder` still holds it; nothing when it is no longer ours. */
export async function deleteHeld(table: RecordTable, key: ItemKey, attributes: Required<LeaseAttributes>, holder: string): Promise<void> {
  await leaseWrite(table, key, attributes, holder, 'delete');
}
