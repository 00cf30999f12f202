import { documentClient } from '../shared/aws/dynamodb';
import { InvalidRequestError } from '../shared/contract/invalid-request';
import { listMessagesQuery } from '../shared/contract/request-bodies';
import { messagePage } from '../shared/data/messages';
import { tableName } from '../shared/environment';
import { httpOperation, readLimitPerPortal } from '../shared/http/operation';
import { queryInput } from '../shared/http/query-input';
import { messageCursorOf, sortKeyOfMessageCursor } from '../shared/messages/cursor';
import { listMessagesRoute } from '../shared/operations';
import { SubscriptionNotFoundError } from '../shared/subscriptions/errors';
import { repositoryOf } from '../shared/data/bound-operations';
import { find } from '../shared/data/subscription-reads';

const table = { db: documentClient, tableName };
const repository = repositoryOf(table, { find });

/** One page of the messages the service sent a subscription, newest first, with their bodies (docs/messages.md). */
export const handler = httpOperation(listMessagesRoute, {
  portalLimit: readLimitPerPortal,
  body: queryInput(listMessagesQuery),
  run: async ({ portalId, body: { configId, limit, cursor, ...query } }) => {
    const afterKey = cursor === undefined ? undefined : sortKeyOfMessageCursor(cursor, configId);
    if (cursor !== undefined && afterKey === undefined) {
      throw new InvalidRequestError([{ field: 'cursor', message: 'cursor must be the nextCursor of an earlier answer for this config_id, unchanged.' }]);
    }
    if (!(await repository.find(portalId, configId))) throw new SubscriptionNotFoundError(configId);
    const page = await messagePage(table, portalId, configId, { limit, afterKey, ...query });
    const count = page.messages.length;
    return {
      message: `${count} message${count === 1 ? '' : 's'} on this page${page.nextKey ? '; more on the next' : ''}.`,
      messages: page.messages.map(({ sk: _key, body, ...message }) => ({ ...message, body: JSON.parse(body) as object })),
      nextCursor: page.nextKey ? messageCursorOf(page.nextKey) : null,
    };
  },
});
