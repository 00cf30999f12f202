/**
 * Values the service refuses for their shape, typed with @hey-api/openapi-ts's types: each must
 * fail to compile where its `@ts-expect-error` says (test/service/openapi.client-types.test.ts).
 */
import type {
  ActivateSubscriptionRouteData,
  CreateSubscriptionRouteData,
  CreateSubscriptionRouteErrors,
  ListAttemptsRouteData,
  ListDeadLettersRouteData,
  RenameSubscriptionRouteData,
  TestSubscriptionRouteData,
  UpdateSubscriptionRouteData,
} from './generated/hey-api/types.gen';

const config_id = '0192f8a4-7b3c-7d2e-9f01-23456789abcd';

// @ts-expect-error -- rename without config_id
export const rename: RenameSubscriptionRouteData['body'] = { name: 'x' };
// @ts-expect-error -- update with nothing to change
export const update: UpdateSubscriptionRouteData['body'] = { config_id };
// @ts-expect-error -- test without config_id
export const test: TestSubscriptionRouteData['body'] = {};
// @ts-expect-error -- activate with a status that is neither 0 nor 1
export const activate: ActivateSubscriptionRouteData['body'] = { config_id, status: 2 };
// @ts-expect-error -- a name that is not a string
export const renameTo42: RenameSubscriptionRouteData['body'] = { config_id, name: 42 };
export const create: CreateSubscriptionRouteData['body'] = {
  name: 'x',
  // @ts-expect-error -- an endpoint that is not a string
  endpoint: 42,
  protocol: 'https',
  events: ['asset_bank.media.create'],
};
// @ts-expect-error -- limit as a string
export const deadLetters: ListDeadLettersRouteData['query'] = { config_id, limit: '10' };
// @ts-expect-error -- an attempts status that does not exist
export const attempts: ListAttemptsRouteData['query'] = { config_id, status: 'pending' };
// @ts-expect-error -- an unknown field in a literal body (the document does not list it)
export const renameWithColour: RenameSubscriptionRouteData['body'] = { config_id, name: 'x', colour: 'red' };
// @ts-expect-error -- a code the 429 answer does not carry
export const tooMany: CreateSubscriptionRouteErrors[429] = { success: false, message: 'Later.', code: 'SUBSCRIPTION_NOT_FOUND' };
