/**
 * The emulator's delivery status logging: for a topic whose attributes ask for it
 * (`HTTPSuccessFeedbackRoleArn` with `HTTPSuccessFeedbackSampleRate`, `HTTPFailureFeedbackRoleArn`),
 * the record SNS writes to CloudWatch Logs for each delivery to an http/https endpoint, in SNS's
 * field names and shapes ("Amazon SNS message delivery status", SNS Developer Guide), in the log
 * group SNS would write it to: `sns/<region>/<account>/<topic>`, failures in `.../Failure`. One
 * record per delivery of a message, when it ends (delivered, or given up on), with SNS's count of
 * tries (`delivery.attempts`) and the time since publishing (`delivery.dwellTimeMs`).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { PendingDelivery } from './delivery';
import type { TopicRecord } from './types';

/** One log event, as CloudWatch Logs would hold it, with the log group it was written to. */
export interface DeliveryStatusLogEvent {
  logGroup: string;
  logStream: string;
  event: { id: string; timestamp: number; message: string };
}

/** SNS's notification.timestamp: "2026-11-25 10:15:30.123", UTC. */
const snsTimestampOf = (iso: string) => iso.replace('T', ' ').replace('Z', '');

/**
 * The record of a delivery that ended, if the topic logs it (failures always when asked; successes
 * by the sample rate, none when the topic names no rate).
 */
export function deliveryStatusLogEventOf(
  topic: TopicRecord,
  { region, accountId }: { region: string; accountId: string },
  delivery: PendingDelivery,
  outcome: { delivered: boolean; statusCode: number | null; providerResponse: string },
  random: () => number = Math.random,
): DeliveryStatusLogEvent | undefined {
  const attributes = topic.attributes;
  if (outcome.delivered) {
    if (!attributes.HTTPSuccessFeedbackRoleArn) return undefined;
    const rate = Number(attributes.HTTPSuccessFeedbackSampleRate ?? '0');
    if (!(random() * 100 < rate)) return undefined;
  } else if (!attributes.HTTPFailureFeedbackRoleArn) {
    return undefined;
  }
  let message = '';
  let publishedAt = new Date().toISOString();
  try {
    const body = JSON.parse(delivery.body) as { Message?: unknown; Timestamp?: unknown };
    if (typeof body.Message === 'string') message = body.Message;
    if (typeof body.Timestamp === 'string') publishedAt = body.Timestamp;
  } catch {
    // A body that is not SNS's JSON (raw delivery) keeps the defaults.
  }
  const now = Date.now();
  const record = {
    notification: {
      messageMD5Sum: createHash('md5').update(message).digest('hex'),
      messageId: delivery.messageId,
      topicArn: topic.arn,
      timestamp: snsTimestampOf(publishedAt),
    },
    delivery: {
      deliveryId: randomUUID(),
      destination: delivery.url,
      providerResponse: outcome.providerResponse,
      dwellTimeMs: Math.max(0, now - Date.parse(publishedAt)),
      attempts: delivery.attempts,
      ...(outcome.statusCode !== null && { statusCode: outcome.statusCode }),
    },
    status: outcome.delivered ? 'SUCCESS' : 'FAILURE',
  };
  const logGroup = `sns/${region}/${accountId}/${topic.name}${outcome.delivered ? '' : '/Failure'}`;
  return {
    logGroup,
    logStream: randomUUID(),
    event: { id: `${now}${randomUUID().replace(/-/g, '')}`.slice(0, 56), timestamp: now, message: JSON.stringify(record) },
  };
}
