/**
 * Request and answer values typed with @hey-api/openapi-ts's types: every documented call must
 * type-check (test/service/openapi.client-types.test.ts). Never run: only compiled.
 */
import type {
  ActivateSubscriptionRouteData,
  CreateSubscriptionRouteData,
  CreateSubscriptionRouteErrors,
  DeleteSubscriptionRouteData,
  ListAttemptsRouteData,
  ListDeadLettersRouteData,
  ListSubscriptionsRouteResponses,
  RenameSubscriptionRouteData,
  ReplayDeadLettersRouteData,
  TestFilterRouteData,
  TestFilterRouteResponses,
  TestSubscriptionRouteData,
  UpdateSubscriptionRouteData,
} from './generated/hey-api/types.gen';

const config_id = '0192f8a4-7b3c-7d2e-9f01-23456789abcd';

export const create: CreateSubscriptionRouteData['body'] = {
  name: 'Media updates',
  endpoint: 'https://hooks.example.com/webhooks',
  protocol: 'https',
  events: ['asset_bank.media.create'],
  maxReceivesPerSecond: 10,
  filter: { brand: ['acme'], size: [{ numeric: ['>', 1000] }] },
};
export const updates: UpdateSubscriptionRouteData['body'][] = [
  { config_id, events: ['asset_bank.media.create'] },
  { config_id, maxReceivesPerSecond: null },
  { config_id, events: ['asset_bank.media.create'], maxReceivesPerSecond: 3 },
  { config_id, filter: { brand: [{ prefix: 'ac' }] } },
  { config_id, filter: null },
];
export const tryFilter: TestFilterRouteData['body'] = { filter: { brand: ['acme'] }, data: { brand: 'acme' } };
export const decidedBy = (answer: TestFilterRouteResponses[200]): string | null => (answer.matches ? null : answer.decidingKey);
export const listedFilter = (answer: ListSubscriptionsRouteResponses[200]): { [key: string]: unknown } | undefined => answer.configs[0]?.filter;
export const activate: ActivateSubscriptionRouteData['body'] = { config_id, status: 0 };
export const rename: RenameSubscriptionRouteData['body'] = { config_id, name: 'New name' };
export const test: TestSubscriptionRouteData['body'] = { config_id };
export const replay: ReplayDeadLettersRouteData['body'] = { config_id, eventIds: ['e-1'] };
export const deadLetters: ListDeadLettersRouteData['query'] = { config_id, limit: 10 };
export const attempts: ListAttemptsRouteData['query'] = { config_id, limit: 10, status: 'delivered' };
export const remove: DeleteSubscriptionRouteData['path'] = { configId: config_id };
export const tooMany: CreateSubscriptionRouteErrors[429] = { success: false, message: 'Later.', code: 'RATE_LIMITED' };
export const throttled: CreateSubscriptionRouteErrors[429] = { message: 'Too Many Requests' };
export const lastFailedAt = (answer: ListSubscriptionsRouteResponses[200]): string | null | undefined => answer.configs[0]?.lastFailedAt;
