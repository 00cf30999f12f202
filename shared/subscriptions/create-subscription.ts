import { mayHaveBeenApplied } from '../aws/failures';
import { logger } from '../logger';
import { maskCredentials } from '../masked-credentials';
import { newConfigId } from './config-id';
import { snsSubscriptionAttributesFor, takesDeliveryPolicy } from './delivery-policy';
import { accountOf, checkEndpointAccount, confirmedAtCreation } from './endpoint-account';
import { checkEndpointUrl } from './endpoint-url';
import { SubscriptionLimitReachedError, ThrottleNotSupportedError } from './errors';
import { ACTIVATED, type Protocol, type Subscription } from './model';
import type { SubscriptionRepository } from '../data/subscription-repository';
import type { SubscriptionState } from './sns-subscription';
import type { SubscriptionTopics } from './topics';

export interface CreateSubscriptionDeps {
  repository: Pick<SubscriptionRepository, 'countFor' | 'insert' | 'isStored'>;
  topics: Pick<SubscriptionTopics, 'topicArnFor' | 'open' | 'deleteTopicAfterFailure'>;
  maxSubscriptionsPerPortal: number;
  /** Where SNS puts messages it could not deliver; none when unset. */
  deadLetterQueueArn: string | undefined;
  /** Accounts whose own sqs and lambda endpoints are accepted (ALLOWED_ENDPOINT_ACCOUNTS). */
  allowedEndpointAccounts: readonly string[];
  /** Loopback http/https hosts accepted (ALLOW_LOOPBACK_ENDPOINTS; endpoint-url.ts). */
  allowLoopbackEndpoints: boolean;
}

/** What the caller chooses of a new subscription, checked and normalized (shared/contract/request-bodies.ts). */
export interface NewSubscription {
  name: string;
  endpoint: string;
  protocol: Protocol;
  /** Kinds of the catalog, without duplicates. */
  events: string[];
  /** http/https only: SNS's throttle of deliveries to the endpoint (delivery-policy.ts). */
  maxReceivesPerSecond?: number;
  /** An SNS filter policy the dispatcher applies to each event's `data` (shared/filters/filter-policy.ts). */
  filter?: Record<string, unknown>;
}

export interface CreatedSubscription {
  subscription: Subscription;
  /** `confirmed` when SNS confirmed the subscription itself (endpoint-account.ts), else `pending`. */
  subscriptionState: SubscriptionState;
}

/**
 * Refuses an sqs or lambda endpoint of the service's own account (endpoint-account.ts), and an
 * http/https endpoint that cannot be public or sends credentials over plain http (endpoint-url.ts),
 * before anything is made. SNS gets the endpoint as sent; the record keeps it with its password
 * masked (docs/security.md, "Endpoint credentials"), so no answer, listing or stored answer built
 * from it can show the password.
 *
 * Creates the SNS topic and subscription first, then the record. The record write checks the
 * per-portal limit atomically; if it fails the topic is deleted before the error is answered,
 * so no topic outlives a failed create and no record lacks its topic.
 *
 * When the write's outcome is unknown (its answer was lost), the record is looked up: if it
 * was written, the create succeeded after all. Only if DynamoDB cannot even answer that is the
 * topic kept, and logged, rather than deleted: deleting it could strand a record that was in
 * fact written, while a kept topic is tagged with its portal and config ids for an operator.
 */
export async function createSubscription(
  { repository, topics, maxSubscriptionsPerPortal, deadLetterQueueArn, allowedEndpointAccounts, allowLoopbackEndpoints }: CreateSubscriptionDeps,
  portalId: string,
  request: NewSubscription,
  invokedFunctionArn: string,
): Promise<CreatedSubscription> {
  // The topics are made in the function's own account.
  const serviceAccount = accountOf(invokedFunctionArn);
  checkEndpointAccount(request, serviceAccount, allowedEndpointAccounts);
  checkEndpointUrl(request, { allowLoopbackEndpoints });
  if (request.maxReceivesPerSecond !== undefined && !takesDeliveryPolicy(request.protocol)) throw new ThrottleNotSupportedError(request.protocol);
  // Cheap early refusal; the transaction below is what actually enforces the limit.
  if ((await repository.countFor(portalId)) >= maxSubscriptionsPerPortal) {
    throw new SubscriptionLimitReachedError(maxSubscriptionsPerPortal);
  }
  const configId = newConfigId();
  const topic = await topics.open(
    { portalId, configId, protocol: request.protocol, endpoint: request.endpoint },
    snsSubscriptionAttributesFor(request, deadLetterQueueArn),
    await topics.topicArnFor(configId, invokedFunctionArn),
  );
  const createdAt = new Date().toISOString();
  const subscriptionState: SubscriptionState = confirmedAtCreation(request, accountOf(topic.topicArn)) ? 'confirmed' : 'pending';
  const subscription: Subscription = {
    portalId,
    configId,
    name: request.name,
    // The password lives only in SNS; POST /confirm reads it back from there.
    endpoint: maskCredentials(request.endpoint),
    protocol: request.protocol,
    events: request.events,
    ...(request.maxReceivesPerSecond !== undefined && { maxReceivesPerSecond: request.maxReceivesPerSecond }),
    ...(request.filter !== undefined && { filter: JSON.stringify(request.filter) }),
    status: ACTIVATED,
    ...topic,
    createdAt,
    // Stored, so that list asks SNS only until the endpoint is known to have confirmed.
    subscriptionState,
    subscriptionStateAt: createdAt,
  };
  const created: CreatedSubscription = { subscription, subscriptionState };
  try {
    await repository.insert(subscription, maxSubscriptionsPerPortal);
  } catch (error) {
    const written = mayHaveBeenApplied(error) ? await repository.isStored(portalId, configId) : false;
    if (written === true) return created;
    if (written === false) await topics.deleteTopicAfterFailure(topic.topicArn); // its SNS subscription goes with it
    else logger.error('create failed with its outcome unknown; the topic is kept for reconciliation', { ...topic });
    throw error;
  }
  return created;
}
