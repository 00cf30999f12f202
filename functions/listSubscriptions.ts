import { documentClient } from '../shared/aws/dynamodb';
import { config } from '../shared/environment';
import { httpOperation } from '../shared/http/operation';
import { listEntryView } from '../shared/subscriptions/model';
import { SubscriptionRepository } from '../shared/subscriptions/repository';

const repository = new SubscriptionRepository(documentClient, config.tableName);

/** Every subscription of the caller's portal, oldest first. Any request body is ignored. */
export const handler = httpOperation('listSubscriptionsRoute', {
  run: async ({ portalId }) => {
    const subscriptions = await repository.listFor(portalId);
    return {
      message: `${subscriptions.length} subscription${subscriptions.length === 1 ? '' : 's'} found.`,
      configs: subscriptions.map(listEntryView),
    };
  },
});
