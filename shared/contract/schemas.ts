/**
 * The API contract, written once as JSON Schemas (2020-12): every request body and every answer.
 * From these, and nothing else:
 * - the OpenAPI document (openapi-document.ts) takes them as its components;
 * - write-validators.ts compiles each request body's schema, at build time, into the validator
 *   its function runs (ajv's standalone code, in generated/);
 * - the admin page reads the protocols, the event catalog and each protocol's endpoint hint from
 *   the document.
 *
 * `x-error` (an OpenAPI extension, ignored by other tools) is what a refusal says when the
 * subschema it sits in fails, after the field's name ("name must not be empty."): one sentence
 * for any keyword of that subschema, or one per keyword. A missing field says "is required.".
 *
 * What a schema cannot say is done beside the compiled validator (request-bodies.ts), and said in
 * the descriptions: the event catalog is the deployment's (EVENT_KINDS), so the document gets it
 * as an enum when it is built; `config_id` and `configId`, when both are sent, must name the same
 * subscription; the service lower-cases `protocol` before the check, so any letter case passes.
 *
 * Request bodies use no `$ref`: a refusal's place in the body, and its message, are read from the
 * failing keyword's path in the body's own schema.
 *
 * The schemas live by side: request-schemas.ts (the bodies a caller sends, gathered from
 * request-fields.ts, request-endpoints.ts, subscription-requests.ts and dead-letter-requests.ts),
 * answer-schemas.ts (what the service answers), schema-patterns.ts (the dialect, ids, limits and
 * patterns both use). This module gathers them; import from here.
 */
import {
  protocol,
  subscriptionStatusAnswer,
  subscriptionState,
  subscriptionRecord,
  subscriptionListEntry,
  createSubscriptionResponse,
  updateSubscriptionResponse,
  listSubscriptionsResponse,
  testSubscriptionResponse,
  testFilterResponse,
  confirmSubscriptionResponse,
  deadLetter,
  listDeadLettersResponse,
  deliveryAttempt,
  listAttemptsResponse,
  loggedMessage,
  listMessagesResponse,
  resendMessageResponse,
  recoverMessagesResponse,
  recovery,
  listRecoveriesResponse,
  replayDeadLettersResponse,
  confirmationResponse,
  errorResponse,
  gatewayError,
} from './answer-schemas';
import { eventKind, REQUEST_SCHEMAS } from './request-schemas';

export * from './schema-patterns';
export * from './request-schemas';
export * from './answer-schemas';

/** Every top-level schema, in the order the document lists them. */
export const CONTRACT_SCHEMAS = [
  protocol,
  subscriptionStatusAnswer,
  subscriptionState,
  eventKind,
  subscriptionRecord,
  subscriptionListEntry,
  createSubscriptionResponse,
  updateSubscriptionResponse,
  listSubscriptionsResponse,
  testSubscriptionResponse,
  testFilterResponse,
  confirmSubscriptionResponse,
  deadLetter,
  listDeadLettersResponse,
  replayDeadLettersResponse,
  deliveryAttempt,
  listAttemptsResponse,
  loggedMessage,
  listMessagesResponse,
  resendMessageResponse,
  recoverMessagesResponse,
  recovery,
  listRecoveriesResponse,
  confirmationResponse,
  errorResponse,
  gatewayError,
  ...Object.values(REQUEST_SCHEMAS),
] as const;
