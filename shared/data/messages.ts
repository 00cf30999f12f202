/**
 * The message log: every message the service published to a subscription's topic, in the partition
 * of the portal that owns the subscription (sort key messageKeyOf), with the exact body the endpoint
 * receives and its delivery state. Beside each, a small item in a partition of its own keyed by SNS's
 * message id (messageIdPartitionOf) says whose message it is: the attempts consumer joins SNS's
 * delivery status records to messages through it, and takes the portal from it rather than from
 * anything another principal could change (docs/decisions/message-log-written-inline.md).
 *
 * The two items of a message are written together in one BatchWriteItem (up to 12 messages a call),
 * right after SNS accepted the messages. Their keys hold SNS's message id, so a write repeated (its
 * unprocessed items, a retried batch) leaves one item each. Both expire through the table's TTL
 * MESSAGE_KEEP_DAYS after the end of the UTC day they were sent on; every read skips expired ones.
 */
import { BatchGetCommand, BatchWriteCommand, conditionHeld, QueryCommand, UpdateCommand } from './commands';
import { dayExpiryOf } from './subscription-record';
import { EXPIRY_ATTRIBUTE, MESSAGE_ID_KEY, messageIdPartitionOf, messageKeyOf, messagePrefixOf, type RecordTable } from './table';

/**
 * `retried`: dead-lettered, then sent again by a scheduled retry, which is the newer message of the
 * same event (its own state says how that one fares).
 */
export type MessageStatus = 'pending' | 'delivered' | 'failed' | 'dead-lettered' | 'retried';

/**
 * The attribute holding a message's delivery state. Not `status`: IAM tells no item kind from
 * another within a partition, and a role that may write `status` could reactivate a subscription.
 */
export const STATE_ATTRIBUTE = 'deliveryState';

/** What the publishers write: the message's attributes, and its owner's by message id (the IAM grants name them). */
export const MESSAGE_ATTRIBUTES = ['configId', 'messageId', 'eventId', 'event', 'occurredAt', 'sentAt', 'body', STATE_ATTRIBUTE, 'attempts'] as const;
export const MESSAGE_OWNER_ATTRIBUTES = ['subscriptionPortalId', 'configId', 'messageId', 'messageSk', 'event', 'eventId'] as const;
/** The owner's attribute that a scheduled retry adds (the retry sweep's grant alone names it). */
export const RETRY_OF_ATTRIBUTE = 'retryOf';
/** What a delivery status changes on a message (the attempts consumer, the dead-letter recorder). */
export const MESSAGE_STATE_ATTRIBUTES = [STATE_ATTRIBUTE, 'lastAttemptAt', 'statusCode', 'attempts'] as const;

/** One message SNS accepted for a subscription's topic. */
export interface PublishedMessage {
  portalId: string;
  configId: string;
  /** SNS's message id. */
  messageId: string;
  eventId: string;
  event: string;
  occurredAt: string;
  /** When SNS accepted it, ISO 8601. */
  sentAt: string;
  /** The body as published, byte for byte (at most SNS's 256 KiB; DynamoDB's item limit is 400 KB). */
  body: string;
  /** A scheduled retry: the sort key of the dead letter it sends again, which leaves once it is delivered. */
  retryOf?: string;
}

/** Whose a logged message is, found by SNS's message id. */
export interface MessageOwner {
  portalId: string;
  configId: string;
  /** The message's sort key in its portal's partition. */
  sk: string;
  event: string;
  eventId: string;
  /** A scheduled retry's: the sort key of the dead letter it sent again. */
  retryOf?: string;
}

/** Writes of the message log, bound to a table and MESSAGE_KEEP_DAYS (what the publishers are handed). */
export interface MessageLog {
  /** Logs the messages; answers those that could not be logged (the caller says so in its log). */
  log(messages: readonly PublishedMessage[]): Promise<{ notLogged: PublishedMessage[]; error?: unknown }>;
}

/** Messages per BatchWriteItem: two items each, within its 25 (DynamoDB API Reference, "BatchWriteItem"). */
const MESSAGES_PER_BATCH = 12;
/** BatchGetItem takes at most 100 keys (DynamoDB API Reference, "BatchGetItem"). */
const KEYS_PER_GET = 100;
/** Tries of the unprocessed items of a batch write or get, with a doubling wait (as the API Reference advises). */
const MAX_TRIES = 5;
const BATCHES_IN_FLIGHT = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nowSeconds = () => Math.floor(Date.now() / 1000);

export function messageLogOf(table: RecordTable, keepDays: number): MessageLog {
  return { log: (messages) => logMessages(table, keepDays, messages) };
}

