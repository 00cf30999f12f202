import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { DispatchFailedError, type DispatchOutcome, dispatchPortalEvent, mayFollowEarlierTry } from '../shared/delivery/dispatch';
import { type PortalEvent, parsePortalEvent } from '../shared/delivery/portal-event';
import { DeliveryProgress } from '../shared/delivery/progress';
import { config } from '../shared/environment';
import { logger, withInvocationLogging } from '../shared/logger';
import { listFor, repositoryOf } from '../shared/subscriptions/repository';

const deps = {
  repository: repositoryOf({ db: documentClient, tableName: config.tableName }, { listFor }),
  sns: snsClient,
  progress: new DeliveryProgress(documentClient, config.tableName),
};
const processor = new BatchProcessor(EventType.SQS);

/**
 * One queued portal event: published to each matching subscription, or dropped (and logged)
 * when it can never be delivered. When some recipients fail it throws, so only this record is
 * retried, and the retry publishes only to the recipients that did not get it.
 */
async function deliver(record: SQSRecord): Promise<void> {
  const parsed = parsePortalEvent(record.body, config.eventKinds);
  if ('unusable' in parsed) {
    logger.warn('portal event dropped', { messageId: record.messageId, reason: parsed.unusable });
    return;
  }
  const { kind, portalId, eventId } = parsed.event;
  const afterEarlierTry = mayFollowEarlierTry(Number(record.attributes.ApproximateReceiveCount), parsed.event);
  let outcome: DispatchOutcome;
  try {
    outcome = await dispatchPortalEvent(deps, parsed.event, { afterEarlierTry });
  } catch (error) {
    // Reading the recipients (or what an earlier try reached) failed: nothing was published.
    logger.error('portal event not dispatched; its queue will retry it', { eventId, kind, portalId, error: error as Error });
    throw error;
  }
  logOutcome(record, parsed.event, outcome);
  if ('failed' in outcome && outcome.failed.length > 0) throw new DispatchFailedError(outcome.failed.map(({ configId }) => configId));
}

/** A line per recipient skipped or failed (with SNS's error); one for an event dropped or fully dispatched. */
function logOutcome(record: SQSRecord, { eventId, kind, portalId }: PortalEvent, outcome: DispatchOutcome): void {
  if ('refused' in outcome) {
    // Retrying cannot make it smaller, and a redrive from the dead-letter queue would not either.
    logger.error('portal event dropped', { messageId: record.messageId, eventId, kind, portalId, reason: outcome.refused });
    return;
  }
  for (const { configId, topicArn } of outcome.gone) {
    logger.warn('topic no longer exists; recipient skipped', { eventId, kind, portalId, configId, topicArn });
  }
  for (const { configId, topicArn, error } of outcome.failed) {
    logger.error('publish failed; its queue will retry the event for this recipient', { eventId, kind, portalId, configId, topicArn, error });
  }
  if (outcome.progressNotSaved !== undefined) {
    logger.error('recipients served not recorded; a retry publishes to them again', {
      eventId,
      recipients: outcome.delivered,
      error: outcome.progressNotSaved,
    });
  }
  if (outcome.failed.length === 0) {
    logger.info('portal event dispatched', {
      eventId,
      kind,
      portalId,
      recipients: outcome.delivered,
      ...(outcome.deliveredEarlier.length > 0 && { deliveredEarlier: outcome.deliveredEarlier }),
    });
  }
}

/** Consumes the portal-events queue in batches, reporting failed records (SQS partial batch response). */
export const handler = withInvocationLogging(
  'dispatchPortalEvents',
  (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, deliver, processor, { context, throwOnFullBatchFailure: false }),
);
