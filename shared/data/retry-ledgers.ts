/**
 * The retry ledger of a dead letter's event (`retried#<configId>#<eventId>`, table.ts): how many
 * scheduled retries it had and whether a replay ended them. Written when a retry or a replay sends
 * the dead letter (in their transactions), read one at a time, or a recorder batch's all at once.
 */
import { BatchGetCommand, GetCommand, UpdateCommand } from './commands';
import { EXPIRY_ATTRIBUTE, type RecordTable, retryLedgerKeyOf } from './table';
import type { TransactionItem } from './transactions';

/** What a ledger says of an event's retries for a subscription. */
export interface RetryLedger {
  retries: number;
  /** A replay sent it by hand: its schedule is over. */
  cancelled: boolean;
  /**
   * The dead letter whose scheduled retry is out, and the retry's SNS message id: should the retry
   * become a dead letter too, that one replaces it (the recorder), so the event is counted once.
   */
  retrying?: RetryOut;
  /**
   * Until when (epoch ms) a scheduled retry of the event is being sent and not yet named in
   * `retrying`: SNS can give up on a retry (an endpoint's 4xx) before the sweep's transaction that
   * names it commits, and the recorder holds back a dead letter of the event until then.
   */
  sendingUntil?: number;
}

/** A dead letter's retry sent: the dead letter's sort key and failure time, and SNS's id of the retry. */
export interface RetryOut {
  sk: string;
  failedAt: string;
  messageId: string;
}

/** The ledger attributes of the retry out. */
export const RETRYING_LEDGER_ATTRIBUTES = ['retryingSk', 'retryingFailedAt', 'retryMessageId', 'retrySendingUntil'] as const;

/** A ledger outlives the dead letters of its event (14 to 15 days) by a day. */
const LEDGER_KEEP_S = 16 * 86_400;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The ledger of an event whose schedule a replay ended, written in the replay's transaction. */
export function ledgerPut(table: RecordTable, event: { portalId: string; configId: string; eventId: string }, ledger: RetryLedger): TransactionItem {
  const item = { portalId: event.portalId, sk: retryLedgerKeyOf(event.configId, event.eventId), retries: ledger.retries, cancelled: ledger.cancelled, [EXPIRY_ATTRIBUTE]: nowSeconds() + LEDGER_KEEP_S };
  return { Put: { TableName: table.tableName, Item: item } };
}

/**
 * The ledger of an event a scheduled retry sent, `retries` on, written in the retry's transaction.
 * It keeps a replay's end of the schedule written meanwhile: a replay of a later dead letter of the
 * same event may commit before this retry's removal does, and a new dead letter must then wait for
 * a person, not get a retry again.
 */
export function ledgerRetried(table: RecordTable, event: { portalId: string; configId: string; eventId: string }, retries: number, out: RetryOut): TransactionItem {
  return {
    Update: {
      TableName: table.tableName,
      Key: { portalId: event.portalId, sk: retryLedgerKeyOf(event.configId, event.eventId) },
      UpdateExpression:
        'SET #retries = :retries, #cancelled = if_not_exists(#cancelled, :no), #expiry = :expiry, retryingSk = :sk, retryingFailedAt = :failedAt, retryMessageId = :messageId REMOVE retrySendingUntil',
      ExpressionAttributeNames: { '#retries': 'retries', '#cancelled': 'cancelled', '#expiry': EXPIRY_ATTRIBUTE },
      ExpressionAttributeValues: { ':retries': retries, ':no': false, ':expiry': nowSeconds() + LEDGER_KEEP_S, ':sk': out.sk, ':failedAt': out.failedAt, ':messageId': out.messageId },
    },
  };
}

/**
 * A scheduled retry of the event about to be published, until `untilMs` (its claim's end): written
 * before the publish, so a dead letter of the retry that comes before the retry is named (ledgerRetried)
 * is held back by the recorder rather than counted beside the one being retried.
 */
