/**
 * What the dead-letter recorder, the retry sweep and the attempts consumer may do in the table,
 * read off their item owners in shared/data/ (dead-letters.ts, due-work.ts, retry-ledgers.ts,
 * attempts.ts, and the clauses of subscription-records.ts); change it together with them. None of
 * them may name a record's topicArn: they compare it on their read of the record. Granted in the portals' partitions only
 * (portal-event-delivery.ts). DynamoDB authorizes a transaction per item, as the PutItem,
 * UpdateItem and DeleteItem it holds; `dynamodb:Attributes` names every top-level attribute a
 * request names, those its condition reads too ("Using IAM policy conditions for fine-grained
 * access control", DynamoDB Developer Guide), so the key attributes are listed.
 */
import { LETTER_LEASE, NEXT_RETRY_ATTRIBUTE, RETRIED_AT_ATTRIBUTE, RETRIES_ATTRIBUTE, RETRY_MESSAGE_ATTRIBUTE } from '../../shared/data/dead-letters';
import { RETRYING_LEDGER_ATTRIBUTES } from '../../shared/data/retry-ledgers';
import { WORK_LEASE } from '../../shared/data/due-work';
import {
  DAY_COUNTER_PREFIX,
  DELIVERED_HOUR_PREFIX,
  DISABLED_AT_ATTRIBUTE,
  DISABLED_REASON_ATTRIBUTE,
  DROPPED_ATTRIBUTE,
  FAILED_HOUR_PREFIX,
  FAILING_SINCE_ATTRIBUTE,
  KEPT_DAY_PREFIX,
  LAST_DEAD_LETTER_ATTRIBUTE,
  LAST_DELIVERED_ATTRIBUTE,
  LAST_EVENT_DELIVERED_ATTRIBUTE,
  LAST_FAILED_ATTRIBUTE,
  RETRYING_DAY_PREFIX,
} from '../../shared/data/subscription-record';
import { EXPIRY_ATTRIBUTE, TABLE_KEYS } from '../../shared/data/table';

const KEYS = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey];

/**
 * GetItem: a subscription's record, once per batch (and a retry ledger the batch's read left out);
 * BatchGetItem: the retry ledgers of the batch's dead letters; Query: its oldest dead letters, at the cap.
 */
