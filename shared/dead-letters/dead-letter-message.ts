/**
 * What the delivery dead-letter queue holds: one SQS message per notification SNS gave up on.
 *
 * "Amazon SNS dead-letter queues (DLQs)" (https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html)
 * redrives the message as it would have been delivered: for an http/https subscription with raw
 * message delivery off (ours), the SQS body is the JSON notification itself, `{Type:
 * "Notification", MessageId, TopicArn, Message, Timestamp, Signature…, UnsubscribeURL,
 * MessageAttributes}`, and SNS adds the SQS message attributes `RequestID`, `ErrorCode` and
 * `ErrorMessage` (strings) saying why. The SQS attribute `SentTimestamp` (epoch milliseconds,
 * "ReceiveMessage" in the SQS API Reference) is when SNS put it there: when the delivery failed.
 * `Message` is what the service published (shared/delivery/message.ts), kept byte for byte.
 *
 * The recorder reads it from the queue the forwarder sends it on to (forwarding.ts), where the
 * attribute DEAD_LETTERED_AT carries the first queue's SentTimestamp.
 */
import type { SQSRecord } from 'aws-lambda';
import type { DeadLetter } from '../data/dead-letters';
import { classifyTopic } from '../reconciliation/topic-names';

export type { DeadLetter };

/** The message attribute carrying when SNS put the dead letter in the delivery dead-letter queue (epoch ms), set by the forwarder. */
export const DEAD_LETTERED_AT = 'DeadLetteredAt';

/** Why SNS gave up, for the log: the attributes it documents, when present. */
export interface FailureReason {
  errorCode?: string;
  errorMessage?: string;
  requestId?: string;
}

export type DeadLetterReading = { deadLetter: DeadLetter; reason: FailureReason } | { unusable: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Reads one message of the delivery dead-letter queue; `unusable` says why it cannot be kept. */
export function readDeadLetter(record: SQSRecord, topicPrefix: string): DeadLetterReading {
  const notification = jsonObject(record.body);
  if (!notification) return { unusable: 'the body is not a JSON object' };
  if (notification.Type !== 'Notification') return { unusable: 'the body is not an SNS notification' };
  const { MessageId: messageId, TopicArn: topicArn, Message: message } = notification;
  if (!isText(messageId) || !isText(topicArn) || !isText(message)) return { unusable: 'the notification lacks MessageId, TopicArn or Message' };
  const topic = classifyTopic(topicArn, topicPrefix);
  if (topic.kind !== 'subscription') return { unusable: 'the topic is not one of the service\'s subscriptions' };
  // Forwarded: when SNS put it in the first queue; read straight from that queue: its own SentTimestamp.
  const sentAt = Number(record.messageAttributes?.[DEAD_LETTERED_AT]?.stringValue ?? record.attributes?.SentTimestamp);
  if (!Number.isSafeInteger(sentAt) || sentAt <= 0) return { unusable: 'the queue message has no SentTimestamp' };
  const body = jsonObject(message);
  if (!body) return { unusable: 'the published message is not a JSON object' };
  const { portalId, eventId, event, occurredAt, configId } = body;
  if (!isText(portalId) || !isText(eventId) || !isText(event) || !isText(occurredAt)) {
    return { unusable: 'the published message lacks portalId, eventId, event or occurredAt' };
  }
  if (configId !== topic.configId) return { unusable: 'the published message names another subscription than its topic' };
  const attribute = (name: string) => record.messageAttributes?.[name]?.stringValue;
  return {
    deadLetter: { configId: topic.configId, portalId, topicArn, eventId, event, occurredAt, failedAt: new Date(sentAt).toISOString(), messageId, message },
    reason: { errorCode: attribute('ErrorCode'), errorMessage: attribute('ErrorMessage'), requestId: attribute('RequestID') },
  };
}
