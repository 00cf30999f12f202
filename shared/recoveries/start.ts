/**
 * Starting a recovery (POST /recover): the subscription must be deliverable now, the window within
 * what the message log keeps; the recovery is stored, running, and its first job queued. `until`
 * is at most the time of the request, so the recovery's own messages never fall in its window.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { InvalidRequestError } from '../contract/invalid-request';
import { endRecovery, startRecovery, type RecoverySelection } from '../data/recoveries';
import type { SubscriptionRepository } from '../data/subscription-repository';
import type { RecordTable } from '../data/table';
import { newConfigId } from '../subscriptions/config-id';
import { deliverableSubscription } from '../subscriptions/deliverable';
import { WindowNotKeptError } from '../subscriptions/errors';
import type { RecoveryJobs } from './jobs';

const DAY_MS = 86_400_000;

export interface StartDeps {
  table: RecordTable;
  repository: Pick<SubscriptionRepository, 'find'>;
  sns: SNSClient;
  /** Undefined when RECOVERY_QUEUE_URL is not set: the function cannot start one. */
  jobs: RecoveryJobs | undefined;
  keepDays: number;
}

export async function startRecoveryOf(
  deps: StartDeps,
  portalId: string,
  request: { configId: string; since: string; until?: string; status: RecoverySelection },
): Promise<{ recoveryId: string; configId: string; since: string; until: string; status: RecoverySelection }> {
  const { configId, since, status } = request;
  await deliverableSubscription({ repository: deps.repository, sns: deps.sns }, portalId, configId, { activated: true });
  const now = Date.now();
  const createdAt = new Date(now).toISOString();
  const until = request.until === undefined || request.until > createdAt ? createdAt : request.until;
  if (since > until) throw new InvalidRequestError([{ field: 'since', message: `since must not be after until (${until}).` }]);
  // The log keeps a message until MESSAGE_KEEP_DAYS after the end of its UTC day: every one sent since this time is still kept.
  const keptSince = new Date(now - deps.keepDays * DAY_MS).toISOString();
  if (since < keptSince) throw new WindowNotKeptError(keptSince);
  if (!deps.jobs) throw new Error('RECOVERY_QUEUE_URL is not set: this function cannot start recoveries.');
  // A UUID v7, as config ids are: recoveries sort by when they were started.
  const recoveryId = newConfigId(now);
  const recovery = { portalId, recoveryId, configId, since, until, status, createdAt };
  await startRecovery(deps.table, deps.keepDays, recovery);
  try {
    await deps.jobs.send({ portalId, configId, recoveryId });
  } catch (error) {
    // Stored but never queued: it would stay `running` for nothing. The caller gets a 503 and may try again.
    await endRecovery(deps.table, recovery, undefined, { state: 'failed', error: 'The recovery could not be queued; start it again.' }).catch(() => undefined);
    throw error;
  }
  return { recoveryId, configId, since, until, status };
}
