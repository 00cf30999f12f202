import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { updateSubscriptionRequest } from '../shared/contract/request-bodies';
import { tableName } from '../shared/environment';
import { jsonInput } from '../shared/http/json-input';
import { changeLimitPerPortal, httpOperation } from '../shared/http/operation';
import { updateSubscriptionRoute } from '../shared/operations';
import { filterOf, throttleOf } from '../shared/subscriptions/model';
import { repositoryOf } from '../shared/data/bound-operations';
import { update } from '../shared/data/subscription-records';
import { updateSubscription } from '../shared/subscriptions/update-subscription';

const deps = { repository: repositoryOf({ db: documentClient, tableName }, { update }), sns: snsClient };

/**
 * Replaces the subscription's event list or filter (which the dispatcher reads), sets its throttle
 * (which SNS enforces), or any of them together.
 */
export const handler = httpOperation(updateSubscriptionRoute, {
  portalLimit: changeLimitPerPortal,
  body: jsonInput(updateSubscriptionRequest),
  run: async ({ portalId, body: { configId, events, maxReceivesPerSecond, filter } }) => {
    const updated = await updateSubscription(deps, portalId, configId, {
      events,
      maxReceivesPerSecond,
      filter: filter === undefined || filter === null ? filter : JSON.stringify(filter),
    });
    const changed = [events && 'events', maxReceivesPerSecond !== undefined && 'throttle', filter !== undefined && 'filter'].filter(Boolean);
    return {
      message: `Subscription ${changed.slice(0, -1).join(', ')}${changed.length > 1 ? ' and ' : ''}${changed.at(-1)} updated.`,
      record: { configId: updated.configId, events: updated.events, portalId: updated.portalId, ...throttleOf(updated), ...filterOf(updated) },
    };
  },
});
