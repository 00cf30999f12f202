/**
 * Portal events handed to the dispatcher function as Lambda's SQS event source does: one
 * EventBridge event in one queued record. Importing this module loads the dispatcher, so the
 * environment must be set first (global setup does).
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { handler as dispatch } from '../../functions/dispatchPortalEvents';
import { lambdaContext } from './lambda-context';

/** Dispatches one event of `kind` for the portal; answers its EventBridge id and the batch's answer. */
export async function dispatchPortalEvent(kind: string, portalId: string): Promise<{ eventId: string; result: SQSBatchResponse }> {
  const eventId = randomUUID();
  const body = JSON.stringify({
    version: '0',
    id: eventId,
    'detail-type': kind,
    source: 'portal.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: [],
    detail: { portalId, mediaId: 'm-1' },
  });
  const event: SQSEvent = { Records: [sqsRecord(body)] };
  return { eventId, result: (await dispatch(event, lambdaContext('dispatchPortalEvents')))! };
}

/** An SQS record of the body, as Lambda's SQS event source hands it over; `receiveCount` above 1 is SQS handing it out again. */
export function sqsRecord(body: unknown, receiveCount = 1): SQSRecord {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body: text,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDAEVENTBRIDGE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:portal-events',
    awsRegion: 'us-east-1',
  };
}
