import type { SNSClient } from '@aws-sdk/client-sns';
import { EndpointNotConfirmedError, SubscriptionDeactivatedError, SubscriptionNotFoundError } from './errors';
import { ACTIVATED, type Subscription } from './model';
import type { SubscriptionRepository } from '../data/subscription-repository';
import { subscriptionStateOf } from './sns-subscription';

/**
 * The subscription, when a message published to its topic now would reach its endpoint: it
 * exists in the portal, its endpoint confirmed (SNS's state: a pending or unsubscribed endpoint
 * gets nothing), and, when `activated` is asked, it is activated. Otherwise the domain error
 * that says why, for the caller.
 */
export async function deliverableSubscription(
  deps: { repository: Pick<SubscriptionRepository, 'find'>; sns: SNSClient },
  portalId: string,
  configId: string,
  options: { activated: boolean },
): Promise<Subscription> {
  const subscription = await deps.repository.find(portalId, configId);
  if (!subscription) throw new SubscriptionNotFoundError(configId);
  if (options.activated && subscription.status !== ACTIVATED) throw new SubscriptionDeactivatedError(configId);
  const state = await subscriptionStateOf(deps.sns, subscription.subscriptionArn);
  if (state !== 'confirmed') throw new EndpointNotConfirmedError(configId, state);
  return subscription;
}
