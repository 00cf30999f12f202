/**
 * The reconciler's repair of a record whose topic is gone (reconcile.ts). The loss was the
 * service's, and the endpoint's subscription went with the topic: the topic and the subscription
 * of the record's endpoint are made again with create's attributes, and the record is pointed at
 * them by a conditional write. An endpoint whose password was kept only by the lost subscription
 * cannot be subscribed again: its topic is made again alone, and the record marked
 * `unsubscribed` (its owner creates the subscription anew: docs/security.md, "Endpoint
 * credentials").
 */
import type { SubscriptionRepository } from '../data/subscription-repository';
import { logger } from '../logger';
import { hasMaskedPassword } from '../masked-credentials';
import { snsSubscriptionAttributesFor } from '../subscriptions/delivery-policy';
import { accountOf, confirmedAtCreation } from '../subscriptions/endpoint-account';
import { SubscriptionNotFoundError } from '../subscriptions/errors';
import type { Subscription } from '../subscriptions/model';
import type { SubscriptionState } from '../subscriptions/sns-subscription';
import type { SubscriptionTopics } from '../subscriptions/topics';
import { classifyTopic } from './topic-names';

export interface RecordRepairDeps {
  repository: Pick<SubscriptionRepository, 'find' | 'replaceDeliveryArns'>;
  topics: Pick<SubscriptionTopics, 'close' | 'reopen' | 'recreateTopic'>;
  topicPrefix: string;
  /** Named in the redrive policy of every recreated SNS subscription, as create does. */
  deadLetterQueueArn: string | undefined;
}

/**
 * Recreates the record's topic and subscription and points the record at them. False when the
 * record changed or went away since the scan: a delete in flight (its topic, if just made, is
 * deleted again) or another repair; the next run looks again.
 */
export async function repair(deps: RecordRepairDeps, scanned: Subscription): Promise<boolean> {
  const current = await deps.repository.find(scanned.portalId, scanned.configId);
  if (!current || current.topicArn !== scanned.topicArn || current.subscriptionArn !== scanned.subscriptionArn) return false;
  const expectedTopicArn = current.topicArn;
  // Only the service's own topics may be recreated (and IAM allows no other).
  const name = classifyTopic(expectedTopicArn, deps.topicPrefix);
  if (name.kind !== 'subscription' || name.configId !== current.configId) {
    throw new Error(`the record's topic is not named ${deps.topicPrefix}-${current.configId}`);
  }

  let reopened: { topicArn: string; subscriptionArn: string };
  let subscriptionState: SubscriptionState;
  if (hasMaskedPassword(current.endpoint)) {
    // The password went with the lost subscription: subscribing the masked endpoint would send
    // `****` to the receiver. The record keeps its gone subscription's ARN, and says so.
    reopened = { topicArn: await deps.topics.recreateTopic(current, expectedTopicArn), subscriptionArn: current.subscriptionArn };
    subscriptionState = 'unsubscribed';
    logger.warn('topic recreated without its SNS subscription: the endpoint\'s password was kept only by the subscription lost with it', {
      portalId: current.portalId,
      configId: current.configId,
    });
  } else {
    reopened = await deps.topics.reopen(current, snsSubscriptionAttributesFor(current, deps.deadLetterQueueArn), expectedTopicArn);
    subscriptionState = confirmedAtCreation(current, accountOf(expectedTopicArn)) ? 'confirmed' : 'pending';
  }
  try {
    await deps.repository.replaceDeliveryArns(current.portalId, current.configId, current, {
      ...reopened,
      subscriptionState,
      observedAt: new Date().toISOString(),
    });
  } catch (error) {
    if (!(error instanceof SubscriptionNotFoundError)) throw error;
    // Deleted meanwhile: the delete removed the old topic, so the one made here is an orphan.
    if (!(await deps.repository.find(current.portalId, current.configId))) await deps.topics.close(reopened);
    return false;
  }
  return true;
}
