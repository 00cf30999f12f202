/**
 * The events the bench invokes the functions with, shaped as their AWS sources send them: API
 * Gateway's for the operations, SQS batches (EventBridge's portal events, the delivery
 * dead-letter queue's), and CloudWatch Logs subscription events of SNS's delivery status records.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { logSubscriptionEventOf } from '../../shared/attempts/delivery-status-record';
import { httpEvent } from '../support/http-events';
import { FUNCTION_ENV } from './services';

/** The kind of portal event the bench dispatches, and its subscriptions choose. */
export const DISPATCHED_KIND = 'asset_bank.media.create';

/** A delivery message as the service publishes it, for a dead letter of the subscription. */
export function publishedMessage(portalId: string, configId: string): string {
  return JSON.stringify({ event: DISPATCHED_KIND, portalId, configId, occurredAt: new Date().toISOString(), eventId: randomUUID(), data: { assetId: 'asset-1' } });
}

/** An SQS batch of the delivery dead-letter queue: `count` notifications of the subscription's topic, as SNS sends them there. */
export function deadLetterBatch({ portalId, configId, topicArn }: { portalId: string; configId: string; topicArn: string }, count: number): SQSEvent {
  const attribute = (value: string) => ({ dataType: 'String', stringValue: value, stringListValues: [], binaryListValues: [] });
  return {
    Records: Array.from({ length: count }, () => {
      const notification = { Type: 'Notification', MessageId: randomUUID(), TopicArn: topicArn, Message: publishedMessage(portalId, configId), Timestamp: new Date().toISOString() };
      return {
        messageId: randomUUID(),
        receiptHandle: randomUUID(),
        body: JSON.stringify(notification),
        // A minute old: past the wait for a message's log write (its message is not logged here).
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now() - 60_000), SenderId: 'AIDASNS', ApproximateFirstReceiveTimestamp: String(Date.now()) },
        messageAttributes: { RequestID: attribute(randomUUID()), ErrorCode: attribute('500'), ErrorMessage: attribute('HTTP 500') },
        md5OfBody: '',
        eventSource: 'aws:sqs' as const,
        eventSourceARN: FUNCTION_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN,
        awsRegion: 'us-east-1',
      };
    }),
  };
}

/** A queued record of one portal event, as EventBridge puts it on the dispatcher's queue. */
function dispatchRecord(portalId: string): SQSRecord {
  const body = JSON.stringify({
    version: '0',
    id: randomUUID(),
    'detail-type': DISPATCHED_KIND,
    source: 'portal.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: [],
    detail: { portalId, assetId: 'asset-1' },
  });
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'AIDAEVENTBRIDGE', ApproximateFirstReceiveTimestamp: String(Date.now()) },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:portal-events',
    awsRegion: 'us-east-1',
  };
}

/** A CloudWatch Logs subscription event of SNS delivery status records of the topic (its success log group), one per message id. */
export function attemptsEvent(topicArn: string, messageIds: readonly string[]) {
  const count = messageIds.length;
  const [, , , region, account, name] = topicArn.split(':');
  const start = Date.now();
  const logEvents = Array.from({ length: count }, (_, index) => ({
    id: randomUUID().replace(/-/g, ''),
    timestamp: start + index,
    message: JSON.stringify({
      notification: { messageMD5Sum: '0'.repeat(32), messageId: messageIds[index]!, topicArn, timestamp: new Date(start).toISOString().replace('T', ' ').replace('Z', '') },
      delivery: { deliveryId: randomUUID(), destination: 'https://hooks.example.com/', providerResponse: 'OK', dwellTimeMs: 80, attempts: 1, statusCode: 200 },
      status: 'SUCCESS',
    }),
  }));
  return logSubscriptionEventOf(account!, `sns/${region}/${account}/${name}`, 'bench', logEvents);
}

/** A batch of `events` portal events, taking the portals in turn (as a queue interleaves them). */
export function dispatchBatch(portalIds: readonly string[], events: number): SQSEvent {
  return { Records: Array.from({ length: events }, (_, index) => dispatchRecord(portalIds[index % portalIds.length]!)) };
}

/** A list of a portal's subscriptions. */
export function listEvent(portalId: string) {
  return httpEvent('listSubscriptionsRoute', { portalId });
}
