/**
 * What the dead-letter recorder may do in the table, read off shared/dead-letters/store.ts and
 * recorder.ts; change it together with them. Granted in the portals' partitions only
 * (portal-event-delivery.ts). DynamoDB authorizes a transaction per item, as the PutItem,
 * UpdateItem and DeleteItem it holds; `dynamodb:Attributes` names every top-level attribute a
 * request names, those its condition reads too ("Using IAM policy conditions for fine-grained
 * access control", DynamoDB Developer Guide), so the key attributes are listed.
 */
import { DAY_COUNTER_PREFIX, DROPPED_ATTRIBUTE, LAST_DEAD_LETTER_ATTRIBUTE } from '../../shared/dead-letters/day-counts';
import {
  DELIVERED_HOUR_PREFIX,
  FAILED_HOUR_PREFIX,
  KEPT_DAY_PREFIX,
  LAST_DELIVERED_ATTRIBUTE,
  LAST_FAILED_ATTRIBUTE,
} from '../../shared/attempts/counts';
import { EXPIRY_ATTRIBUTE, TABLE_KEYS } from '../../shared/subscriptions/table';

const KEYS = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey];

/** GetItem: a subscription's record, once per batch; Query: its oldest dead letters, at the cap. */
export const RECORDER_READS = { actions: ['dynamodb:GetItem', 'dynamodb:Query'] } as const;

export const RECORDER_WRITES = [
  {
    // A dead letter: stored (conditionally on its key being new), or deleted when the oldest gives way.
    actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
    attributes: [...KEYS, 'configId', 'eventId', 'event', 'occurredAt', 'failedAt', 'messageId', 'message', EXPIRY_ATTRIBUTE],
  },
  {
    // The subscription's record: its day counters, latest failure and dropped count; its topicArn is
    // only read, by the condition that the record still has the dead letter's topic.
    actions: ['dynamodb:UpdateItem'],
    attributes: [...KEYS, 'topicArn', LAST_DEAD_LETTER_ATTRIBUTE, DROPPED_ATTRIBUTE, `${DAY_COUNTER_PREFIX}*`],
  },
] as const;

/** The attempts consumer (shared/attempts/store.ts): GetItem, its subscription's record; Query, the oldest attempts at the cap. */
export const ATTEMPTS_RECORDER_READS = { actions: ['dynamodb:GetItem', 'dynamodb:Query'] } as const;

export const ATTEMPTS_RECORDER_WRITES = [
  {
    // An attempt: stored (conditionally on its key being new), or deleted when the oldest gives way.
    actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
    attributes: [...KEYS, 'at', 'status', 'statusCode', 'dwellTimeMs', 'attempts', 'messageId', EXPIRY_ATTRIBUTE],
  },
  {
    // The subscription's record: its health and counters; its topicArn only read by the condition.
    actions: ['dynamodb:UpdateItem'],
    attributes: [...KEYS, 'topicArn', LAST_DELIVERED_ATTRIBUTE, LAST_FAILED_ATTRIBUTE, `${DELIVERED_HOUR_PREFIX}*`, `${FAILED_HOUR_PREFIX}*`, `${KEPT_DAY_PREFIX}*`],
  },
] as const;
