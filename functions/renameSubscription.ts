import { documentClient } from '../shared/aws/dynamodb';
import { renameSubscriptionRequest } from '../shared/contract/request-bodies';
import { tableName } from '../shared/environment';
import { jsonInput } from '../shared/http/json-input';
import { changeLimitPerPortal, httpOperation } from '../shared/http/operation';
import { renameSubscriptionRoute } from '../shared/operations';
import { repositoryOf } from '../shared/data/bound-operations';
import { update } from '../shared/data/subscription-records';

const repository = repositoryOf({ db: documentClient, tableName }, { update });

export const handler = httpOperation(renameSubscriptionRoute, {
  portalLimit: changeLimitPerPortal,
  body: jsonInput(renameSubscriptionRequest),
  run: async ({ portalId, body: { configId, name } }) => {
    await repository.update(portalId, configId, { name });
    return { message: 'Subscription renamed.' };
  },
});
