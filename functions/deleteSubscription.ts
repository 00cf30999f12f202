import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { InvalidRequestError } from '../shared/contract/invalid-request';
import { tableName, topicPrefix } from '../shared/environment';
import { changeLimitPerPortal, httpOperation } from '../shared/http/operation';
import { deleteSubscriptionRoute } from '../shared/operations';
import { configIdFromPath } from '../shared/subscriptions/config-id';
import { deleteSubscription } from '../shared/subscriptions/delete-subscription';
import { repositoryOf } from '../shared/data/bound-operations';
import { find, isStored } from '../shared/data/subscription-reads';
import { remove } from '../shared/data/subscription-records';
import { close, topicsOf } from '../shared/subscriptions/topics';

const deps = {
  repository: repositoryOf({ db: documentClient, tableName }, { find, remove, isStored }),
  topics: topicsOf({ sns: snsClient, topicPrefix }, { close }),
};

/** Deletes the subscription named in the path, with its SNS topic and subscription. Any body is ignored. */
export const handler = httpOperation(deleteSubscriptionRoute, {
  portalLimit: changeLimitPerPortal,
  run: async ({ portalId, event }) => {
    const configId = configIdFromPath(event.pathParameters?.configId);
    if (!configId) {
      throw new InvalidRequestError([
        { field: 'configId', message: 'configId in the path must be a UUID such as 0192f8a4-7b3c-7d2e-9f01-23456789abcd.' },
      ]);
    }
    await deleteSubscription(deps, portalId, configId);
    return { message: 'Subscription deleted.' };
  },
});
