import { documentClient } from '../shared/aws/dynamodb';
import { mapWithConcurrency } from '../shared/aws/bounded-concurrency';
import { snsClient } from '../shared/aws/sns';
import { config } from '../shared/environment';
import { httpOperation } from '../shared/http/operation';
import { listEntryView } from '../shared/subscriptions/model';
import { SubscriptionRepository } from '../shared/subscriptions/repository';
import { isConfirmed } from '../shared/subscriptions/sns-subscription';

const repository = new SubscriptionRepository(documentClient, config.tableName);
/** A portal's default limit of 10 all at once; larger portals 10 at a time, not all in one burst. */
const CONFIRMATION_LOOKUPS_IN_FLIGHT = 10;

/** Every subscription of the caller's portal, oldest first. Any request body is ignored. */
export const handler = httpOperation('listSubscriptionsRoute', {
  run: async ({ portalId }) => {
    const subscriptions = await repository.listFor(portalId);
    // SNS alone knows whether an endpoint confirmed: one look-up per subscription, in parallel.
    const confirmed = await mapWithConcurrency(subscriptions, CONFIRMATION_LOOKUPS_IN_FLIGHT, (subscription) =>
      isConfirmed(snsClient, subscription.subscriptionArn),
    );
    return {
      message: `${subscriptions.length} subscription${subscriptions.length === 1 ? '' : 's'} found.`,
      configs: subscriptions.map((subscription, index) => listEntryView(subscription, confirmed[index]!)),
    };
  },
});
