import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { maxSubscriptionsPerPortal, tableName } from '../shared/environment';
import { httpOperation, readLimitPerPortal } from '../shared/http/operation';
import { listSubscriptionsRoute } from '../shared/operations';
import { listEntryView } from '../shared/subscriptions/model';
import { repositoryOf } from '../shared/data/bound-operations';
import { listFor } from '../shared/data/subscription-reads';
import { storeSubscriptionState } from '../shared/data/subscription-records';
import { subscriptionStatesOf } from '../shared/subscriptions/subscription-states';

const repository = repositoryOf({ db: documentClient, tableName }, { listFor, storeSubscriptionState });

/** Every subscription of the caller's portal, oldest first. Any request body is ignored. */
export const handler = httpOperation(listSubscriptionsRoute, {
  portalLimit: readLimitPerPortal,
  run: async ({ portalId }) => {
    const subscriptions = await repository.listFor(portalId);
    // The stored state where it is known to hold; SNS only for the others (subscription-states.ts).
    const states = await subscriptionStatesOf({ sns: snsClient, repository }, subscriptions);
    return {
      message: `${subscriptions.length} subscription${subscriptions.length === 1 ? '' : 's'} found.`,
      configs: subscriptions.map((subscription, index) => listEntryView(subscription, states[index]!)),
      maxSubscriptions: maxSubscriptionsPerPortal,
    };
  },
});
