import { v7 as uuidv7 } from 'uuid';
import { SubscriptionLimitError } from './errors';
import { ACTIVATED, type Subscription } from './model';
import type { SubscriptionRepository } from './repository';
import type { CreateSubscriptionRequest } from './rules';
import type { SubscriptionTopics } from './topics';

export interface CreateSubscriptionDeps {
  repository: SubscriptionRepository;
  topics: SubscriptionTopics;
  maxSubscriptionsPerPortal: number;
}

/**
 * Creates the SNS topic and subscription first, then the record. The record write checks the
 * per-portal limit atomically; if it fails for any reason the topic is deleted before the
 * error is answered, so no topic outlives a failed create and no record lacks its topic.
 */
export async function createSubscription(
  { repository, topics, maxSubscriptionsPerPortal }: CreateSubscriptionDeps,
  portalId: string,
  request: CreateSubscriptionRequest,
): Promise<Subscription> {
  // Cheap early refusal; the transaction below is what actually enforces the limit.
  if ((await repository.countFor(portalId)) >= maxSubscriptionsPerPortal) {
    throw new SubscriptionLimitError(maxSubscriptionsPerPortal);
  }
  const configId = uuidv7();
  const topic = await topics.open(portalId, configId, request.protocol, request.endpoint);
  const subscription: Subscription = {
    portalId,
    configId,
    name: request.name,
    endpoint: request.endpoint,
    protocol: request.protocol,
    events: request.events,
    status: ACTIVATED,
    ...topic,
    createdAt: new Date().toISOString(),
  };
  try {
    await repository.insert(subscription, maxSubscriptionsPerPortal);
  } catch (error) {
    await topics.deleteTopicAfterFailure(topic.topicArn); // deleting a topic also removes its subscription
    throw error;
  }
  return subscription;
}
