/**
 * Who may write the message log (shared/data/messages.ts): the functions that publish (the
 * dispatcher, test, replay, the retry sweep) put a message and its owner by message id in one
 * BatchWriteItem, so their grant spans the portals' partitions and the message-id ones and names
 * only the log's attributes; the attempts consumer and the dead-letter recorder read the owners
 * (BatchGetItem, message-id partitions only) and set a message's delivery state. DynamoDB
 * authorizes a BatchWriteItem with `dynamodb:LeadingKeys` holding every item's partition key
 * ("Using IAM policy conditions for fine-grained access control", DynamoDB Developer Guide).
 */
import { MESSAGE_ATTRIBUTES, MESSAGE_OWNER_ATTRIBUTES, MESSAGE_STATE_ATTRIBUTES, RETRY_OF_ATTRIBUTE } from '../../shared/data/messages';
import {
  DELIVERY_PARTITIONS_PATTERN,
  EXPIRY_ATTRIBUTE,
  IDEMPOTENCY_PARTITIONS_PATTERN,
  MESSAGE_ID_PARTITIONS_PATTERN,
  RETRY_DUE_PARTITIONS_PATTERN,
  RUNNING_RECOVERIES_PARTITION,
  TABLE_KEYS,
} from '../../shared/data/table';
import type { ServiceFunction } from './service-function';

const KEYS = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey];

/**
 * Grants a publisher the message log's writes: its messages in the portals' partitions, their
 * owners in the message-id ones; `retries`: the owner of a scheduled retry names the dead letter it
 * sends again (the retry sweep).
 */
export function allowMessageLogWrites(fn: ServiceFunction, tableArn: string, { retries = false }: { retries?: boolean } = {}): void {
  const owner = retries ? [...MESSAGE_OWNER_ATTRIBUTES, RETRY_OF_ATTRIBUTE] : MESSAGE_OWNER_ATTRIBUTES;
  fn.allow(['dynamodb:BatchWriteItem'], [tableArn], {
    'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': [IDEMPOTENCY_PARTITIONS_PATTERN, DELIVERY_PARTITIONS_PATTERN, RETRY_DUE_PARTITIONS_PATTERN, RUNNING_RECOVERIES_PARTITION] },
    'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...new Set([...KEYS, ...MESSAGE_ATTRIBUTES, ...owner, EXPIRY_ATTRIBUTE])] },
  });
}

/** Grants the join of delivery statuses to messages: the owners read by message id, a message's state set. */
export function allowMessageJoin(fn: ServiceFunction, tableArn: string): void {
  fn.allow(['dynamodb:BatchGetItem'], [tableArn], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [MESSAGE_ID_PARTITIONS_PATTERN] } });
  fn.allow(['dynamodb:UpdateItem'], [tableArn], {
    'ForAllValues:StringNotLike': {
      'dynamodb:LeadingKeys': [IDEMPOTENCY_PARTITIONS_PATTERN, DELIVERY_PARTITIONS_PATTERN, RETRY_DUE_PARTITIONS_PATTERN, MESSAGE_ID_PARTITIONS_PATTERN, RUNNING_RECOVERIES_PARTITION],
    },
    'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...KEYS, ...MESSAGE_STATE_ATTRIBUTES] },
  });
}
