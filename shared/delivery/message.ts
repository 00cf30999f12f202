/**
 * What a subscriber receives: one JSON body per portal event, and the SNS message attribute
 * `event`, its kind. The dispatcher and the test operation publish exactly this (and replay it again,
 * byte for byte, shared/dead-letters/replay.ts); nothing else
 * can publish to the service's topics (their access policy, subscriptions/topic-policy.ts).
 */

/** The message attribute naming the event kind, which receivers may read without parsing the body. */
export const EVENT_ATTRIBUTE = 'event';

/** The kind of the message `POST {prefix}/test` sends, whatever the subscription's events and status. */
export const TEST_EVENT_KIND = 'webhooks.test';

export interface DeliveryMessage {
  /** The event kind (one of EVENT_KINDS, or webhooks.test). */
  event: string;
  portalId: string;
  configId: string;
  /** When the event happened, ISO 8601 (EventBridge's event time). */
  occurredAt: string;
  /** EventBridge's event id: the same for every subscription an event reaches, and across retries. */
  eventId: string;
  /** The event's own fields. */
  data: Record<string, unknown>;
}

/** The Publish input for one subscription's topic. */
export function publishInputFor(topicArn: string, message: DeliveryMessage) {
  return {
    TopicArn: topicArn,
    Message: JSON.stringify(message),
    MessageAttributes: { [EVENT_ATTRIBUTE]: { DataType: 'String', StringValue: message.event } },
  };
}

/**
 * The most a Publish may carry: 256 KiB, the body and every attribute's name, type and value
 * together (SNS API Reference, "MessageAttributeValue"; a topic's MaximumMessageSize, which the
 * service leaves at its default because http/https endpoints take no more).
 */
export const MAX_PUBLISH_BYTES = 262_144;

/** The bytes SNS counts against MAX_PUBLISH_BYTES, UTF-8 encoded. */
export function publishSizeOf(input: ReturnType<typeof publishInputFor>): number {
  const attributes = Object.entries(input.MessageAttributes).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value.DataType) + Buffer.byteLength(value.StringValue),
    0,
  );
  return Buffer.byteLength(input.Message) + attributes;
}
