import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { dispatchPortalEvent } from '../shared/delivery/dispatch';
import { parsePortalEvent } from '../shared/delivery/portal-event';
import { config } from '../shared/environment';
import { logger, withInvocationLogging } from '../shared/logger';
import { SubscriptionRepository } from '../shared/subscriptions/repository';

const deps = { repository: new SubscriptionRepository(documentClient, config.tableName), sns: snsClient };
const processor = new BatchProcessor(EventType.SQS);

/**
 * One queued portal event: published to each matching subscription, or dropped (and logged)
 * when it can never be delivered. A failure throws, so only this record is retried.
 */
async function deliver(record: SQSRecord): Promise<void> {
  const parsed = parsePortalEvent(record.body, config.eventKinds);
  if ('unusable' in parsed) {
    logger.warn('portal event dropped', { messageId: record.messageId, reason: parsed.unusable });
    return;
  }
  const { kind, portalId, eventId } = parsed.event;
  try {
    const { recipients } = await dispatchPortalEvent(deps, parsed.event);
    logger.info('portal event dispatched', { eventId, kind, portalId, recipients });
  } catch (error) {
    logger.error('portal event not dispatched; its queue will retry it', { eventId, kind, portalId, error: error as Error });
    throw error;
  }
}

/** Consumes the portal-events queue in batches, reporting failed records (SQS partial batch response). */
export const handler = withInvocationLogging(
  'dispatchPortalEvents',
  (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, deliver, processor, { context, throwOnFullBatchFailure: false }),
);
