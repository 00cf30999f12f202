/**
 * The layout of the one DynamoDB table: every item kind's keys, in one place, and the table
 * the data layer's operations are bound to. Each kind has one owning module in shared/data/ that
 * builds its writes (ITEM_KINDS); a module that changes another kind in the same transaction asks
 * that kind's owner for the clause.
 *
 * A portal's partition (its id, from its token) holds its subscriptions, their counter, its rate
 * limit buckets, the dead letters, retry ledgers, delivery attempts and logged messages of its subscriptions.
 * Partitions that are no portal's are named `<kind>#...`: portal ids cannot contain '#'
 * (shared/subscriptions/portal-id.ts), so no portal's partition is ever one of them.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The table that holds the items, and the client that reaches it. */
export interface RecordTable {
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
}

export const TABLE_KEYS = { partitionKey: 'portalId', sortKey: 'sk' } as const;

/** The key of one item. */
export type ItemKey = { portalId: string; sk: string };

/**
 * Attribute holding when an item expires, in epoch seconds: the table's TTL attribute. Its name is
 * historical (it came with the idempotency records) and stays: changing a deployed table's TTL
 * attribute means turning TTL off and on again, with expired items kept meanwhile.
 */
export const EXPIRY_ATTRIBUTE = 'idempotencyExpiresAt';

/** Sort key of a subscription record. */
export const subscriptionKeyOf = (configId: string) => `${SUBSCRIPTION_KEY_PREFIX}${configId}`;
export const SUBSCRIPTION_KEY_PREFIX = 'subscription#';

/** Sort key of the item counting a portal's subscriptions, for the atomic per-portal limit. */
export const PORTAL_COUNTER_KEY = 'portal';

/** Sort key of a portal's rate-limit bucket on one route; it expires once the bucket is full again. */
export const rateLimitKeyOf = (operationId: string) => `${RATE_LIMIT_KEY_PREFIX}${operationId}`;
export const RATE_LIMIT_KEY_PREFIX = 'ratelimit#';
/** The bucket's one attribute besides its expiry: when it is full again (epoch ms). */
export const BUCKET_FULL_AT_ATTRIBUTE = 'bucketFullAt';

/** Partition of the idempotency records of an operation; sort key `<operation id>#<hash>`. */
export const idempotencyPartitionOf = (operationId: string) => `idempotency#${operationId}`;
/** Every idempotency partition, as an IAM `StringLike` pattern of `dynamodb:LeadingKeys`. */
export const IDEMPOTENCY_PARTITIONS_PATTERN = 'idempotency#*';

/** Dead letters of a subscription, sorted by when they failed, then SNS's message id (one key if received twice). */
export const DEAD_LETTER_KEY_PREFIX = 'deadletter#';
export const deadLetterPrefixOf = (configId: string) => `${DEAD_LETTER_KEY_PREFIX}${configId}#`;
export const deadLetterKeyOf = (configId: string, failedAt: string, messageId: string) => `${deadLetterPrefixOf(configId)}${failedAt}#${messageId}`;

/** Delivery attempts of a subscription, sorted by when SNS logged them, then its message id. */
export const ATTEMPT_KEY_PREFIX = 'attempt#';
export const attemptPrefixOf = (configId: string) => `${ATTEMPT_KEY_PREFIX}${configId}#`;
export const attemptKeyOf = (configId: string, at: string, messageId: string) => `${attemptPrefixOf(configId)}${at}#${messageId}`;

/**
 * The message log: every message published to a subscription's topic, sorted by when it was sent,
 * then SNS's message id (one key however often its log write is repeated).
 */
export const MESSAGE_KEY_PREFIX = 'message#';
export const messagePrefixOf = (configId: string) => `${MESSAGE_KEY_PREFIX}${configId}#`;
export const messageKeyOf = (configId: string, sentAt: string, messageId: string) => `${messagePrefixOf(configId)}${sentAt}#${messageId}`;
/** A logged message found by SNS's message id (the attempts consumer's join): partition `message-id#<SNS message id>`. */
export const messageIdPartitionOf = (messageId: string) => `message-id#${messageId}`;
/** Every message-id partition, as an IAM `StringLike` pattern of `dynamodb:LeadingKeys`. */
export const MESSAGE_ID_PARTITIONS_PATTERN = 'message-id#*';
export const MESSAGE_ID_KEY = 'message';

/** How many scheduled retries a dead letter's event had for a subscription: `retried#<configId>#<eventId>`. */
export const retryLedgerKeyOf = (configId: string, eventId: string) => `retried#${configId}#${eventId}`;

/** The retry sweep's due work, in shards of their own, sorted by when each piece is due. */
export const retryDuePartitionOf = (shard: number) => `retry-due#${shard}`;
/** Every retry-due partition, as an IAM `StringLike` pattern of `dynamodb:LeadingKeys`. */
export const RETRY_DUE_PARTITIONS_PATTERN = 'retry-due#*';

