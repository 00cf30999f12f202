import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { config } from '../shared/environment';
import { httpOperation } from '../shared/http/operation';
import { listEntryView } from '../shared/subscriptions/model';
import { SubscriptionRepository } from '../shared/subscriptions/repository';
import { isConfirmed } from '../shared/subscriptions/sns-subscription';

const repository = new SubscriptionRepository(documentClient, config.tableName);

/** Every subscription of the caller's portal, oldest first. Any request body is ignored. */
export const handler = httpOperation('listSubscriptionsRoute', {
  run: async ({ portalId }) => {
    const subscriptions = await repository.listFor(portalId);
    // One look-up per subscription, all at once: SNS alone knows whether the endpoint confirmed.
    const confirmed = await Promise.all(subscriptions.map((subscription) => isConfirmed(snsClient, subscription.subscriptionArn)));
    return {
      message: `${subscriptions.length} subscription${subscriptions.length === 1 ? '' : 's'} found.`,
      configs: subscriptions.map((subscription, index) => listEntryView(subscription, confirmed[index]!)),
    };
  },
});
