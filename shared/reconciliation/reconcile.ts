/**
 * The reconciler: restores the agreement of table and SNS (every record has its topic, every
 * topic of the prefix has its record) after failures that the requests themselves could not
 * undo (docs/design.md).
 *
 * One run lists every topic and subscription of the account (SNS) and every subscription record
 * (a Scan: the only one in the service), then, item by item:
 * - a topic `${TOPIC_PREFIX}-<configId>` without a record, older than the grace period by the
 *   UUIDv7 in its name, is deleted (with its subscriptions); younger ones belong to creates that
 *   may still be writing their record, and are left alone;
 * - a record whose topic is gone gets it again (the loss was the service's, and the endpoint's
 *   subscription went with the topic): the topic and the subscription of the record's endpoint
 *   with create's attributes, and the record is pointed at them by a conditional write. An
 *   endpoint whose password was kept only by the lost subscription cannot be subscribed again:
 *   its topic is made again alone, and the record marked `unsubscribed` (its owner creates the
 *   subscription anew: docs/security.md, "Endpoint credentials");
 * - a record whose topic exists but whose SNS subscription is gone is left so, and counted: the
 *   endpoint unsubscribed, or never confirmed and SNS deleted it (the Subscribe API reference:
 *   a confirmation token is valid for three days). Subscribing it again would
 *   send a new confirmation request behind its owner's back, every run; `POST /confirm` does it
 *   when the caller asks;
 * - a record whose topic exists gets the state of its SNS subscription stored when it differs
 *   from the stored one (confirmed, pending, unsubscribed, read off the listing), so that list,
 *   which trusts a stored `confirmed`, shows a confirmation that lapsed within one run;
 * - a topic of the prefix with any other name is reported and left alone;
 * - a record whose SNS subscription exists gets the settings the service gave it set back where
 *   SNS holds others (changed by another principal, or an update whose SNS call failed): the
 *   redrive policy, the delivery policy with its throttle, no raw delivery, no filter policy
 *   (subscription-settings.ts; one GetSubscriptionAttributes per subscription, at most 20,000 a run);
 * - with delivery status logging configured, a record whose topic exists but was not given the
 *   logging configured now (made before it, or with another role or sample rate) gets it set on
 *   its topic, and remembers so (shared/subscriptions/delivery-status.ts): SNS's listing shows no
 *   topic attributes, and reading them would cost a call per topic every run.
 *
 * SNS is listed before the table is scanned: a create makes its topic before its record, so a
 * record the scan sees has a topic the listing saw, unless it was deleted meanwhile. A failing
 * item is counted and logged, and the run goes on; a failing listing or scan ends the run before
 * anything is changed (deciding what is an orphan from half a listing could delete live topics).
 *
 * This module is the run: the listings, the passes in their order, and the summary. Beside it:
 * orphan-topics.ts (topics without a record), topic-attributes.ts (delivery status logging and
 * access policies set again), listed-states.ts (each subscription's state read off the listing),
 * record-repair.ts (one record whose topic is gone, made whole again), passes.ts (how many
 * changes a pass has in flight).
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import type { SubscriptionRepository } from '../data/subscription-repository';
import type { DeliveryStatusLogging } from '../subscriptions/delivery-status';
import { logger } from '../logger';
import { type TopicPolicyPrincipals, topicPolicyMarkOf } from '../subscriptions/topic-policy';
import type { SubscriptionTopics } from '../subscriptions/topics';
import { groupByTopic, listedStateOf } from './listed-states';
import { deleteOrphanTopics } from './orphan-topics';
import { CHANGES_IN_FLIGHT, STATE_WRITES_IN_FLIGHT, topicItemOf } from './passes';
import { repair } from './record-repair';
import { listAllSubscriptions, listAllTopicArns } from './sns-inventory';
import { type LogRetentionDeps, setLogRetention } from './log-retention';
import { restoreSubscriptionSettings } from './subscription-settings';
import { setTopicAttributes } from './topic-attributes';
import { classifyTopic } from './topic-names';

export interface ReconcileDeps {
  sns: SNSClient;
  repository: Pick<SubscriptionRepository, 'scanAllSubscriptions' | 'find' | 'replaceDeliveryArns' | 'storeSubscriptionState'> &
    Partial<Pick<SubscriptionRepository, 'storeDeliveryStatusMark' | 'storeTopicPolicyMark'>>;
  topics: Pick<SubscriptionTopics, 'close' | 'reopen' | 'recreateTopic'>;
  topicPrefix: string;
  /** Named in the redrive policy of every recreated SNS subscription, as create does. */
  deadLetterQueueArn: string | undefined;
  /** A topic without a record younger than this (by its name's UUIDv7) may be a create in flight. */
  graceMs: number;
  /** The clock the grace period is measured by, in Unix milliseconds. */
  now: () => number;
  /** Only report what would be done. */
  dryRun: boolean;
  /** Delivery status logging every topic should have; unset, none is set. */
  deliveryStatus?: DeliveryStatusLogging;
  /** The principals every topic's access policy should name (topic-policy.ts); unset, no policy is set. */
  topicPolicy?: TopicPolicyPrincipals;
  /** CloudWatch Logs and the retention of the topics' delivery status log groups (log-retention.ts); unset (no CloudWatch Logs locally), none is set. */
  logRetention?: Pick<LogRetentionDeps, 'logs' | 'days'>;
}

