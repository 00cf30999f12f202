import type { Context } from 'aws-lambda';
import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { type DeliveryAttempt, readAttempt, readLogBatch } from '../shared/attempts/delivery-status-record';
import { recordAttempts } from '../shared/data/attempts';
import { TopicOwners } from '../shared/attempts/topic-owner';
import { attemptKeepDays, maxAttemptsPerSubscription, tableName, topicPrefix } from '../shared/environment';
import { logger, withInvocationLogging } from '../shared/logger';

const table = { db: documentClient, tableName };
const settings = { keepDays: attemptKeepDays, maxPerSubscription: maxAttemptsPerSubscription };
const owners = new TopicOwners(snsClient);

/** What one invocation did, for its log line and the suites. */
export interface AttemptsSummary {
  stored: number;
  duplicates: number;
  evicted: number;
  dropped: number;
}

/**
 * Keeps the delivery attempts of one CloudWatch Logs subscription event (one topic's delivery
 * status log group) for the subscription's portal (shared/attempts/). A record that can never be
 * kept (malformed, foreign, or its subscription gone) is logged and dropped; a failed write throws,
 * so Lambda tries the event again (CloudWatch Logs invokes asynchronously), and what was stored
 * already is recognized by its key.
 */
export const handler = withInvocationLogging('recordDeliveryAttempts', async (event: unknown, _context: Context): Promise<AttemptsSummary> => {
  const summary: AttemptsSummary = { stored: 0, duplicates: 0, evicted: 0, dropped: 0 };
  const reading = readLogBatch(event);
  if ('control' in reading) return summary;
  if ('unusable' in reading) {
    logger.error('delivery status event dropped: not a CloudWatch Logs subscription event', { reason: reading.unusable });
    return summary;
  }
  const { logGroup, logEvents } = reading.batch;
  const byTopic = new Map<string, DeliveryAttempt[]>();
  for (const logEvent of logEvents) {
    const read = readAttempt(logGroup, logEvent, topicPrefix);
    if ('unusable' in read) {
      summary.dropped++;
      logger.error('delivery status record dropped: not a delivery of the service', { logGroup, logEventId: logEvent.id, reason: read.unusable });
      continue;
    }
    byTopic.set(read.attempt.topicArn, [...(byTopic.get(read.attempt.topicArn) ?? []), read.attempt]);
  }
  for (const [topicArn, attempts] of byTopic) {
    const configId = attempts[0]!.configId;
    const portalId = await owners.portalOf(topicArn);
    const outcome = portalId === undefined ? ({ kind: 'subscription gone' } as const) : await recordAttempts(table, settings, portalId, configId, topicArn, attempts);
    if (outcome.kind === 'subscription gone') {
      summary.dropped += attempts.length;
      logger.warn('delivery attempts dropped: their subscription no longer exists', { configId, topicArn, count: attempts.length });
      continue;
    }
    summary.stored += outcome.stored;
    summary.duplicates += outcome.duplicates;
    summary.evicted += outcome.evicted;
    logger.info('delivery attempts kept', { portalId, configId, ...outcome });
  }
  return summary;
});
