/**
 * What a topic's name says to the reconciler. The service names each topic
 * `${TOPIC_PREFIX}-${configId}`, and config ids are UUIDv7 (RFC 9562), whose first 48 bits are
 * the creation time in Unix milliseconds: the name alone tells how old a topic is, so a topic
 * whose create is still in flight (its record not yet written) is recognized without a look-up.
 */

// Lower-case, as the service makes them (a UUIDv7 of config-id.ts); version nibble 7, variant 10xx.
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export type TopicName =
  /** Not of this service's prefix at all: none of the reconciler's business. */
  | { kind: 'other' }
  /** Of the prefix, but not `${prefix}-<UUIDv7>`: never the service's own, left alone and reported. */
  | { kind: 'unrecognized' }
  | { kind: 'subscription'; configId: string; createdAtMs: number };

/** The last segment of a topic ARN (`arn:<partition>:sns:<region>:<account>:<name>`). */
export function topicNameOf(topicArn: string): string {
  return topicArn.split(':')[5] ?? '';
}

export function classifyTopic(topicArn: string, topicPrefix: string): TopicName {
  const name = topicNameOf(topicArn);
  if (!name.startsWith(`${topicPrefix}-`)) return { kind: 'other' };
  const configId = name.slice(topicPrefix.length + 1);
  if (!UUID_V7.test(configId)) return { kind: 'unrecognized' };
  return { kind: 'subscription', configId, createdAtMs: uuidV7TimeMs(configId) };
}

/** The creation time a UUIDv7 carries: its first 12 hex digits, in Unix milliseconds. */
export function uuidV7TimeMs(uuid: string): number {
  return Number.parseInt(uuid.replace(/-/g, '').slice(0, 12), 16);
}