/** The dispatcher's record of which recipients an event reached: partition `delivery#<event id>`. */
export const deliveryPartitionOf = (eventId: string) => `delivery#${eventId}`;
/** Every delivery partition, as an IAM `StringLike` pattern of `dynamodb:LeadingKeys`. */
export const DELIVERY_PARTITIONS_PATTERN = 'delivery#*';
export const DELIVERY_PROGRESS_KEY = 'delivered';

/**
 * A recovery of a subscription's messages (POST /recover), in its portal's partition, newest first
 * by its id (a UUID v7): `recovery#<configId>#<recoveryId>`.
 */
export const RECOVERY_KEY_PREFIX = 'recovery#';
export const recoveryPrefixOf = (configId: string) => `${RECOVERY_KEY_PREFIX}${configId}#`;
export const recoveryKeyOf = (configId: string, recoveryId: string) => `${recoveryPrefixOf(configId)}${recoveryId}`;
/**
 * The recoveries still running, in one partition of their own (sort key `<portalId>#<recoveryId>`): the
 * worker finds its portal's oldest there, and the local stack every one to resume at start, without a Scan.
 */
export const RUNNING_RECOVERIES_PARTITION = 'recovery#running';
export const runningRecoveryKeyOf = (portalId: string, recoveryId: string) => `${portalId}#${recoveryId}`;

/**
 * Every item kind: its key, the one module that builds its writes, the functions that may
 * change it, and how long it lives. docs/design.md shows this table; a test holds the two together.
 */
export const ITEM_KINDS = [
  { kind: 'subscription record', key: 'portalId, subscription#<configId>', owner: 'shared/data/subscription-records.ts', changedBy: 'create, update, activate, rename, delete, list, confirm, reconciler; recorders, replay and sweep through its counters and disabling', lives: 'until deleted' },
  { kind: 'portal counter', key: 'portalId, portal', owner: 'shared/data/portal-counters.ts', changedBy: 'create, delete', lives: 'always' },
  { kind: 'rate-limit bucket', key: 'portalId, ratelimit#<operation id>', owner: 'shared/data/rate-limit-buckets.ts', changedBy: 'every API route (its per-portal limit)', lives: 'until its bucket is full again (TTL)' },
  { kind: 'idempotency record', key: 'idempotency#<operation id>, <operation id>#<hash>', owner: 'shared/data/idempotency-records.ts', changedBy: 'create, replay (each its own partition)', lives: '24 hours (TTL)' },
  { kind: 'dead letter', key: 'portalId, deadletter#<configId>#<failedAt>#<message id>', owner: 'shared/data/dead-letters.ts', changedBy: 'dead-letter recorder, replay, retry sweep, attempts consumer (a retry delivered)', lives: '14 days after its UTC day (TTL), at most 1,000 per subscription' },
  { kind: 'retry ledger', key: 'portalId, retried#<configId>#<eventId>', owner: 'shared/data/retry-ledgers.ts', changedBy: 'replay, retry sweep', lives: '16 days (TTL)' },
  { kind: 'due work', key: 'retry-due#<0-7>, <dueAt>#<kind>#<portalId>#<configId>#<subject>', owner: 'shared/data/due-work.ts', changedBy: 'dead-letter recorder (puts), replay (deletes a retry), retry sweep (claims, deletes; puts a retry\'s settle)', lives: 'until done; 15 days after due (TTL)' },
  { kind: 'delivery attempt', key: 'portalId, attempt#<configId>#<at>#<message id>', owner: 'shared/data/attempts.ts', changedBy: 'attempts consumer', lives: 'ATTEMPT_KEEP_DAYS after its UTC day (TTL), at most MAX_ATTEMPTS_PER_SUBSCRIPTION' },
  { kind: 'message', key: 'portalId, message#<configId>#<sentAt>#<message id>', owner: 'shared/data/messages.ts', changedBy: 'dispatcher, test, replay, resend, retry sweep (puts); attempts consumer, dead-letter recorder and retry sweep (its delivery state)', lives: 'MESSAGE_KEEP_DAYS after its UTC day (TTL)' },
  { kind: 'message id', key: 'message-id#<message id>, message', owner: 'shared/data/messages.ts', changedBy: 'written with its message', lives: 'as its message (TTL)' },
  { kind: 'recovery', key: 'portalId, recovery#<configId>#<recoveryId>', owner: 'shared/data/recoveries.ts', changedBy: 'recover (puts), recovery worker (its progress and state)', lives: 'MESSAGE_KEEP_DAYS after it was started (TTL)' },
  { kind: 'running recovery', key: 'recovery#running, <portalId>#<recoveryId>', owner: 'shared/data/recoveries.ts', changedBy: 'written with its recovery; deleted by the recovery worker when it ends', lives: 'until its recovery ends; MESSAGE_KEEP_DAYS at most (TTL)' },
  { kind: 'delivery progress', key: 'delivery#<event id>, delivered', owner: 'shared/data/delivery-progress.ts', changedBy: 'dispatcher', lives: '15 days after its last partial failure (TTL)' },
] as const;
