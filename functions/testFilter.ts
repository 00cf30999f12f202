import { testFilterRequest } from '../shared/contract/request-bodies';
import { filterMiss } from '../shared/filters/filter-policy';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation, readLimitPerPortal } from '../shared/http/operation';
import { testFilterRoute } from '../shared/operations';

/** Whether an example `data` matches a filter, as the dispatcher decides (shared/delivery/dispatch.ts); for a miss, the key that decided it. */
export const handler = httpOperation(testFilterRoute, {
  body: jsonInput(testFilterRequest),
  portalLimit: readLimitPerPortal,
  run: async ({ body: { filter, data } }) => {
    const miss = filterMiss(filter, data);
    return miss
      ? { message: `data does not match the filter: ${miss.key} decided it.`, matches: false, decidingKey: miss.key }
      : { message: 'data matches the filter.', matches: true, decidingKey: null };
  },
});
