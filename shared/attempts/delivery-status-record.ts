/**
 * What the attempts consumer receives: a CloudWatch Logs subscription event, whose `awslogs.data`
 * is a gzip-compressed, base64-encoded JSON document `{messageType, owner, logGroup, logStream,
 * subscriptionFilters, logEvents: [{id, timestamp, message}]}` ("Using CloudWatch Logs subscription
 * filters", CloudWatch Logs User Guide; `CONTROL_MESSAGE` documents are CloudWatch's own checks that
 * the destination is reachable, with nothing to keep). Each log event of a topic's delivery status
 * log group (`sns/<region>/<account>/<topic>`, failures in `.../Failure`) is one SNS delivery status
 * record ("Amazon SNS message delivery status", SNS Developer Guide):
 *
 *   {"notification": {"messageMD5Sum", "messageId", "topicArn", "timestamp": "2026-11-25 10:15:30.123"},
 *    "delivery": {"deliveryId", "destination", "providerResponse", "dwellTimeMs", "attempts", "statusCode"},
 *    "status": "SUCCESS" | "FAILURE"}
 *
 * Only what the tenant is shown is kept. `destination` is left out (an endpoint may carry
 * credentials), and so is `providerResponse` (the endpoint's own words, of any length).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { classifyTopic, topicNameOf } from '../reconciliation/topic-names';

import type { AttemptStatus, DeliveryAttempt } from '../data/attempts';

export type { AttemptStatus, DeliveryAttempt };

export interface LogBatch {
  logGroup: string;
  logEvents: { id: string; timestamp: number; message: string }[];
}

/** The subscription event decoded, `control` for CloudWatch's own test message, or why it cannot be read. */
export function readLogBatch(event: unknown): { batch: LogBatch } | { control: true } | { unusable: string } {
  const data = (event as { awslogs?: { data?: unknown } } | null)?.awslogs?.data;
  if (typeof data !== 'string') return { unusable: 'not a CloudWatch Logs subscription event (no awslogs.data)' };
  let document: { messageType?: unknown; logGroup?: unknown; logEvents?: unknown };
  try {
    document = JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8'));
  } catch {
    return { unusable: 'awslogs.data is not gzip-compressed JSON' };
  }
  if (document?.messageType === 'CONTROL_MESSAGE') return { control: true };
  if (document?.messageType !== 'DATA_MESSAGE' || typeof document.logGroup !== 'string' || !Array.isArray(document.logEvents)) {
    return { unusable: 'awslogs.data is not a DATA_MESSAGE with a logGroup and logEvents' };
  }
  const logEvents = document.logEvents.filter(
    (logEvent): logEvent is LogBatch['logEvents'][number] =>
      typeof logEvent?.id === 'string' && typeof logEvent?.timestamp === 'number' && typeof logEvent?.message === 'string',
  );
  if (logEvents.length !== document.logEvents.length) return { unusable: 'a log event lacks its id, timestamp or message' };
  return { batch: { logGroup: document.logGroup, logEvents } };
}

const MESSAGE_ID = /^[A-Za-z0-9-]{1,100}$/;
// SNS's log groups: "sns/<region>/<account>/<topic name>", and "/Failure" after it for failures.
const DELIVERY_STATUS_LOG_GROUP = /^sns\/([a-z0-9-]+)\/(\d{12})\/([A-Za-z0-9_-]{1,256})(\/Failure)?$/;

/** The attempt a log event of `logGroup` records, or why it is none of the service's (foreign or malformed). */
export function readAttempt(logGroup: string, logEvent: LogBatch['logEvents'][number], topicPrefix: string): { attempt: DeliveryAttempt } | { unusable: string } {
  const group = DELIVERY_STATUS_LOG_GROUP.exec(logGroup);
  if (!group) return { unusable: `log group ${logGroup} is not an SNS delivery status log group` };
  let record: { notification?: Record<string, unknown>; delivery?: Record<string, unknown>; status?: unknown };
  try {
    record = JSON.parse(logEvent.message);
  } catch {
    return { unusable: 'the log event is not JSON' };
  }
  const { notification, delivery, status } = record ?? {};
  if (typeof notification !== 'object' || notification === null || typeof delivery !== 'object' || delivery === null) {
    return { unusable: 'the log event has no notification and delivery' };
  }
  const { messageId, topicArn } = notification;
  if (typeof topicArn !== 'string') return { unusable: 'the record names no topic' };
  const name = classifyTopic(topicArn, topicPrefix);
  if (name.kind !== 'subscription') return { unusable: `topic ${topicNameOf(topicArn)} is not one of the service's` };
  // The record's topic is the log group's: a record copied into another group is not trusted.
  const [, region, account, topicName, failure] = group;
  const [, , , arnRegion, arnAccount] = topicArn.split(':');
  if (topicName !== topicNameOf(topicArn) || region !== arnRegion || account !== arnAccount) {
    return { unusable: `the record's topic is not the one of log group ${logGroup}` };
  }
  if (status !== 'SUCCESS' && status !== 'FAILURE') return { unusable: 'status is neither SUCCESS nor FAILURE' };
  if ((status === 'FAILURE') !== (failure !== undefined)) return { unusable: `a ${status} record in log group ${logGroup}` };
  if (typeof messageId !== 'string' || !MESSAGE_ID.test(messageId)) return { unusable: 'notification.messageId is missing or malformed' };
  const { statusCode, dwellTimeMs, attempts } = delivery;
  if (statusCode !== undefined && statusCode !== null && !(Number.isInteger(statusCode) && (statusCode as number) >= 0 && (statusCode as number) < 1000)) {
    return { unusable: 'delivery.statusCode is not an HTTP status' };
  }
  if (!(typeof dwellTimeMs === 'number' && Number.isFinite(dwellTimeMs) && dwellTimeMs >= 0)) return { unusable: 'delivery.dwellTimeMs is not a duration' };
  if (!(Number.isInteger(attempts) && (attempts as number) >= 1)) return { unusable: 'delivery.attempts is not a count of tries' };
  if (!Number.isFinite(logEvent.timestamp) || logEvent.timestamp <= 0) return { unusable: 'the log event has no time' };
  return {
    attempt: {
      configId: name.configId,
      topicArn,
      at: new Date(logEvent.timestamp).toISOString(),
      status: status === 'SUCCESS' ? 'delivered' : 'failed',
      statusCode: typeof statusCode === 'number' ? statusCode : null,
      dwellTimeMs: Math.round(dwellTimeMs),
      attempts: attempts as number,
      messageId,
    },
  };
}

/** A CloudWatch Logs subscription event of these log events, as CloudWatch Logs hands them to a function (for the emulator and the suites). */
export function logSubscriptionEventOf(owner: string, logGroup: string, logStream: string, logEvents: LogBatch['logEvents'], filterName = 'delivery-attempts') {
  const document = { messageType: 'DATA_MESSAGE', owner, logGroup, logStream, subscriptionFilters: [filterName], logEvents };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(document), 'utf8')).toString('base64') } };
}
