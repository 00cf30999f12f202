import type { SNSClient } from '@aws-sdk/client-sns';
import { hasMaskedPassword, maskCredentials } from '../masked-credentials';
import { snsSubscriptionAttributesFor } from './delivery-policy';
import { accountOf, checkEndpointAccount, confirmedAtCreation } from './endpoint-account';
import type { ConfirmationRequests } from './confirmation-requests';
import { checkEndpointUrl } from './endpoint-url';
import { AlreadyConfirmedError, EndpointCredentialsGoneError, SubscriptionNotFoundError } from './errors';
import type { Subscription } from './model';
import type { ObservedState, SubscriptionRepository } from '../data/subscription-repository';
import { type SnsSubscription, type SubscriptionState, snsSubscriptionOf } from './sns-subscription';
import type { SubscriptionTopics } from './topics';

export interface ConfirmSubscriptionDeps {
  repository: Pick<SubscriptionRepository, 'find' | 'isStored' | 'replaceSubscriptionArn' | 'storeSubscriptionState'>;
  topics: Pick<SubscriptionTopics, 'subscribeAgain'>;
  /** How often the endpoint may be sent a confirmation request (confirmation-requests.ts). */
  confirmationRequests: ConfirmationRequests;
  sns: SNSClient;
  /** Named in the redrive policy of a subscription made anew, as create does. */
  deadLetterQueueArn: string | undefined;
  /** Accounts whose own sqs and lambda endpoints are accepted (ALLOWED_ENDPOINT_ACCOUNTS). */
  allowedEndpointAccounts: readonly string[];
  /** Loopback http/https hosts accepted (ALLOW_LOOPBACK_ENDPOINTS; endpoint-url.ts). */
  allowLoopbackEndpoints: boolean;
}

/**
 * Subscribes a subscription's endpoint to its topic again, at the caller's request: the only
 * way an endpoint that never confirmed in time, or that unsubscribed, gets a confirmation
 * request again (the reconciler never re-subscribes an endpoint behind its owner's back). SNS
 * sends the endpoint a new confirmation request; a pending subscription is asked again as it
 * is, one SNS no longer has is made anew with create's attributes, and its ARN stored, only if
 * the record still names the old one. Refused for a confirmed subscription, and for an endpoint
 * create would refuse now (endpoint-account.ts, endpoint-url.ts), and while the endpoint may not
 * be sent another confirmation request yet (429, confirmation-requests.ts). An endpoint's password
 * is read back from SNS, the only place that keeps it; once SNS lost the subscription it is gone,
 * and so refused (EndpointCredentialsGoneError). Answers the state SNS gave, and stores it on the
 * record when it differs from the stored one.
 */
export async function confirmSubscription(
  { repository, topics, confirmationRequests, sns, deadLetterQueueArn, allowedEndpointAccounts, allowLoopbackEndpoints }: ConfirmSubscriptionDeps,
  portalId: string,
  configId: string,
): Promise<SubscriptionState> {
  const subscription = await repository.find(portalId, configId);
  if (!subscription) throw new SubscriptionNotFoundError(configId);
  // SNS, not the stored state: a confirmation that lapsed since the reconciler's last run must be asked again.
  // The state is as of before the look-up: a reconciler's write made during it is not undone.
  const askedAt = new Date().toISOString();
  const held = await snsSubscriptionOf(sns, subscription.subscriptionArn);
  const { state } = held;
  if (state === 'confirmed') {
    if (subscription.subscriptionState !== 'confirmed') await repository.storeSubscriptionState(subscription, { subscriptionState: 'confirmed', observedAt: askedAt });
    throw new AlreadyConfirmedError(configId);
  }
  const serviceAccount = accountOf(subscription.topicArn);
  checkEndpointAccount(subscription, serviceAccount, allowedEndpointAccounts);
  checkEndpointUrl(subscription, { allowLoopbackEndpoints });
  const endpoint = endpointToSubscribe(subscription, held);

  // Before SNS sends anything: not again while one is pending, at most a few a day.
  const giveBack = await confirmationRequests.take(subscription, state, askedAt);
  const attributes = state === 'unsubscribed' ? snsSubscriptionAttributesFor(subscription, deadLetterQueueArn) : undefined;
  let subscriptionArn: string;
  try {
    subscriptionArn = await topics.subscribeAgain(subscription.topicArn, { protocol: subscription.protocol, endpoint }, attributes);
  } catch (error) {
    // Nothing was sent: the caller may retry without waiting.
    await giveBack().catch(() => undefined);
    // A delete that ran meanwhile took the topic: the caller's subscription is gone, not broken.
    if ((await repository.isStored(portalId, configId)) === false) throw new SubscriptionNotFoundError(configId);
    throw error;
  }
  const subscriptionState: SubscriptionState = confirmedAtCreation(subscription, serviceAccount) ? 'confirmed' : 'pending';
  if (subscriptionArn !== subscription.subscriptionArn) {
    try {
      await repository.replaceSubscriptionArn(subscription, subscription.subscriptionArn, { subscriptionArn, ...observed(subscriptionState) });
    } catch (error) {
      // Another confirm (or a repair) stored its ARN meanwhile: the endpoint was asked all the same.
      if (!(error instanceof SubscriptionNotFoundError) || !(await repository.find(portalId, configId))) throw error;
    }
  } else if (subscription.subscriptionState !== subscriptionState) {
    // The same subscription, asked again: a stale `confirmed` (an e-mail SNS deactivated) is pending now.
    await repository.storeSubscriptionState(subscription, observed(subscriptionState));
  }
  return subscriptionState;
}

/**
 * The endpoint as SNS must be given it: the record's, unless the record holds it with its password
 * masked; then the one SNS holds for the record's subscription, password included, provided it is
 * the same endpoint once masked. A record written before passwords were masked holds it in full.
 */
function endpointToSubscribe(subscription: Pick<Subscription, 'configId' | 'endpoint'>, held: SnsSubscription): string {
  const stored = subscription.endpoint;
  if (!hasMaskedPassword(stored)) return stored;
  if (held.endpoint !== undefined && maskCredentials(held.endpoint) === stored) return held.endpoint;
  throw new EndpointCredentialsGoneError(subscription.configId);
}

function observed(subscriptionState: SubscriptionState): ObservedState {
  return { subscriptionState, observedAt: new Date().toISOString() };
}
