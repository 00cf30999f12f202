/**
 * The request side of the contract (schemas.ts): each request body's schema, by the name of
 * the module its compiled validator is written to. Request bodies use no `$ref`: a refusal's
 * place in the body, and its message, are read from the failing keyword's path in the body's
 * own schema.
 *
 * The schemas live by what they hold: request-fields.ts (each field a request may send, and the
 * addressing of a subscription), request-endpoints.ts (what each protocol's endpoint must be),
 * subscription-requests.ts (the subscription bodies) and dead-letter-requests.ts (the dead
 * letters' and attempts' queries, and the replay's body).
 */
import {
  activateSubscriptionRequest,
  confirmSubscriptionRequest,
  createSubscriptionRequest,
  renameSubscriptionRequest,
  testFilterRequest,
  testSubscriptionRequest,
  updateSubscriptionRequest,
} from './subscription-requests';
import { listAttemptsQuery, listDeadLettersQuery, replayDeadLettersRequest } from './dead-letter-requests';
import { listMessagesQuery, resendMessageRequest } from './message-requests';
import { listRecoveriesQuery, recoverMessagesRequest } from './recovery-requests';

export { eventKind, eventKindEntry, subscriptionIdParameter } from './request-fields';
export * from './subscription-requests';
export * from './dead-letter-requests';
export * from './message-requests';
export * from './recovery-requests';

/** Each request body's schema, by the name of the module its compiled validator is written to. */
export const REQUEST_SCHEMAS = {
  'create-subscription-request': createSubscriptionRequest,
  'update-subscription-request': updateSubscriptionRequest,
  'activate-subscription-request': activateSubscriptionRequest,
  'rename-subscription-request': renameSubscriptionRequest,
  'test-subscription-request': testSubscriptionRequest,
  'confirm-subscription-request': confirmSubscriptionRequest,
  'list-dead-letters-query': listDeadLettersQuery,
  'replay-dead-letters-request': replayDeadLettersRequest,
  'list-attempts-query': listAttemptsQuery,
  'list-messages-query': listMessagesQuery,
  'resend-message-request': resendMessageRequest,
  'recover-messages-request': recoverMessagesRequest,
  'list-recoveries-query': listRecoveriesQuery,
  'test-filter-request': testFilterRequest,
} as const;