export const RECORDER_READS = { actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'] } as const;

export const RECORDER_WRITES = [
  {
    // A dead letter: stored (conditionally on its key being new), or deleted when the oldest gives way
    // or when it is the one being retried whose retry this one is (conditionally on its retry being out).
    actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
    attributes: [...KEYS, 'configId', 'eventId', 'event', 'occurredAt', 'failedAt', 'messageId', 'message', RETRIES_ATTRIBUTE, NEXT_RETRY_ATTRIBUTE, RETRIED_AT_ATTRIBUTE, EXPIRY_ATTRIBUTE],
  },
  {
    // The subscription's record: its day counters (of the kept, of those retrying), latest failure, dropped count and failing streak.
    actions: ['dynamodb:UpdateItem'],
    attributes: [...KEYS, LAST_DEAD_LETTER_ATTRIBUTE, DROPPED_ATTRIBUTE, FAILING_SINCE_ATTRIBUTE, `${DAY_COUNTER_PREFIX}*`, `${RETRYING_DAY_PREFIX}*`],
  },
] as const;

/** The attributes of the sweep's due work (shared/data/due-work.ts), with the key. */
export const DUE_WORK_ATTRIBUTES = [...KEYS, 'kind', 'dueAt', 'subscriptionPortalId', 'configId', 'letterSk', FAILING_SINCE_ATTRIBUTE, EXPIRY_ATTRIBUTE] as const;

/** The sweep puts one piece of work itself: a retry's `settle`, when it sends the retry. */
export const SWEEPER_DUE_WORK_PUTS = { actions: ['dynamodb:PutItem'], attributes: DUE_WORK_ATTRIBUTES } as const;

/**
 * The recorder puts the sweep's work a dead letter brings in the retry-due partitions, and deletes
 * the scheduled retry of a dead letter it evicts at the cap (and nothing else there).
 */
export const RECORDER_DUE_WORK_WRITES = { actions: ['dynamodb:DeleteItem', 'dynamodb:PutItem'], attributes: DUE_WORK_ATTRIBUTES } as const;

/**
 * The retry sweep (shared/dead-letters/sweep.ts and its retries, notices and disabling). In the retry-due partitions: Query, what is
 * due; UpdateItem, its claim; DeleteItem, once done. In the portals' partitions: GetItem, the
 * record and the dead letter; Query, the portal's subscriptions for a notice; UpdateItem, the dead
 * letter's claim (a replay's), its next retry removed, its day counter, the disabling of the
 * record; DeleteItem, the dead letter whose retry's verdict never came; PutItem, its retry ledger.
 */
export const SWEEPER_DUE_WORK = {
  actions: ['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  attributes: [...KEYS, WORK_LEASE.until, WORK_LEASE.holder],
} as const;
export const SWEEPER_READS = { actions: ['dynamodb:GetItem', 'dynamodb:Query'] } as const;
export const SWEEPER_WRITES = {
  actions: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem'],
  attributes: [
    ...KEYS,
    // The dead letter's claim, shared with replay, its schedule, and its retry out.
    LETTER_LEASE.until,
    LETTER_LEASE.holder,
    NEXT_RETRY_ATTRIBUTE,
    RETRIED_AT_ATTRIBUTE,
    RETRY_MESSAGE_ATTRIBUTE,
    // Its ledger, which names the retry out (its message id under the same name as on the letter).
    RETRIES_ATTRIBUTE,
    'cancelled',
    ...RETRYING_LEDGER_ATTRIBUTES.filter((name) => name !== RETRY_MESSAGE_ATTRIBUTE),
    EXPIRY_ATTRIBUTE,
    // The record: its day counters (of the kept, of those retrying), or the disabling (its condition reads the status and the streak).
    `${DAY_COUNTER_PREFIX}*`,
    `${RETRYING_DAY_PREFIX}*`,
    'status',
    DISABLED_REASON_ATTRIBUTE,
    DISABLED_AT_ATTRIBUTE,
    FAILING_SINCE_ATTRIBUTE,
  ],
} as const;

/** The attempts consumer (shared/data/attempts.ts): GetItem, its subscription's record; Query, the oldest attempts at the cap. */
export const ATTEMPTS_RECORDER_READS = { actions: ['dynamodb:GetItem', 'dynamodb:Query'] } as const;

export const ATTEMPTS_RECORDER_WRITES = [
  {
    // An attempt: stored (conditionally on its key being new), or deleted when the oldest gives way.
    actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
    attributes: [...KEYS, 'at', 'status', 'statusCode', 'dwellTimeMs', 'attempts', 'messageId', 'eventId', EXPIRY_ATTRIBUTE],
  },
  {
    // The subscription's record: its health and counters, and a dead letter counted out when its retry was delivered.
    actions: ['dynamodb:UpdateItem'],
    attributes: [
      ...KEYS,
      LAST_DELIVERED_ATTRIBUTE,
      LAST_FAILED_ATTRIBUTE,
      LAST_EVENT_DELIVERED_ATTRIBUTE,
      `${DELIVERED_HOUR_PREFIX}*`,
      `${FAILED_HOUR_PREFIX}*`,
      `${KEPT_DAY_PREFIX}*`,
      `${DAY_COUNTER_PREFIX}*`,
      `${RETRYING_DAY_PREFIX}*`,
    ],
  },
  {
    // A dead letter whose scheduled retry was delivered, deleted only while its retry is out (its condition reads retriedAt).
    actions: ['dynamodb:DeleteItem'],
    attributes: [...KEYS, RETRIED_AT_ATTRIBUTE],
  },
] as const;
