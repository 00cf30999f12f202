/**
 * The topic attributes the reconciler (reconcile.ts) sets again on the topics that exist, where
 * the record does not remember them (a mark on the record says which settings its topic got:
 * SNS's listing shows no topic attributes, and reading them would cost a call per topic every run):
 * - with delivery status logging configured, a topic not given the logging configured now (made
 *   before it, or with another role or sample rate) gets it (shared/subscriptions/delivery-status.ts);
 * - with the topic policy's principals configured, a topic made before the access policy had its
 *   present statements or principals gets it again (shared/subscriptions/topic-policy.ts).
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { SetTopicAttributesCommand } from '../aws/sns-commands';
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import type { SubscriptionRepository } from '../data/subscription-repository';
import { logger } from '../logger';
import { type DeliveryStatusLogging, deliveryStatusMarkOf, enableDeliveryStatus } from '../subscriptions/delivery-status';
import type { Subscription } from '../subscriptions/model';
import { type TopicPolicyPrincipals, topicAccessPolicy, topicPolicyMarkOf } from '../subscriptions/topic-policy';
import { CHANGES_IN_FLIGHT, topicItemOf } from './passes';

export interface TopicSettingsDeps {
  sns: SNSClient;
  repository: Partial<Pick<SubscriptionRepository, 'storeDeliveryStatusMark' | 'storeTopicPolicyMark'>>;
  dryRun: boolean;
  /** Delivery status logging every topic should have; unset, none is set. */
  deliveryStatus?: DeliveryStatusLogging;
  /** The principals every topic's access policy should name (topic-policy.ts); unset, no policy is set. */
  topicPolicy?: TopicPolicyPrincipals;
}

/**
 * Sets delivery status logging, and the access policy naming the principals, on the topics (of
 * `withTopic`, records whose topic exists) whose record does not remember them; each only when
 * configured. Returns how many topics got each: [delivery status logging, access policy].
 */
export async function setTopicAttributes(
  deps: TopicSettingsDeps,
  withTopic: readonly Subscription[],
  counts: { errors: number },
): Promise<[deliveryStatusSet: number, topicPoliciesSet: number]> {
  const { sns, repository, dryRun } = deps;
  let deliveryStatusSet = 0;
  const logging = deps.deliveryStatus;
  if (logging) {
    const mark = deliveryStatusMarkOf(logging);
    const unlogged = withTopic.filter((record) => record.deliveryStatusLogging !== mark);
    await mapWithConcurrency(unlogged, CHANGES_IN_FLIGHT, async (record) => {
      const item = topicItemOf(record);
      try {
        if (!dryRun) {
          await enableDeliveryStatus(sns, record.topicArn, logging);
          await repository.storeDeliveryStatusMark?.(record, mark);
        }
        deliveryStatusSet++;
        logger.info(dryRun ? 'delivery status logging would be set' : 'delivery status logging set', item);
      } catch (error) {
        counts.errors++;
        logger.error('could not set delivery status logging', { ...item, error: error as Error });
      }
    });
  }

  // Topics made before the access policy had its present statements or principals get it again.
  let topicPoliciesSet = 0;
  const principals = deps.topicPolicy;
  if (principals) {
    const mark = topicPolicyMarkOf(principals);
    const outdated = withTopic.filter((record) => record.topicPolicy !== mark);
    await mapWithConcurrency(outdated, CHANGES_IN_FLIGHT, async (record) => {
      const item = topicItemOf(record);
      try {
        if (!dryRun) {
          const policy = topicAccessPolicy(record.topicArn, principals.publisherArns, principals.managerArns);
          await sns.send(new SetTopicAttributesCommand({ TopicArn: record.topicArn, AttributeName: 'Policy', AttributeValue: policy }));
          await repository.storeTopicPolicyMark?.(record, mark);
        }
        topicPoliciesSet++;
        logger.info(dryRun ? 'topic access policy would be set' : 'topic access policy set', item);
      } catch (error) {
        counts.errors++;
        logger.error('could not set the topic access policy', { ...item, error: error as Error });
      }
    });
  }
  return [deliveryStatusSet, topicPoliciesSet];
}
