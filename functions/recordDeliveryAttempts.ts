import type { Context } from 'aws-lambda';
import { documentClient } from '../shared/aws/dynamodb';
import { type DeliveryAttempt, readAttempt, readLogBatch } from '../shared/attempts/delivery-status-record';
import { endDeliveredRetries, joinToMessages, markMessagesAttempted, UNKNOWN_MESSAGE_DROPPED } from '../shared/attempts/message-join';
import { recordAttempts } from '../shared/data/attempts';
import { attemptKeepDays, maxAttemptsPerSubscription, tableName, topicPrefix } from '../shared/environment';
import { logger, withInvocationLogging } from '../shared/logger';

const table = { db: documentClient, tableName };
const settings = { keepDays: attemptKeepDays, maxPerSubscription: maxAttemptsPerSubscription };

/** What one invocation did, for its log line and the suites. */
export interface AttemptsSummary {
  stored: number;
  duplicates: number;
  evicted: number;
  dropped: number;
  /** Records of a message id the service never published to that topic (forged, or past MESSAGE_KEEP_DAYS): dropped. */
  unknown: number;
}

/**
 * Keeps the delivery attempts of one CloudWatch Logs subscription event (one topic's delivery
 * status log group) for the subscription's portal (shared/attempts/). Only a record whose SNS
 * message id is one the service published to that topic is kept, in the portal that message was
 * logged for (shared/attempts/message-join.ts); the others are dropped and counted. A record that
 * can never be kept (malformed, foreign, or its subscription gone) is logged and dropped; a failed
 * write throws, so Lambda tries the event again (CloudWatch Logs invokes asynchronously), and what
 * was stored already is recognized by its key.
 */
export const handler = withInvocationLogging('recordDeliveryAttempts', async (event: unknown, _context: Context): Promise<AttemptsSummary> => {
  const summary: AttemptsSummary = { stored: 0, duplicates: 0, evicted: 0, dropped: 0, unknown: 0 };
  const reading = readLogBatch(event);
  if ('control' in reading) return summary;
  if ('unusable' in reading) {
    logger.error('delivery status event dropped: not a CloudWatch Logs subscription event', { reason: reading.unusable });
    return summary;
  }
  const { logGroup, logEvents } = reading.batch;
  const read: DeliveryAttempt[] = [];
  for (const logEvent of logEvents) {
    const attempt = readAttempt(logGroup, logEvent, topicPrefix);
    if ('unusable' in attempt) {
      summary.dropped++;
      logger.error('delivery status record dropped: not a delivery of the service', { logGroup, logEventId: logEvent.id, reason: attempt.unusable });
      continue;
    }
    read.push(attempt.attempt);
  }
  const { joined, unknown } = await joinToMessages(table, read);
  if (unknown.length > 0) {
    summary.unknown += unknown.length;
    // One line per batch, with the count an operator's metric filter sums (infra/aws/delivery-attempts.ts).
    logger.warn(UNKNOWN_MESSAGE_DROPPED, { logGroup, count: unknown.length, messageIds: unknown.slice(0, 10).map(({ messageId }) => messageId) });
  }
  for (const group of joined) {
    const { portalId, configId, topicArn, attempts } = group;
    const outcome = await recordAttempts(table, settings, portalId, configId, topicArn, attempts);
    if (outcome.kind === 'subscription gone') {
      summary.dropped += attempts.length;
      logger.warn('delivery attempts dropped: their subscription no longer exists', { configId, topicArn, count: attempts.length });
      continue;
    }
    summary.stored += outcome.stored;
    summary.duplicates += outcome.duplicates;
    summary.evicted += outcome.evicted;
    await markMessagesAttempted(table, group);
    // A dead letter whose retry was delivered leaves: it read as retrying until now.
    const retriesDelivered = await endDeliveredRetries(table, group);
    logger.info('delivery attempts kept', { portalId, configId, ...outcome, ...(retriesDelivered > 0 && { retriesDelivered }) });
  }
  return summary;
});