/** The two items of a message: the message itself, and its owner by message id. */
function itemsOf(message: PublishedMessage, keepDays: number) {
  const expiry = dayExpiryOf(message.sentAt, keepDays);
  const sk = messageKeyOf(message.configId, message.sentAt, message.messageId);
  return [
    {
      portalId: message.portalId,
      sk,
      configId: message.configId,
      messageId: message.messageId,
      eventId: message.eventId,
      event: message.event,
      occurredAt: message.occurredAt,
      sentAt: message.sentAt,
      body: message.body,
      [STATE_ATTRIBUTE]: 'pending' satisfies MessageStatus,
      attempts: 0,
      [EXPIRY_ATTRIBUTE]: expiry,
    },
    {
      portalId: messageIdPartitionOf(message.messageId),
      sk: MESSAGE_ID_KEY,
      subscriptionPortalId: message.portalId,
      configId: message.configId,
      messageId: message.messageId,
      messageSk: sk,
      event: message.event,
      eventId: message.eventId,
      ...(message.retryOf !== undefined && { retryOf: message.retryOf }),
      [EXPIRY_ATTRIBUTE]: expiry,
    },
  ];
}

export async function logMessages(table: RecordTable, keepDays: number, messages: readonly PublishedMessage[]): Promise<{ notLogged: PublishedMessage[]; error?: unknown }> {
  const notLogged: PublishedMessage[] = [];
  let lastError: unknown;
  const batches: PublishedMessage[][] = [];
  for (let start = 0; start < messages.length; start += MESSAGES_PER_BATCH) batches.push(messages.slice(start, start + MESSAGES_PER_BATCH));
  const inFlight = new Set<Promise<void>>();
  for (const batch of batches) {
    const writing = writeBatch(table, keepDays, batch)
      .then((left) => void notLogged.push(...left))
      .catch((error: unknown) => {
        lastError = error;
        notLogged.push(...batch);
      })
      .finally(() => inFlight.delete(writing));
    inFlight.add(writing);
    if (inFlight.size >= BATCHES_IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  return { notLogged, ...(lastError !== undefined && { error: lastError }) };
}

/** One BatchWriteItem of up to 12 messages and its unprocessed items; answers the messages left unwritten. */
async function writeBatch(table: RecordTable, keepDays: number, batch: readonly PublishedMessage[]): Promise<PublishedMessage[]> {
  let requests = batch.flatMap((message) => itemsOf(message, keepDays)).map((Item) => ({ PutRequest: { Item } }));
  for (let tries = 1; requests.length > 0; tries++) {
    const { UnprocessedItems } = await table.db.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: requests } }));
    requests = (UnprocessedItems?.[table.tableName] ?? []) as typeof requests;
    if (requests.length === 0) return [];
    if (tries >= MAX_TRIES) break;
    await sleep(25 * 2 ** tries);
  }
  const left = new Set(requests.map(({ PutRequest }) => String(PutRequest.Item.messageId)));
  return batch.filter((message) => left.has(message.messageId));
}

/** The owners of the logged messages of these SNS message ids (consistent reads); ids none logged, or expired, are absent. */
export async function ownersOf(table: RecordTable, messageIds: readonly string[]): Promise<Map<string, MessageOwner>> {
  const owners = new Map<string, MessageOwner>();
  const distinct = [...new Set(messageIds)];
  for (let start = 0; start < distinct.length; start += KEYS_PER_GET) {
    let keys: Record<string, unknown>[] = distinct.slice(start, start + KEYS_PER_GET).map((id) => ({ portalId: messageIdPartitionOf(id), sk: MESSAGE_ID_KEY }));
    for (let tries = 1; keys.length > 0; tries++) {
      const { Responses, UnprocessedKeys } = await table.db.send(
        new BatchGetCommand({ RequestItems: { [table.tableName]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of Responses?.[table.tableName] ?? []) {
        if (!(Number(item[EXPIRY_ATTRIBUTE]) > nowSeconds())) continue;
        owners.set(String(item.messageId), {
          portalId: String(item.subscriptionPortalId),
          configId: String(item.configId),
          sk: String(item.messageSk),
          event: String(item.event),
          eventId: String(item.eventId),
          ...(typeof item.retryOf === 'string' && { retryOf: item.retryOf }),
        });
      }
      keys = UnprocessedKeys?.[table.tableName]?.Keys ?? [];
      if (keys.length === 0) break;
      if (tries >= MAX_TRIES) throw new Error(`DynamoDB left ${keys.length} message ids unread after ${MAX_TRIES} tries.`);
      await sleep(25 * 2 ** tries);
    }
  }
  return owners;
}

/** A delivery status SNS logged for a message. */
export interface MessageAttempt {
  status: 'delivered' | 'failed';
  at: string;
  statusCode: number | null;
  /** SNS's count of tries. */
  attempts: number;
}

/**
 * Sets a logged message's delivery state from an attempt, unless a later attempt set it already or
 * it was dead-lettered or retried (the final words); false when not changed (or the message is gone).
 */
export function messageAttempted(table: RecordTable, owner: Pick<MessageOwner, 'portalId' | 'sk'>, attempt: MessageAttempt): Promise<boolean> {
  return conditionHeld(
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId: owner.portalId, sk: owner.sk },
        UpdateExpression: 'SET #state = :status, lastAttemptAt = :at, statusCode = :code, attempts = :attempts',
        ConditionExpression: 'attribute_exists(sk) AND NOT #state IN (:deadLettered, :retried) AND (attribute_not_exists(lastAttemptAt) OR lastAttemptAt <= :at)',
        ExpressionAttributeNames: { '#state': STATE_ATTRIBUTE },
        ExpressionAttributeValues: { ':status': attempt.status, ':at': attempt.at, ':code': attempt.statusCode, ':attempts': attempt.attempts, ':deadLettered': 'dead-lettered', ':retried': 'retried' },
      }),
    ),
  );
}

