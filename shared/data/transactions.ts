/**
 * Transactions over several item kinds, each item's clause built by its owner. DynamoDB has no IAM
 * action for a transaction as a whole: it authorizes each item as the PutItem, UpdateItem or
 * DeleteItem it holds.
 */
import { TransactWriteCommand, TransactionCanceledException } from './commands';
import type { RecordTable } from './table';

/** One item of a transaction. */
export type TransactionItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

// Concurrent transactions on one item conflict; DynamoDB cancels the losers and they are tried
// again, a bounded number of times.
const MAX_TRANSACTION_ATTEMPTS = 12;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The reason code of each item of a cancelled transaction, in order; undefined for any other error. */
export function cancellationCodes(error: unknown): (string | undefined)[] | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code);
}

/** Whether a transaction was cancelled because one of its conditions failed. */
export const failedACondition = (error: unknown) => cancellationCodes(error)?.includes('ConditionalCheckFailed') === true;

/** Runs one transaction once. */
export async function transactOnce(table: RecordTable, items: TransactionItem[]): Promise<void> {
  await table.db.send(new TransactWriteCommand({ TransactItems: items }));
}

/**
 * Runs a transaction, again when it lost a conflict with a concurrent one. A cancellation for
 * any other reason goes to `onCancelled` (one reason code per item) to be turned into the caller's
 * error. The SDK gives each send a client request token and keeps it when it resends after a lost
 * answer, so DynamoDB does not apply one twice (test/service/consistency.test.ts); a retry after a
 * conflict is a new transaction, so each attempt builds its items anew (and gets a new token).
 */
export async function transact(table: RecordTable, items: () => TransactionItem[], onCancelled: (codes: (string | undefined)[]) => void): Promise<void> {
  // Self-contained (its own send and reasons): the bundles that retry a conflict use nothing else here.
  for (let attempt = 1; ; attempt++) {
    try {
      await table.db.send(new TransactWriteCommand({ TransactItems: items() }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      const conflicted = codes.includes('TransactionConflict');
      if (!conflicted) onCancelled(codes);
      if (!conflicted || attempt >= MAX_TRANSACTION_ATTEMPTS) throw error;
      await sleep(Math.random() * 20 * attempt);
    }
  }
}
