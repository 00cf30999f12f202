import { documentClient } from '../shared/aws/dynamodb';
import { mapWithConcurrency } from '../shared/aws/bounded-concurrency';
import { snsClient } from '../shared/aws/sns';
import { config } from '../shared/environment';
import { httpOperation } from '../shared/http/operation';
import { listEntryView } from '../shared/subscriptions/model';
import { SubscriptionRepository } from '../shared/subscriptions/repository';
import { subscriptionStateOf } from '../shared/subscriptions/sns-subscription';

const repository = new SubscriptionRepository(documentClient, config.tableName);
/** A portal's default limit of 10 all at once; larger portals 10 at a time, not all in one burst. */
const STATE_LOOKUPS_IN_FLIGHT = 10;

/** Every subscription of the caller's portal, oldest first. Any request body is ignored. */
export const handler = httpOperation('listSubscriptionsRoute', {
  run: async ({ portalId }) => {
    const subscriptions = await repository.listFor(portalId);
    // SNS alone knows whether an endpoint confirmed or left: one look-up per subscription, in parallel.
    const states = await mapWithConcurrency(subscriptions, STATE_LOOKUPS_IN_FLIGHT, (subscription) =>
      subscriptionStateOf(snsClient, subscription.subscriptionArn),
    );
    return {
      message: `${subscriptions.length} subscription${subscriptions.length === 1 ? '' : 's'} found.`,
      configs: subscriptions.map((subscription, index) => listEntryView(subscription, states[index]!)),
      maxSubscriptions: config.maxSubscriptionsPerPortal,
    };
  },
});
