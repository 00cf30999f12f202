import { attemptCursorOf, sortKeyOfAttemptCursor } from '../shared/attempts/cursor';
import { attemptPage } from '../shared/data/attempts';
import { documentClient } from '../shared/aws/dynamodb';
import { InvalidRequestError } from '../shared/contract/invalid-request';
import { listAttemptsQuery } from '../shared/contract/request-bodies';
import { tableName } from '../shared/environment';
import { httpOperation, readLimitPerPortal } from '../shared/http/operation';
import { queryInput } from '../shared/http/query-input';
import { listAttemptsRoute } from '../shared/operations';
import { AttemptsNotRecordedError, SubscriptionNotFoundError } from '../shared/subscriptions/errors';
import { repositoryOf } from '../shared/data/bound-operations';
import { find } from '../shared/data/subscription-reads';

const table = { db: documentClient, tableName };
const repository = repositoryOf(table, { find });

/** One page of a subscription's delivery attempts, newest first (docs/api.md#delivery-attempts). */
export const handler = httpOperation(listAttemptsRoute, {
  portalLimit: readLimitPerPortal,
  body: queryInput(listAttemptsQuery),
  run: async ({ portalId, body: { configId, limit, cursor, status } }) => {
    const afterKey = cursor === undefined ? undefined : sortKeyOfAttemptCursor(cursor, configId);
    if (cursor !== undefined && afterKey === undefined) {
      throw new InvalidRequestError([{ field: 'cursor', message: 'cursor must be the nextCursor of an earlier answer for this config_id, unchanged.' }]);
    }
    const subscription = await repository.find(portalId, configId);
    if (!subscription) throw new SubscriptionNotFoundError(configId);
    if (subscription.protocol === 'email' || subscription.protocol === 'email-json') throw new AttemptsNotRecordedError(subscription.protocol);
    const page = await attemptPage(table, portalId, configId, { limit, afterKey, status });
    const count = page.attempts.length;
    return {
      message: `${count} delivery attempt${count === 1 ? '' : 's'} on this page${page.nextKey ? '; more on the next' : ''}.`,
      attempts: page.attempts.map(({ at, status, statusCode, dwellTimeMs, attempts, messageId, eventId }) => ({ at, status, statusCode, dwellTimeMs, attempts, messageId, eventId: eventId ?? null })),
      nextCursor: page.nextKey ? attemptCursorOf(page.nextKey) : null,
    };
  },
});
