import { documentClient } from '../shared/aws/dynamodb';
import { InvalidRequestError } from '../shared/contract/invalid-request';
import { listRecoveriesQuery } from '../shared/contract/request-bodies';
import { recoveryPage, shownRecovery } from '../shared/data/recoveries';
import { recoveryPrefixOf } from '../shared/data/table';
import { tableName } from '../shared/environment';
import { httpOperation, readLimitPerPortal } from '../shared/http/operation';
import { queryInput } from '../shared/http/query-input';
import { listRecoveriesRoute } from '../shared/operations';
import { SubscriptionNotFoundError } from '../shared/subscriptions/errors';
import { UUID } from '../shared/subscriptions/config-id';
import { repositoryOf } from '../shared/data/bound-operations';
import { find } from '../shared/data/subscription-reads';

const table = { db: documentClient, tableName };
const repository = repositoryOf(table, { find });

/** The cursor: the sort key of a page's last recovery, base64url; read back only as one of this subscription's. */
const cursorOf = (sortKey: string) => Buffer.from(sortKey, 'utf8').toString('base64url');
function sortKeyOfCursor(cursor: string, configId: string): string | undefined {
  const sortKey = Buffer.from(cursor, 'base64url').toString('utf8');
  const prefix = recoveryPrefixOf(configId);
  return sortKey.startsWith(prefix) && UUID.test(sortKey.slice(prefix.length)) && cursorOf(sortKey) === cursor ? sortKey : undefined;
}

/** One page of the subscription's recoveries, newest first (docs/messages.md, "Recover"). */
export const handler = httpOperation(listRecoveriesRoute, {
  portalLimit: readLimitPerPortal,
  body: queryInput(listRecoveriesQuery),
  run: async ({ portalId, body: { configId, limit, cursor } }) => {
    const afterKey = cursor === undefined ? undefined : sortKeyOfCursor(cursor, configId);
    if (cursor !== undefined && afterKey === undefined) {
      throw new InvalidRequestError([{ field: 'cursor', message: 'cursor must be the cursor of an earlier answer for this config_id, unchanged.' }]);
    }
    if (!(await repository.find(portalId, configId))) throw new SubscriptionNotFoundError(configId);
    const page = await recoveryPage(table, portalId, configId, { limit, afterKey });
    const count = page.recoveries.length;
    return {
      message: `${count} ${count === 1 ? 'recovery' : 'recoveries'} on this page${page.nextKey ? '; more on the next' : ''}.`,
      recoveries: page.recoveries.map(shownRecovery),
      ...(page.nextKey && { cursor: cursorOf(page.nextKey) }),
    };
  },
});
