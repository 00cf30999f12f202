/**
 * Portal events handed to the dispatcher function as Lambda's SQS event source does: one
 * EventBridge event in one queued record. Importing this module loads the dispatcher, so the
 * environment must be set first (global setup does).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
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
  const event: SQSEvent = {
    Records: [
      {
        messageId: randomUUID(),
        receiptHandle: randomUUID(),
        body,
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(Date.now()),
          SenderId: 'AIDAEVENTBRIDGE',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:portal-events',
        awsRegion: 'us-east-1',
      },
    ],
  };
  return { eventId, result: (await dispatch(event, lambdaContext('dispatchPortalEvents')))! };
}
