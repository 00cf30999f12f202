import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { activateSubscriptionRequest } from '../shared/contract/request-bodies';
import { config } from '../shared/environment';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation } from '../shared/http/operation';
import { changeDelivery } from '../shared/subscriptions/change-delivery';
import { SubscriptionRepository } from '../shared/subscriptions/repository';

const deps = { repository: new SubscriptionRepository(documentClient, config.tableName), sns: snsClient };

/** Sets status 1 (activated) or 0 (deactivated). */
export const handler = httpOperation('activateSubscriptionRoute', {
  body: jsonInput(activateSubscriptionRequest),
  run: async ({ portalId, body: { configId, status } }) => {
    await changeDelivery(deps, portalId, configId, { status });
    return { message: status === 1 ? 'Subscription activated.' : 'Subscription deactivated.' };
  },
});
