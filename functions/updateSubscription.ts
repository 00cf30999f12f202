import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { updateSubscriptionRequest } from '../shared/contract/request-bodies';
import { config } from '../shared/environment';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation } from '../shared/http/operation';
import { changeDelivery } from '../shared/subscriptions/change-delivery';
import { SubscriptionRepository } from '../shared/subscriptions/repository';

const deps = { repository: new SubscriptionRepository(documentClient, config.tableName), sns: snsClient };

/** Replaces the subscription's event list. */
export const handler = httpOperation('updateSubscriptionRoute', {
  body: jsonInput(updateSubscriptionRequest),
  run: async ({ portalId, body: { configId, events } }) => {
    const updated = await changeDelivery(deps, portalId, configId, { events });
    return {
      message: 'Subscription events updated.',
      record: { configId: updated.configId, events: updated.events, portalId: updated.portalId },
    };
  },
});