/**
 * Marks a logged message dead-lettered (SNS gave up on it), unless a retry sent it again since (its
 * dead letter handed out twice); false when it is not logged (or gone, or retried).
 */
export function messageDeadLettered(table: RecordTable, owner: Pick<MessageOwner, 'portalId' | 'sk'>, failedAt: string): Promise<boolean> {
  return conditionHeld(
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId: owner.portalId, sk: owner.sk },
        UpdateExpression: 'SET #state = :deadLettered, lastAttemptAt = if_not_exists(lastAttemptAt, :at)',
        ConditionExpression: 'attribute_exists(sk) AND #state <> :retried',
        ExpressionAttributeNames: { '#state': STATE_ATTRIBUTE },
        ExpressionAttributeValues: { ':deadLettered': 'dead-lettered', ':at': failedAt, ':retried': 'retried' },
      }),
    ),
  );
}

/**
 * Marks the logged message a dead letter came from `retried` (a scheduled retry sent it again), if
 * it is one the service published to that subscription and still dead-lettered; false otherwise.
 */
export async function markMessageRetried(table: RecordTable, letter: { messageId: string; configId: string }): Promise<boolean> {
  const owner = (await ownersOf(table, [letter.messageId])).get(letter.messageId);
  if (!owner || owner.configId !== letter.configId) return false;
  return conditionHeld(
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId: owner.portalId, sk: owner.sk },
        UpdateExpression: 'SET #state = :retried',
        ConditionExpression: '#state = :deadLettered',
        ExpressionAttributeNames: { '#state': STATE_ATTRIBUTE },
        ExpressionAttributeValues: { ':deadLettered': 'dead-lettered', ':retried': 'retried' },
      }),
    ),
  );
}

/** A logged message as GET /messages shows it, with its sort key. */
export interface KeptMessage {
  sk: string;
  messageId: string;
  eventId: string;
  event: string;
  occurredAt: string;
  sentAt: string;
  status: MessageStatus;
  attempts: number;
  lastAttemptAt: string | null;
  statusCode: number | null;
  /** The body as published (JSON text). */
  body: string;
}

export interface MessageQuery {
  limit: number;
  /** The sort key of the last message of the previous page (a key of this subscription's, checked by the caller). */
  afterKey?: string;
  /** `failed` matches `dead-lettered` too: every message that had an attempt and was not delivered. */
  status?: MessageStatus;
  event?: string;
  /** ISO 8601 bounds of `sentAt`, both included. */
  since?: string;
  until?: string;
}

// The bound only stops a loop that never ends: a page is at most 1 MB.
const MAX_PAGES = 2_000;

/**
 * One page of the subscription's logged messages, newest first: one Query of the sort-key range
 * the window makes (`sentAt` leads the key), filtered to the state and kind asked, expired ones left out.
 */
export async function messagePage(table: RecordTable, portalId: string, configId: string, query: MessageQuery): Promise<{ messages: KeptMessage[]; nextKey?: string }> {
  const messages: KeptMessage[] = [];
  // A filtered page reads DynamoDB's 1 MB pages, not limit + 1 items each: the Limit counts items
  // before the filter, and a window of 10,000 messages with few that match would take 200 Queries.
  const filtered = query.status !== undefined || query.event !== undefined;
  for await (const message of messagesOf(table, portalId, configId, { ...query, newestFirst: true, pageSize: filtered ? undefined : query.limit + 1 })) {
    if (messages.length === query.limit) return { messages, nextKey: messages[query.limit - 1]!.sk };
    messages.push(message);
  }
  return { messages };
}

