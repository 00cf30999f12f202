import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { topicManagersOf, topicPublishersOf } from '../shared/config';
import { type CreateSubscriptionRequest, createSubscriptionRequest } from '../shared/contract/request-bodies';
import { allowLoopbackEndpoints, allowedEndpointAccounts, deliveryDeadLetterQueueArn, deliveryStatusRoleArn, deliveryStatusSuccessSampleRate, maxSubscriptionsPerPortal, tableName, topicManagerArns, topicPrefix, topicPublisherArns } from '../shared/environment';
import { createSubscriptionRoute } from '../shared/operations';
import { deliveryStatusOf } from '../shared/subscriptions/delivery-status';
import { idempotentRuns } from '../shared/http/idempotency';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation, sendLimitPerPortal } from '../shared/http/operation';
import { maskCredentials } from '../shared/masked-credentials';
import { createSubscription } from '../shared/subscriptions/create-subscription';
import { recordView } from '../shared/subscriptions/model';
import { repositoryOf } from '../shared/data/bound-operations';
import { isStored } from '../shared/data/subscription-reads';
import { insert } from '../shared/data/subscription-records';
import { countFor } from '../shared/data/portal-counters';
import { deleteTopicAfterFailure, open, topicArnFor, topicsOf } from '../shared/subscriptions/topics';

const deps = {
  repository: repositoryOf({ db: documentClient, tableName }, { countFor, insert, isStored }),
  topics: topicsOf({ sns: snsClient, topicPrefix, publisherArns: topicPublishersOf({ topicPublisherArns }), managerArns: topicManagersOf({ topicManagerArns }), deliveryStatus: deliveryStatusOf({ deliveryStatusRoleArn, deliveryStatusSuccessSampleRate }) }, { topicArnFor, open, deleteTopicAfterFailure }),
  maxSubscriptionsPerPortal,
  deadLetterQueueArn: deliveryDeadLetterQueueArn,
  allowedEndpointAccounts,
  allowLoopbackEndpoints,
};

/** Creates a subscription; with an Idempotency-Key header, at most one per portal and key. */
export const handler = httpOperation(createSubscriptionRoute, {
  portalLimit: sendLimitPerPortal,
  body: jsonInput(createSubscriptionRequest),
  idempotency: idempotentRuns({
    client: documentClient,
    tableName,
    operationId: 'createSubscriptionRoute',
    // No hash of the endpoint's password in the table: the same key with another password is the same create.
    comparedAs: (body) => ({ ...(body as CreateSubscriptionRequest), endpoint: maskCredentials((body as CreateSubscriptionRequest).endpoint) }),
  }),
  run: async ({ portalId, body, context }) => {
    const { subscription, subscriptionState } = await createSubscription(deps, portalId, body, context.invokedFunctionArn);
    return { message: 'Subscription created.', record: recordView(subscription, subscriptionState) };
  },
});
