/**
 * The reconciler's topics without a record (reconcile.ts). A topic `${TOPIC_PREFIX}-<configId>`
 * without a record, older than the grace period by the UUIDv7 in its name, is deleted (with its
 * subscriptions); younger ones belong to creates that may still be writing their record, and are
 * left alone. A topic of the prefix with any other name is reported and left alone.
 */
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import { logger } from '../logger';
import type { Subscription } from '../subscriptions/model';
import type { SubscriptionTopics } from '../subscriptions/topics';
import { CHANGES_IN_FLIGHT } from './passes';
import { classifyTopic } from './topic-names';

export interface OrphanTopicDeps {
  topics: Pick<SubscriptionTopics, 'close'>;
  topicPrefix: string;
  /** A topic without a record younger than this (by its name's UUIDv7) may be a create in flight. */
  graceMs: number;
  now: () => number;
  dryRun: boolean;
}

/**
 * Deletes the topics of the service's names whose record is missing and that are past the grace
 * period (in a dry run, only logs them); returns how many. The young ones are counted in
 * `counts.skippedYoung`, the foreign names listed in `counts.unrecognizedTopics` and logged,
 * failures counted in `counts.errors`.
 */
export async function deleteOrphanTopics(
  deps: OrphanTopicDeps,
  topicArns: readonly string[],
  records: readonly Subscription[],
  counts: { skippedYoung: number; unrecognizedTopics: string[]; errors: number },
): Promise<number> {
  const { topicPrefix, graceMs, now, dryRun } = deps;
  const recordConfigIds = new Set(records.map((record) => record.configId));
  const orphans: string[] = [];
  for (const topicArn of topicArns) {
    const name = classifyTopic(topicArn, topicPrefix);
    if (name.kind === 'unrecognized') counts.unrecognizedTopics.push(topicArn);
    if (name.kind !== 'subscription' || recordConfigIds.has(name.configId)) continue;
    if (now() - name.createdAtMs < graceMs) counts.skippedYoung++;
    else orphans.push(topicArn);
  }
  for (const topicArn of counts.unrecognizedTopics) {
    logger.warn('topic of the prefix not named <prefix>-<UUIDv7>; left alone', { topicArn });
  }

  let orphanTopics = 0;
  await mapWithConcurrency(orphans, CHANGES_IN_FLIGHT, async (topicArn) => {
    try {
      if (!dryRun) await deps.topics.close({ topicArn });
      orphanTopics++;
      logger.info(dryRun ? 'orphan topic would be deleted' : 'orphan topic deleted', { topicArn });
    } catch (error) {
      counts.errors++;
      logger.error('could not delete an orphan topic', { topicArn, error: error as Error });
    }
  });
  return orphanTopics;
}