export async function markRetrySending(table: RecordTable, event: { portalId: string; configId: string; eventId: string }, untilMs: number): Promise<void> {
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: { portalId: event.portalId, sk: retryLedgerKeyOf(event.configId, event.eventId) },
      UpdateExpression: 'SET retrySendingUntil = :until, #expiry = if_not_exists(#expiry, :expiry)',
      ExpressionAttributeNames: { '#expiry': EXPIRY_ATTRIBUTE },
      ExpressionAttributeValues: { ':until': untilMs, ':expiry': nowSeconds() + LEDGER_KEEP_S },
    }),
  );
}

/** How many scheduled retries the event had for the subscription, and whether a replay ended them; undefined before the first. */
export async function retryLedger(table: RecordTable, portalId: string, configId: string, eventId: string): Promise<RetryLedger | undefined> {
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: { portalId, sk: retryLedgerKeyOf(configId, eventId) }, ConsistentRead: true }),
  );
  return ledgerOf(Item);
}

/** What a ledger item says; undefined when there is none (or it expired and DynamoDB has not deleted it yet). */
function ledgerOf(item: Record<string, unknown> | undefined): RetryLedger | undefined {
  if (!item || (typeof item[EXPIRY_ATTRIBUTE] === 'number' && item[EXPIRY_ATTRIBUTE] <= nowSeconds())) return undefined;
  const retrying = typeof item.retryingSk === 'string' && typeof item.retryingFailedAt === 'string' && typeof item.retryMessageId === 'string'
    ? { sk: item.retryingSk, failedAt: item.retryingFailedAt, messageId: item.retryMessageId }
    : undefined;
  const sendingUntil = typeof item.retrySendingUntil === 'number' ? item.retrySendingUntil : undefined;
  return { retries: typeof item.retries === 'number' ? item.retries : 0, cancelled: item.cancelled === true, ...(retrying && { retrying }), ...(sendingUntil !== undefined && { sendingUntil }) };
}

/** The ledger keys of a batch's events per read: BatchGetItem takes at most 100 keys. */
const LEDGERS_PER_READ = 100;
/** How often keys DynamoDB left unprocessed are asked again; what is still left is read one by one. */
const LEDGER_READ_ROUNDS = 3;

/**
 * The retry ledgers of many events at once (the recorder's batch): one BatchGetItem per 100,
 * consistent reads. Keyed by `ledgerLookupKey`; a key absent from the answer was not read (left
 * unprocessed), one present with undefined has no ledger.
 */
export async function retryLedgers(
  table: RecordTable,
  events: readonly { portalId: string; configId: string; eventId: string }[],
): Promise<Map<string, RetryLedger | undefined>> {
  const found = new Map<string, RetryLedger | undefined>();
  const keys = [...new Map(events.map((event) => [ledgerLookupKey(event), { portalId: event.portalId, sk: retryLedgerKeyOf(event.configId, event.eventId) }])).values()];
  for (let start = 0; start < keys.length; start += LEDGERS_PER_READ) {
    let asked: Record<string, unknown>[] = keys.slice(start, start + LEDGERS_PER_READ);
    const answered = new Set<string>();
    for (let round = 0; round < LEDGER_READ_ROUNDS && asked.length > 0; round++) {
      const { Responses, UnprocessedKeys } = await table.db.send(
        new BatchGetCommand({ RequestItems: { [table.tableName]: { Keys: asked, ConsistentRead: true } } }),
      );
      for (const item of Responses?.[table.tableName] ?? []) {
        found.set(`${item.portalId}\n${item.sk}`, ledgerOf(item));
        answered.add(`${item.portalId}\n${item.sk}`);
      }
      const left = UnprocessedKeys?.[table.tableName]?.Keys ?? [];
      // Asked and not left over: read, and there is no ledger.
      const leftKeys = new Set(left.map((key) => `${key.portalId}\n${key.sk}`));
      for (const key of asked) {
        const id = `${key.portalId}\n${key.sk}`;
        if (!answered.has(id) && !leftKeys.has(id)) found.set(id, undefined);
      }
      asked = left;
    }
  }
  return found;
}

/** The key `retryLedgers` answers an event's ledger under. */
export const ledgerLookupKey = ({ portalId, configId, eventId }: { portalId: string; configId: string; eventId: string }) =>
  `${portalId}\n${retryLedgerKeyOf(configId, eventId)}`;
