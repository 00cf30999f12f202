import type { Context } from 'aws-lambda';
import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { type SweepOutcome, sweepDueWork } from '../shared/dead-letters/sweep';
import { disableFailingAfterMs, messageKeepDays, tableName } from '../shared/environment';
import { messageLogOf } from '../shared/data/messages';
import { logger, withInvocationLogging } from '../shared/logger';
import { repositoryOf } from '../shared/data/bound-operations';
import { listFor } from '../shared/data/subscription-reads';

const table = { db: documentClient, tableName };
const deps = { table, sns: snsClient, repository: repositoryOf(table, { listFor }), settings: { disableFailingAfterMs }, messages: messageLogOf(table, messageKeepDays) };

/** Work left when this little of the function's time remains is the next sweep's. */
const RESERVE_MS = 15_000;

/**
 * One sweep of the due work (shared/dead-letters/sweep.ts): scheduled retries of dead letters,
 * notices of failing subscriptions, their disabling. Logs each piece that failed (a later sweep
 * does it again) and answers the counts.
 */
export const handler = withInvocationLogging('retryDeadLetters', async (_event: unknown, context: Context): Promise<SweepOutcome['counts']> => {
  const now = Date.now();
  const outcome = await sweepDueWork(deps, now, now + Math.max(1_000, context.getRemainingTimeInMillis() - RESERVE_MS));
  for (const { work, error } of outcome.failures) {
    logger.error('due work failed; a later sweep does it again', {
      kind: work.kind,
      portalId: work.subscriptionPortalId,
      configId: work.configId,
      dueAt: work.dueAt,
      error: error as Error,
    });
  }
  if (Object.keys(outcome.counts).length > 0 || outcome.unfinished) logger.info('retry sweep', { counts: outcome.counts, unfinished: outcome.unfinished });
  return outcome.counts;
});
