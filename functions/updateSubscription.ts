import { documentClient } from '../shared/aws/dynamodb';
import { updateSubscriptionRequest } from '../shared/contract/request-bodies';
import { config } from '../shared/environment';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation } from '../shared/http/operation';
import { repositoryOf, update } from '../shared/subscriptions/repository';

const repository = repositoryOf({ db: documentClient, tableName: config.tableName }, { update });

/** Replaces the subscription's event list: one conditional write, which the dispatcher reads. */
export const handler = httpOperation('updateSubscriptionRoute', {
  body: jsonInput(updateSubscriptionRequest),
  run: async ({ portalId, body: { configId, events } }) => {
    const updated = await repository.update(portalId, configId, { events });
    return {
      message: 'Subscription events updated.',
      record: { configId: updated.configId, events: updated.events, portalId: updated.portalId },
    };
  },
});
