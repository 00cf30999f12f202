import { documentClient } from '../shared/aws/dynamodb';
import { activateSubscriptionRequest } from '../shared/contract/request-bodies';
import { tableName } from '../shared/environment';
import { jsonInput } from '../shared/http/json-input';
import { changeLimitPerPortal, httpOperation } from '../shared/http/operation';
import { activateSubscriptionRoute } from '../shared/operations';
import { repositoryOf } from '../shared/data/bound-operations';
import { update } from '../shared/data/subscription-records';

const repository = repositoryOf({ db: documentClient, tableName }, { update });

/**
 * Sets status 1 (activated) or 0 (deactivated): one conditional write. The dispatcher reads the
 * status when it publishes, so an event right after an activate is delivered.
 */
export const handler = httpOperation(activateSubscriptionRoute, {
  portalLimit: changeLimitPerPortal,
  body: jsonInput(activateSubscriptionRequest),
  run: async ({ portalId, body: { configId, status } }) => {
    await repository.update(portalId, configId, { status });
    return { message: status === 1 ? 'Subscription activated.' : 'Subscription deactivated.' };
  },
});
