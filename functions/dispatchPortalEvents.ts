import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { type DispatchOutcome, dispatchPortalEvents, mayFollowEarlierTry, needsRetry } from '../shared/delivery/dispatch';
import { type PortalEvent, parsePortalEvent } from '../shared/delivery/portal-event';
import { DeliveryProgress } from '../shared/data/delivery-progress';
import { eventKinds, messageKeepDays, tableName } from '../shared/environment';
import { messageLogOf } from '../shared/data/messages';
import { logger, withInvocationLogging } from '../shared/logger';
import { repositoryOf } from '../shared/data/bound-operations';
import { listFor } from '../shared/data/subscription-reads';

const deps = {
  repository: repositoryOf({ db: documentClient, tableName }, { listFor }),
  sns: snsClient,
  progress: new DeliveryProgress(documentClient, tableName),
  messages: messageLogOf({ db: documentClient, tableName }, messageKeepDays),
};

/** A record of the batch and the portal event it holds. */
interface QueuedRecord {
  record: SQSRecord;
  event: PortalEvent;
}

/**
 * Reads every record of the batch, drops (and logs) those that can never be delivered, and
 * dispatches the others together: one Query per portal, their messages to one topic in
 * PublishBatch calls. A record whose event some recipient did not get is reported failed (SQS
 * partial batch response, AWS Lambda Developer Guide, "Implementing partial batch responses"),
 * so only it is retried, and its retry publishes only to the recipients that did not get it.
 */
async function dispatchBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  const queued: QueuedRecord[] = [];
  for (const record of event.Records) {
    const parsed = parsePortalEvent(record.body, eventKinds);
    if ('unusable' in parsed) logger.warn('portal event dropped', { messageId: record.messageId, reason: parsed.unusable });
    else queued.push({ record, event: parsed.event });
  }
  const outcomes = await dispatchPortalEvents(
    deps,
    queued.map(({ record, event }) => ({ event, afterEarlierTry: mayFollowEarlierTry(Number(record.attributes.ApproximateReceiveCount), event) })),
  );
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  queued.forEach(({ record, event }, index) => {
    const outcome = outcomes[index]!;
    logOutcome(record, event, outcome);
    if (needsRetry(outcome)) batchItemFailures.push({ itemIdentifier: record.messageId });
  });
  return { batchItemFailures };
}

/** A line per recipient skipped or failed (with SNS's error); one for an event dropped, not read, or fully dispatched. */
function logOutcome(record: SQSRecord, { eventId, kind, portalId }: PortalEvent, outcome: DispatchOutcome): void {
  if ('unread' in outcome) {
    // Reading the recipients (or what an earlier try reached) failed: nothing was published.
    logger.error('portal event not dispatched; its queue will retry it', { eventId, kind, portalId, error: outcome.unread as Error });
    return;
  }
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
export const handler = withInvocationLogging('dispatchPortalEvents', (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => dispatchBatch(event));
