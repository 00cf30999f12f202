import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { sqsClient } from '../shared/aws/sqs';
import { messageLogOf } from '../shared/data/messages';
import { repositoryOf } from '../shared/data/bound-operations';
import { find } from '../shared/data/subscription-reads';
import { messageKeepDays, recoveryQueueUrl, recoverySendsPerSecond, tableName } from '../shared/environment';
import { logger, withInvocationLogging } from '../shared/logger';
import { recoveryJobOf, recoveryJobsOn } from '../shared/recoveries/jobs';
import { realClock, type RecoveryWorkerDeps, runRecoverySlice } from '../shared/recoveries/worker';

const table = { db: documentClient, tableName };
const repository = repositoryOf(table, { find });
const deps: Omit<RecoveryWorkerDeps, 'jobs'> = {
  table,
  sns: snsClient,
  messages: messageLogOf(table, messageKeepDays),
  findSubscription: (portalId, configId) => repository.find(portalId, configId),
  portalSendsPerSecond: recoverySendsPerSecond,
  clock: realClock,
};
const jobs = recoveryQueueUrl === undefined ? undefined : recoveryJobsOn(sqsClient, recoveryQueueUrl);

/** Time left when a slice stops sending: its last writes and the next slice's queueing. */
const RESERVE_MS = 10_000;
/** A slice sends for at most this long, so portals' recoveries take turns on the worker's concurrency. */
const MAX_SLICE_MS = 60_000;

/**
 * Works one slice of a recovery per job of the recovery queue (shared/recoveries/worker.ts). A job
 * whose slice failed is reported failed (SQS partial batch response), so the queue delivers it
 * again and it goes on from the recovery's last batch written.
 */
export const handler = withInvocationLogging('runRecoveries', async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  if (!jobs) throw new Error('RECOVERY_QUEUE_URL is not set: the recovery worker cannot queue its next slices.');
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const job = recoveryJobOf(record.body);
    if (!job) {
      logger.error('recovery job dropped: not a job', { messageId: record.messageId });
      continue;
    }
    const budgetMs = Math.max(1_000, Math.min(MAX_SLICE_MS, context.getRemainingTimeInMillis() - RESERVE_MS));
    try {
      const outcome = await runRecoverySlice({ ...deps, jobs }, job, randomUUID(), budgetMs);
      if (outcome.outcome !== 'waiting') logger.info('recovery slice', { ...job, ...outcome });
    } catch (error) {
      logger.error('recovery slice failed; its queue delivers it again', { ...job, error: error as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
});