/** Every logged message of the subscription in the window, in the order asked (for a recovery: oldest first). */
export async function* messagesOf(
  table: RecordTable,
  portalId: string,
  configId: string,
  options: Omit<MessageQuery, 'limit'> & { newestFirst: boolean; pageSize: number | undefined; eventId?: string },
): AsyncGenerator<KeptMessage> {
  const prefix = messagePrefixOf(configId);
  // `~` sorts after every character of an ISO time and a message id: the whole of the last millisecond.
  const low = `${prefix}${options.since ?? ''}`;
  const high = `${prefix}${options.until ?? '9999'}~`;
  const filters = ['#expiry > :now'];
  const values: Record<string, unknown> = { ':portalId': portalId, ':low': low, ':high': high, ':now': nowSeconds() };
  if (options.status === 'failed') {
    filters.push('#state IN (:failed, :deadLettered)');
    Object.assign(values, { ':failed': 'failed', ':deadLettered': 'dead-lettered' });
  } else if (options.status) {
    filters.push('#state = :status');
    values[':status'] = options.status;
  }
  if (options.event) {
    filters.push('#event = :event');
    values[':event'] = options.event;
  }
  if (options.eventId) {
    filters.push('eventId = :eventId');
    values[':eventId'] = options.eventId;
  }
  let startKey: Record<string, unknown> | undefined = options.afterKey ? { portalId, sk: options.afterKey } : undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const result = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'portalId = :portalId AND sk BETWEEN :low AND :high',
        FilterExpression: filters.join(' AND '),
        ExpressionAttributeNames: {
          '#expiry': EXPIRY_ATTRIBUTE,
          ...(options.status && { '#state': STATE_ATTRIBUTE }),
          ...(options.event && { '#event': 'event' }),
        },
        ExpressionAttributeValues: values,
        ScanIndexForward: !options.newestFirst,
        ConsistentRead: true,
        Limit: options.pageSize,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) yield keptMessageOf(item);
    startKey = result.LastEvaluatedKey;
    if (!startKey) return;
  }
  throw new Error(`The messages of ${configId} did not end within ${MAX_PAGES} pages.`);
}

/**
 * The latest logged message of an event for the subscription (what a resend sends again), or
 * undefined. The log is keyed by time, not event id: this reads the subscription's messages newest
 * first, filtered to the event id, and stops at the first, so an event sent lately costs one Query
 * page and one at the far end of the window reads the window (docs/messages.md, "Resend").
 */
export async function latestMessageOfEvent(table: RecordTable, portalId: string, configId: string, eventId: string): Promise<KeptMessage | undefined> {
  for await (const message of messagesOf(table, portalId, configId, { newestFirst: true, pageSize: undefined, eventId })) return message;
  return undefined;
}

/** The logged messages of these sort keys in the portal's partition (a recovery's next batch), by key; expired or gone ones are absent. */
export async function messagesAt(table: RecordTable, portalId: string, sortKeys: readonly string[]): Promise<Map<string, KeptMessage>> {
  const found = new Map<string, KeptMessage>();
  for (let start = 0; start < sortKeys.length; start += KEYS_PER_GET) {
    let keys: Record<string, unknown>[] = sortKeys.slice(start, start + KEYS_PER_GET).map((sk) => ({ portalId, sk }));
    for (let tries = 1; keys.length > 0; tries++) {
      const { Responses, UnprocessedKeys } = await table.db.send(new BatchGetCommand({ RequestItems: { [table.tableName]: { Keys: keys, ConsistentRead: true } } }));
      for (const item of Responses?.[table.tableName] ?? []) if (Number(item[EXPIRY_ATTRIBUTE]) > nowSeconds()) found.set(String(item.sk), keptMessageOf(item));
      keys = UnprocessedKeys?.[table.tableName]?.Keys ?? [];
      if (keys.length === 0) break;
      if (tries >= MAX_TRIES) throw new Error(`DynamoDB left ${keys.length} messages unread after ${MAX_TRIES} tries.`);
      await sleep(25 * 2 ** tries);
    }
  }
  return found;
}

function keptMessageOf(item: Record<string, unknown>): KeptMessage {
  return {
    sk: String(item.sk),
    messageId: String(item.messageId),
    eventId: String(item.eventId),
    event: String(item.event),
    occurredAt: String(item.occurredAt),
    sentAt: String(item.sentAt),
    status: (item[STATE_ATTRIBUTE] as MessageStatus | undefined) ?? 'pending',
    attempts: Number(item.attempts ?? 0),
    lastAttemptAt: typeof item.lastAttemptAt === 'string' ? item.lastAttemptAt : null,
    statusCode: typeof item.statusCode === 'number' ? item.statusCode : null,
    body: String(item.body),
  };
}
