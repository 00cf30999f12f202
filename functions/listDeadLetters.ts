import { documentClient } from '../shared/aws/dynamodb';
import { InvalidRequestError } from '../shared/contract/invalid-request';
import { listDeadLettersQuery } from '../shared/contract/request-bodies';
import { cursorOf, sortKeyOfCursor } from '../shared/dead-letters/cursor';
import { deadLetterSummaryOf } from '../shared/data/subscription-record';
import { deadLetterStoreOf, page } from '../shared/data/dead-letters';
import { find } from '../shared/data/subscription-reads';
import { tableName } from '../shared/environment';
import { httpOperation, readLimitPerPortal } from '../shared/http/operation';
import { queryInput } from '../shared/http/query-input';
import { listDeadLettersRoute } from '../shared/operations';
import { SubscriptionNotFoundError } from '../shared/subscriptions/errors';

const table = { db: documentClient, tableName };
const store = deadLetterStoreOf(table, { page });

/** One page of a subscription's dead letters, newest first (docs/failed-deliveries.md). */
export const handler = httpOperation(listDeadLettersRoute, {
  portalLimit: readLimitPerPortal,
  body: queryInput(listDeadLettersQuery),
  run: async ({ portalId, body: { configId, limit, cursor } }) => {
    const afterKey = cursor === undefined ? undefined : sortKeyOfCursor(cursor, configId);
    if (cursor !== undefined && afterKey === undefined) {
      throw new InvalidRequestError([{ field: 'cursor', message: 'cursor must be the nextCursor of an earlier answer for this config_id, unchanged.' }]);
    }
    const record = await find(table, portalId, configId);
    if (!record) throw new SubscriptionNotFoundError(configId);
    const page = await store.page(portalId, configId, limit, afterKey);
    const count = page.deadLetters.length;
    return {
      message: `${count} dead letter${count === 1 ? '' : 's'} on this page${page.nextKey ? '; more on the next' : ''}.`,
      deadLetters: page.deadLetters.map(({ eventId, event, occurredAt, failedAt, messageId, retries, nextRetryAt, retriedAt }) => ({
        eventId,
        event,
        occurredAt,
        failedAt,
        messageId,
        retries,
        nextRetryAt,
        // Kept while its scheduled retry is out: it reads as being retried until SNS's verdict.
        state: retriedAt === null ? 'dead-lettered' : 'retrying',
        retriedAt,
      })),
      nextCursor: page.nextKey ? cursorOf(page.nextKey) : null,
      deadLettersDropped: deadLetterSummaryOf(record).deadLettersDropped,
    };
  },
});
