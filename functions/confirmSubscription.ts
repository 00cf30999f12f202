import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { confirmSubscriptionRequest } from '../shared/contract/request-bodies';
import { allowLoopbackEndpoints, allowedEndpointAccounts, confirmationRequestIntervalMs, confirmationRequestsPerDay, deliveryDeadLetterQueueArn, tableName, topicPrefix } from '../shared/environment';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation, sendLimitPerPortal } from '../shared/http/operation';
import { confirmSubscriptionRoute } from '../shared/operations';
import { confirmationRequestsOf } from '../shared/subscriptions/confirmation-requests';
import { confirmSubscription } from '../shared/subscriptions/confirm-subscription';
import { repositoryOf } from '../shared/data/bound-operations';
import { find, isStored } from '../shared/data/subscription-reads';
import { replaceSubscriptionArn, storeSubscriptionState } from '../shared/data/subscription-records';
import { subscribeAgain, topicsOf } from '../shared/subscriptions/topics';

const deps = {
  repository: repositoryOf({ db: documentClient, tableName }, { find, isStored, replaceSubscriptionArn, storeSubscriptionState }),
  topics: topicsOf({ sns: snsClient, topicPrefix }, { subscribeAgain }),
  confirmationRequests: confirmationRequestsOf(
    { db: documentClient, tableName },
    { perDay: confirmationRequestsPerDay, intervalMs: confirmationRequestIntervalMs },
  ),
  sns: snsClient,
  deadLetterQueueArn: deliveryDeadLetterQueueArn,
  allowedEndpointAccounts,
  allowLoopbackEndpoints,
};

/** Subscribes a pending or unsubscribed endpoint again: SNS sends it a new confirmation request. */
export const handler = httpOperation(confirmSubscriptionRoute, {
  portalLimit: sendLimitPerPortal,
  body: jsonInput(confirmSubscriptionRequest),
  run: async ({ portalId, body: { configId } }) => {
    const subscriptionState = await confirmSubscription(deps, portalId, configId);
    return {
      message: subscriptionState === 'confirmed' ? 'Subscription confirmed.' : 'Confirmation requested: SNS sent the endpoint a new confirmation request.',
      subscriptionState,
    };
  },
});