/** What one run found and did; a dry run counts what it would do, under names that say so. */
export type ReconcileSummary = RunCounts &
  (
    | { orphanTopicsDeleted: number; recordsRepaired: number; subscriptionStatesUpdated: number; dryRun: false }
    | { wouldDeleteOrphanTopics: number; wouldRepairRecords: number; wouldUpdateSubscriptionStates: number; dryRun: true }
  );

interface RunCounts {
  topicsSeen: number;
  recordsSeen: number;
  skippedYoung: number;
  /**
   * Records whose topic exists but whose SNS subscription does not (unsubscribed, or never
   * confirmed in time): left alone, for their owners to confirm again.
   */
  subscriptionsGone: number;
  errors: number;
  /** With delivery status logging configured: topics it was set on (would be, in a dry run). */
  deliveryStatusLoggingSet?: number;
  wouldSetDeliveryStatusLogging?: number;
  /** With the topic policy's principals configured: topics whose policy was set again (would be, in a dry run). */
  topicPoliciesSet?: number;
  wouldSetTopicPolicies?: number;
  /** http/https subscriptions whose delivery policy had drifted and was set again (would be, in a dry run). */
  deliveryPoliciesSet?: number;
  wouldSetDeliveryPolicies?: number;
  /** Subscriptions whose redrive policy, raw delivery or filter policy had drifted and was set again (would be, in a dry run). */
  subscriptionSettingsSet?: number;
  wouldSetSubscriptionSettings?: number;
  /** With CloudWatch Logs given: delivery status log groups whose retention was set (would be, in a dry run). */
  logRetentionsSet?: number;
  wouldSetLogRetentions?: number;
  /** Topics of the prefix whose name is not `${prefix}-<UUIDv7>`: not the service's, left alone. */
  unrecognizedTopics: string[];
}

