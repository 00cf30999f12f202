/**
 * Layout of the subscriptions table, shared by the repository, the CDK stack and the local
 * stack. One partition per portal holds its subscriptions and one counter item; a portal can
 * only ever address its own partition because the partition key comes from its token.
 *
 * Idempotency records (shared/http/idempotency.ts) live in partitions of their own, one per
 * idempotent operation, named `idempotency#<operation id>`: portal ids cannot contain '#'
 * (portal-id.ts), so no portal's partition is ever one of them. So do the dispatcher's records
 * of which recipients an event reached, `delivery#<event id>` (shared/delivery/progress.ts).
 * A portal's partition also holds the dead letters of its subscriptions (deadLetterKeyOf).
 */
export const TABLE_KEYS = { partitionKey: 'portalId', sortKey: 'sk' } as const;

/** Sort key of a subscription item. */
export const subscriptionKeyOf = (configId: string) => `subscription#${configId}`;
export const SUBSCRIPTION_KEY_PREFIX = 'subscription#';

/** Sort key of the item counting a portal's subscriptions, for the atomic per-portal limit. */
export const PORTAL_COUNTER_KEY = 'portal';

/**
 * Sort key of the item holding a portal's rate limit on one route (shared/http/middleware/portal-rate-limit.ts),
 * in the portal's partition; it expires (EXPIRY_ATTRIBUTE) once its bucket is full again.
 */
export const rateLimitKeyOf = (operationId: string) => `${RATE_LIMIT_KEY_PREFIX}${operationId}`;
export const RATE_LIMIT_KEY_PREFIX = 'ratelimit#';
/** The rate limit item's one attribute besides its expiry: when its bucket is full again (epoch ms). */
export const BUCKET_FULL_AT_ATTRIBUTE = 'bucketFullAt';

/** Partition key of the idempotency records of an operation (never a valid portal id). */
export const idempotencyPartitionOf = (operationId: string) => `idempotency#${operationId}`;

/** Every idempotency partition, as an IAM `StringLike` pattern of `dynamodb:LeadingKeys`. */
export const IDEMPOTENCY_PARTITIONS_PATTERN = idempotencyPartitionOf('*');

/**
 * Attribute holding when an item expires, in epoch seconds: the table's TTL attribute. Idempotency
 * records, delivery records and dead letters have it; subscriptions and counters never expire.
 * Its name is historical (it came with the idempotency records) and stays: changing a deployed
 * table's TTL attribute means turning TTL off and on again, with expired items kept meanwhile.
 */
export const EXPIRY_ATTRIBUTE = 'idempotencyExpiresAt';

/**
 * Dead letters of a subscription (shared/dead-letters/): in its portal's partition, sorted by
 * when they failed, then by SNS's message id, so a dead letter received twice has one key.
 */
export const DEAD_LETTER_KEY_PREFIX = 'deadletter#';
export const deadLetterPrefixOf = (configId: string) => `${DEAD_LETTER_KEY_PREFIX}${configId}#`;
export const deadLetterKeyOf = (configId: string, failedAt: string, messageId: string) =>
  `${deadLetterPrefixOf(configId)}${failedAt}#${messageId}`;

/**
 * Delivery attempts of a subscription (shared/attempts/): in its portal's partition, sorted by when
 * SNS logged them, then by SNS's message id, so an attempt logged or handed over twice has one key.
 */
export const ATTEMPT_KEY_PREFIX = 'attempt#';
export const attemptPrefixOf = (configId: string) => `${ATTEMPT_KEY_PREFIX}${configId}#`;
export const attemptKeyOf = (configId: string, at: string, messageId: string) => `${attemptPrefixOf(configId)}${at}#${messageId}`;

/**
 * Work the retry sweep (shared/dead-letters/sweep.ts) is to do at a time: a dead letter's next
 * scheduled retry, a notice to send, a failing subscription to check. In partitions of their own,
 * `retry-due#<shard>` (never a portal's), sorted by when each is due, so one Query per shard finds
 * what is due now (shared/dead-letters/due-work.ts).
 */
export const retryDuePartitionOf = (shard: number) => `retry-due#${shard}`;
/** Every retry-due partition, as an IAM `StringLike` pattern of `dynamodb:LeadingKeys`. */
export const RETRY_DUE_PARTITIONS_PATTERN = 'retry-due#*';

/**
 * How many scheduled retries a dead letter's event had for a subscription, kept in its portal's
 * partition while the retry is on its way (the dead letter itself is removed when it is sent, and
 * comes back as a new one if it fails again): `retried#<configId>#<eventId>`.
 */
export const retryLedgerKeyOf = (configId: string, eventId: string) => `retried#${configId}#${eventId}`;
