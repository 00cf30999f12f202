import { documentClient } from '../shared/aws/dynamodb';
import { renameSubscriptionRequest } from '../shared/contract/request-bodies';
import { config } from '../shared/environment';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation } from '../shared/http/operation';
import { SubscriptionRepository } from '../shared/subscriptions/repository';

const repository = new SubscriptionRepository(documentClient, config.tableName);

export const handler = httpOperation('renameSubscriptionRoute', {
  body: jsonInput(renameSubscriptionRequest),
  run: async ({ portalId, body: { configId, name } }) => {
    await repository.update(portalId, configId, { name });
    return { message: 'Subscription renamed.' };
  },
});