export async function reconcileTopics(deps: ReconcileDeps): Promise<ReconcileSummary> {
  const { sns, repository, topicPrefix, dryRun } = deps;
  // What the listing shows was true at this time at the earliest: a state stored later is newer.
  const listedAt = new Date().toISOString();
  const topicArns = (await listAllTopicArns(sns)).filter((arn) => classifyTopic(arn, topicPrefix).kind !== 'other');
  const subscriptionsByTopic = groupByTopic(await listAllSubscriptions(sns));
  const records = await repository.scanAllSubscriptions();

  const summary: RunCounts = {
    topicsSeen: topicArns.length,
    recordsSeen: records.length,
    skippedYoung: 0,
    subscriptionsGone: 0,
    errors: 0,
    unrecognizedTopics: [],
  };
  const existingTopics = new Set(topicArns);

  // Orphans deleted and records repaired, or in a dry run the ones that would be.
  const orphanTopics = await deleteOrphanTopics(deps, topicArns, records, summary);
  const withTopic = records.filter((record) => existingTopics.has(record.topicArn));
  const [deliveryStatusSet, topicPoliciesSet] = await setTopicAttributes(deps, withTopic, summary);
  const { deliveryStatus: logging, topicPolicy: principals } = deps;

  const observed = withTopic.map((record) => ({ record, state: listedStateOf(record, subscriptionsByTopic.get(record.topicArn)) }));
  summary.subscriptionsGone = observed.filter(({ state }) => state === 'unsubscribed').length;
  let updatedStates = 0;
  const stale = observed.filter(({ record, state }) => record.subscriptionState !== state);
  await mapWithConcurrency(stale, STATE_WRITES_IN_FLIGHT, async ({ record, state }) => {
    const item = { portalId: record.portalId, configId: record.configId, from: record.subscriptionState ?? 'unknown', to: state };
    try {
      // Conditional: a record deleted, given a new subscription or a newer state since is left alone.
      if (dryRun || (await repository.storeSubscriptionState(record, { subscriptionState: state, observedAt: listedAt }))) {
        updatedStates++;
        logger.info(dryRun ? 'subscription state would be updated' : 'subscription state updated', item);
      }
    } catch (error) {
      summary.errors++;
      logger.error('could not update a subscription state', { ...item, error: error as Error });
    }
  });
  // Every existing subscription's settings (within the run's window), read and set back where drifted.
  const existing = observed.filter(({ state }) => state !== 'unsubscribed').map(({ record }) => record);
  const [deliveryPoliciesSet, otherSettingsSet] = await restoreSubscriptionSettings(deps, existing, summary);
  // The delivery status log groups SNS made for the topics keep their records only so long.
  const logRetentionsSet = deps.logRetention ? await setLogRetention({ ...deps.logRetention, topicPrefix, dryRun }, topicArns[0], summary) : 0;
  let repairedRecords = 0;
  const withoutTopic = records.filter((record) => !existingTopics.has(record.topicArn));
  await mapWithConcurrency(withoutTopic, CHANGES_IN_FLIGHT, async (record) => {
    const item = topicItemOf(record);
    try {
      if (dryRun || (await repair(deps, record))) {
        // The recreated topic has the present access policy: remembered, so the next run leaves it.
        if (!dryRun && principals) await repository.storeTopicPolicyMark?.(record, topicPolicyMarkOf(principals));
        repairedRecords++;
        logger.info(dryRun ? 'record would be repaired' : 'record repaired: topic and SNS subscription recreated', item);
      }
    } catch (error) {
      summary.errors++;
      logger.error('could not repair a record', { ...item, error: error as Error });
    }
  });

  const { topicsSeen, recordsSeen, ...counts } = summary;
  const rest = {
    ...counts,
    ...(dryRun ? { wouldSetDeliveryPolicies: deliveryPoliciesSet } : { deliveryPoliciesSet }),
    ...(dryRun ? { wouldSetSubscriptionSettings: otherSettingsSet } : { subscriptionSettingsSet: otherSettingsSet }),
    ...(logging && (dryRun ? { wouldSetDeliveryStatusLogging: deliveryStatusSet } : { deliveryStatusLoggingSet: deliveryStatusSet })),
    ...(principals && (dryRun ? { wouldSetTopicPolicies: topicPoliciesSet } : { topicPoliciesSet })),
    ...(deps.logRetention && (dryRun ? { wouldSetLogRetentions: logRetentionsSet } : { logRetentionsSet })),
  };
  return dryRun
    ? {
        topicsSeen,
        recordsSeen,
        wouldDeleteOrphanTopics: orphanTopics,
        wouldRepairRecords: repairedRecords,
        wouldUpdateSubscriptionStates: updatedStates,
        ...rest,
        dryRun,
      }
    : {
        topicsSeen,
        recordsSeen,
        orphanTopicsDeleted: orphanTopics,
        recordsRepaired: repairedRecords,
        subscriptionStatesUpdated: updatedStates,
        ...rest,
        dryRun,
      };
}
