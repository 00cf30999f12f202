/**
 * The answer side of the contract (schemas.ts): every answer the service (and API Gateway itself)
 * gives, as the OpenAPI document lists it.
 */
import { PROTOCOLS } from '../subscriptions/model';
import {
  SCHEMA_DIALECT,
  schemaId,
  ref,
  MIN_RECEIVES_PER_SECOND,
} from './schema-patterns';

// ---- answers ------------------------------------------------------------------------------
// Every object is closed (`additionalProperties: false`): the suites hold each answer they
// receive to these (test/support/openapi-responses.ts), so a field answered and not described
// here fails them.

export const protocol = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('Protocol'),
  type: 'string',
  enum: PROTOCOLS,
  description: 'Delivery protocol, as stored (lower-case).',
} as const;

export const subscriptionStatusAnswer = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('SubscriptionStatus'),
  type: 'integer',
  enum: [0, 1],
  description: '1 = activated, 0 = deactivated.',
} as const;

export const subscriptionState = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('SubscriptionState'),
  type: 'string',
  enum: ['confirmed', 'pending', 'unsubscribed'],
  description:
    'SNS\'s side of a subscription: `confirmed` (SNS delivers to the endpoint), `pending` (SNS waits for the endpoint to confirm; ' +
    'nothing is delivered meanwhile), `unsubscribed` (SNS no longer has it: the endpoint unsubscribed, or never confirmed in time; ' +
    '`POST /confirm` subscribes it again). As the service last learned it: a lapse shows within one run of the reconciler.',
} as const;

/** Ids the service makes: UUIDv7, lower-case. */
const createdId = { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' } as const;
const sentence = { type: 'string', minLength: 1 } as const;
const text = { type: 'string' } as const;
const storedEvents = { type: 'array', items: text, description: 'Event kinds, without repeats, in the order chosen.' } as const;
const storedReceivesPerSecond = {
  type: 'integer',
  minimum: MIN_RECEIVES_PER_SECOND,
  description: 'The throttle chosen: at most this many deliveries per second (SNS\'s `throttlePolicy.maxReceivesPerSecond`). Absent: none.',
} as const;

const storedFilter = {
  type: 'object',
  additionalProperties: true,
  description: 'The filter chosen: an SNS filter policy applied to each event\'s `data`, as it was sent. Absent: every event of the chosen kinds.',
} as const;

export const subscriptionRecord = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('SubscriptionRecord'),
  type: 'object',
  description: 'A subscription as create answers it; `confirmed` is true only while `subscriptionState` is `confirmed`.',
  properties: {
    configId: createdId,
    endpoint: text,
    events: storedEvents,
    name: text,
    portalId: text,
    protocol: ref(protocol),
    subscriptionArn: text,
    topicArn: text,
    status: ref(subscriptionStatusAnswer),
    confirmed: { type: 'boolean' },
    subscriptionState: ref(subscriptionState),
    maxReceivesPerSecond: storedReceivesPerSecond,
    filter: storedFilter,
  },
  required: [
    'configId',
    'endpoint',
    'events',
    'name',
    'portalId',
    'protocol',
    'subscriptionArn',
    'topicArn',
    'status',
    'confirmed',
    'subscriptionState',
  ],
  additionalProperties: false,
} as const;

export const subscriptionListEntry = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('SubscriptionListEntry'),
  type: 'object',
  description: 'One subscription of the caller\'s portal, as list answers it.',
  properties: {
    configId: createdId,
    name: text,
    endpoint: text,
    protocol: ref(protocol),
    events: storedEvents,
    status: ref(subscriptionStatusAnswer),
    confirmed: { type: 'boolean' },
    subscriptionState: ref(subscriptionState),
    deadLetters: { type: 'integer', minimum: 0, description: 'How many dead letters are kept for it (GET /dead-letters lists them), those being retried included.' },
    deadLettersRetrying: {
      type: 'integer',
      minimum: 0,
      description: 'How many of its dead letters are being retried: a scheduled retry was sent and SNS has not said yet how it went. Counted in `deadLetters` too.',
    },
    lastDeadLetterAt: {
      type: ['string', 'null'],
      description: 'When its latest dead letter failed, while that is still kept; null otherwise.',
    },
    deadLettersDropped: { type: 'integer', minimum: 0, description: 'Dead letters removed to keep at most 1,000 (the oldest gave way).' },
    lastDeliveredAt: {
      type: ['string', 'null'],
      description: 'When SNS last logged a delivery to the endpoint (ISO 8601); null if none is known. Successes are sampled as the deployment sets.',
    },
    lastFailedAt: { type: ['string', 'null'], description: 'When SNS last logged a failed delivery to the endpoint (ISO 8601); null if none is known.' },
    deliveredLast24h: { type: 'integer', minimum: 0, description: 'Deliveries SNS logged over the last 24 hours (to the hour).' },
    failedLast24h: { type: 'integer', minimum: 0, description: 'Failed deliveries SNS logged over the last 24 hours (to the hour).' },
    maxReceivesPerSecond: storedReceivesPerSecond,
    filter: storedFilter,
    disabledReason: {
      type: ['string', 'null'],
      enum: ['failing', null],
      description: 'Why the service deactivated it: `failing` (no successful delivery for DISABLE_FAILING_AFTER while a dead letter of it exhausted its retries); null when it did not. Activating it clears it.',
    },
    disabledAt: { type: ['string', 'null'], description: 'When the service deactivated it (ISO 8601); null when it did not.' },
  },
  required: [
    'configId',
    'name',
    'endpoint',
    'protocol',
    'events',
    'status',
    'confirmed',
    'subscriptionState',
    'deadLetters',
    'deadLettersRetrying',
    'lastDeadLetterAt',
    'deadLettersDropped',
    'lastDeliveredAt',
    'lastFailedAt',
    'deliveredLast24h',
    'failedLast24h',
    'disabledReason',
    'disabledAt',
  ],
  additionalProperties: false,
} as const;

/** `{success: true, message}` and what an operation adds to it. */
function success<const Name extends string, const Properties extends Record<string, object>>(name: Name, description: string, properties: Properties) {
  return {
    $schema: SCHEMA_DIALECT,
    $id: schemaId(name),
    type: 'object',
    description,
    properties: { success: { const: true }, message: sentence, ...properties },
    required: ['success', 'message', ...Object.keys(properties)],
    additionalProperties: false,
  } as const;
}

export const createSubscriptionResponse = success(
  'CreateSubscriptionResponse',
  'The subscription was created (or, for a repeated Idempotency-Key, the first answer again).',
  { record: ref(subscriptionRecord) },
);
export const updateSubscriptionResponse = success('UpdateSubscriptionResponse', 'The event list was replaced, the throttle or the filter set, or several of them.', {
  record: {
    type: 'object',
    properties: { configId: createdId, events: storedEvents, portalId: text, maxReceivesPerSecond: storedReceivesPerSecond, filter: storedFilter },
    required: ['configId', 'events', 'portalId'],
    additionalProperties: false,
  },
});
export const listSubscriptionsResponse = success('ListSubscriptionsResponse', 'Every subscription of the caller\'s portal, oldest first.', {
  configs: { type: 'array', items: ref(subscriptionListEntry) },
  maxSubscriptions: {
    type: 'integer',
    minimum: 1,
    description: 'How many subscriptions the portal may have (MAX_SUBSCRIPTIONS_PER_PORTAL): create refuses one more.',
  },
});
export const testSubscriptionResponse = success(
  'TestSubscriptionResponse',
  'One webhooks.test message was published to the subscription\'s topic.',
  { messageId: text },
);
export const testFilterResponse = success(
  'TestFilterResponse',
  'Whether the example `data` matches the filter, as the dispatcher would decide for an event with that data.',
  {
    matches: { type: 'boolean' },
    decidingKey: {
      type: ['string', 'null'],
      description:
        'For a miss, the key of the filter that decided it (a nested key as `asset.size`; an `$or` as `$or(a | b)` with the deciding key of each branch); null for a match.',
    },
  },
);
export const confirmSubscriptionResponse = success(
  'ConfirmSubscriptionResponse',
  'The endpoint was subscribed again: SNS sent it a new confirmation request (`pending`), or confirmed it itself (`confirmed`).',
  { subscriptionState: ref(subscriptionState) },
);
export const deadLetter = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('DeadLetter'),
  type: 'object',
  description: 'A message SNS could not deliver to the endpoint after its retries.',
  properties: {
    eventId: text,
    event: text,
    occurredAt: { type: 'string', description: 'When the event happened (the message\'s occurredAt).' },
    failedAt: { type: 'string', description: 'When SNS gave up on the delivery (ISO 8601).' },
    messageId: { type: 'string', description: 'SNS\'s message id of the delivery that failed.' },
    retries: { type: 'integer', minimum: 0, description: 'How many scheduled retries (DELIVERY_RETRY_SCHEDULE) its event had for this subscription before it failed this time.' },
    nextRetryAt: {
      type: ['string', 'null'],
      description: 'When its next scheduled retry is due (ISO 8601); null once the schedule is spent, after a replay, while it is being retried, or while the subscription is deactivated or deleted.',
    },
    state: {
      type: 'string',
      enum: ['dead-lettered', 'retrying'],
      description:
        '`retrying` while a scheduled retry of it is out (published again, SNS has not said yet how it went): it leaves once the retry is delivered, and the retry\'s own dead letter takes its place if it fails; `dead-lettered` otherwise.',
    },
    retriedAt: { type: ['string', 'null'], description: 'While it is being retried, when the retry was sent (ISO 8601; GET /messages lists the retry under this time); null otherwise.' },
  },
  required: ['eventId', 'event', 'occurredAt', 'failedAt', 'messageId', 'retries', 'nextRetryAt', 'state', 'retriedAt'],
  additionalProperties: false,
} as const;
export const listDeadLettersResponse = success(
  'ListDeadLettersResponse',
  'One page of the subscription\'s dead letters, newest first.',
  {
    deadLetters: { type: 'array', items: ref(deadLetter) },
    nextCursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last page.' },
    deadLettersDropped: { type: 'integer', minimum: 0, description: 'Dead letters removed to keep at most 1,000 (the oldest gave way).' },
  },
);
export const deliveryAttempt = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('DeliveryAttempt'),
  type: 'object',
  description: 'A delivery of one message to the endpoint, as SNS logged it (its delivery status log).',
  properties: {
    at: { type: 'string', description: 'When SNS logged the delivery (ISO 8601).' },
    status: { type: 'string', enum: ['delivered', 'failed'] },
    statusCode: { type: ['integer', 'null'], description: "The endpoint's HTTP status; null when it gave none (no answer in time, refused)." },
    dwellTimeMs: { type: 'integer', minimum: 0, description: 'From publishing to the end of the delivery, in milliseconds, retries included.' },
    attempts: { type: 'integer', minimum: 1, description: "SNS's count of tries for this message." },
    messageId: { type: 'string', description: "SNS's message id: the `x-amz-sns-message-id` header the endpoint received." },
    eventId: { type: ['string', 'null'], description: "The `eventId` of the message delivered, as the endpoint's body carries it; null for an attempt kept before the message log." },
  },
  required: ['at', 'status', 'statusCode', 'dwellTimeMs', 'attempts', 'messageId', 'eventId'],
  additionalProperties: false,
} as const;
export const listAttemptsResponse = success('ListAttemptsResponse', "One page of the subscription's delivery attempts, newest first.", {
  attempts: { type: 'array', items: ref(deliveryAttempt) },
  nextCursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last page.' },
});
export const loggedMessage = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('LoggedMessage'),
  type: 'object',
  description: 'A message the service published to the subscription\'s topic, with the body the endpoint receives and its delivery state.',
  properties: {
    eventId: text,
    event: text,
    occurredAt: { type: 'string', description: 'When the event happened (the body\'s occurredAt).' },
    sentAt: { type: 'string', description: 'When SNS accepted the message (ISO 8601).' },
    status: {
      type: 'string',
      enum: ['pending', 'delivered', 'failed', 'dead-lettered', 'retried'],
      description:
        '`pending` until SNS logs its delivery; `dead-lettered` once SNS gave up and the dead letter was kept; `retried` once a scheduled retry sent that dead letter again: the retry is the newer message with the same eventId, and its status says how it goes.',
    },
    attempts: { type: 'integer', minimum: 0, description: "SNS's count of tries of its last logged delivery; 0 while pending." },
    lastAttemptAt: { type: ['string', 'null'], description: 'When SNS logged its last delivery (ISO 8601); null while pending.' },
    statusCode: { type: ['integer', 'null'], description: "The endpoint's HTTP status at the last delivery; null when there is none." },
    messageId: { type: 'string', description: "SNS's message id: the `x-amz-sns-message-id` header the endpoint received." },
    body: { type: 'object', description: 'The message as the endpoint received it (the notification\'s `Message`, parsed).' },
  },
  required: ['eventId', 'event', 'occurredAt', 'sentAt', 'status', 'attempts', 'lastAttemptAt', 'statusCode', 'messageId', 'body'],
  additionalProperties: false,
} as const;
export const listMessagesResponse = success('ListMessagesResponse', "One page of the subscription's logged messages, newest first.", {
  messages: { type: 'array', items: ref(loggedMessage) },
  nextCursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last page.' },
});
export const resendMessageResponse = success('ResendMessageResponse', "The message was published again to the subscription's topic, with its original body and eventId.", {
  eventId: text,
  messageId: { type: 'string', description: "SNS's message id of the new message: the `x-amz-sns-message-id` header the endpoint receives." },
  sentAt: { type: 'string', format: 'date-time', description: 'When SNS accepted the new message; GET /messages lists it under this time.' },
});
const recoveryFields = {
  recoveryId: { type: 'string', description: 'The recovery\'s id (a UUID v7: ids sort by when they were started).' },
  configId: text,
  since: { type: 'string', description: 'The start of its window (ISO 8601, UTC).' },
  until: { type: 'string', description: 'The end of its window (ISO 8601, UTC): the time of the request when none was given.' },
  status: { type: 'string', enum: ['failed', 'all'], description: 'What it sends: the events never delivered that had an attempt (`failed`), or every event (`all`).' },
} as const;
export const recoverMessagesResponse = success('RecoverMessagesResponse', 'The recovery was stored and started; it runs in the background (GET /recoveries shows it).', {
  ...recoveryFields,
  state: { const: 'running' },
});
export const recovery = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('Recovery'),
  type: 'object',
  description: 'A recovery of the subscription\'s messages and how far it got.',
  properties: {
    ...recoveryFields,
    state: { type: 'string', enum: ['running', 'done', 'failed'], description: '`running` until every chosen event was sent (`done`) or it stopped (`failed`, with `error`).' },
    createdAt: { type: 'string', description: 'When it was started (ISO 8601).' },
    updatedAt: { type: 'string', description: 'When its state or counts last changed (ISO 8601).' },
    matched: { type: 'integer', minimum: 0, description: 'Events of the window it chose to send (one for all the messages of an event).' },
    sent: { type: 'integer', minimum: 0, description: 'Events sent so far; each is a new message in GET /messages.' },
    failed: { type: 'integer', minimum: 0, description: 'Events SNS refused, or whose message was no longer kept: passed over.' },
    error: { type: 'string', description: 'Why it stopped, when `state` is `failed`.' },
  },
  required: ['recoveryId', 'configId', 'since', 'until', 'status', 'state', 'createdAt', 'updatedAt', 'matched', 'sent', 'failed'],
  additionalProperties: false,
} as const;
export const listRecoveriesResponse = {
  ...success('ListRecoveriesResponse', "One page of the subscription's recoveries, newest first.", {
    recoveries: { type: 'array', items: ref(recovery) },
    cursor: { type: 'string', description: 'The `cursor` of the next page; absent on the last page.' },
  }),
  // `cursor` is there only when a next page is.
  required: ['success', 'message', 'recoveries'],
} as const;
export const replayDeadLettersResponse = success(
  'ReplayDeadLettersResponse',
  'The chosen dead letters were published to the subscription\'s topic again, and those SNS accepted removed.',
  {
    replayed: { type: 'integer', minimum: 0, description: 'Dead letters published again.' },
    remaining: { type: 'integer', minimum: 0, description: 'Dead letters still kept for the subscription: another call sends the next ones.' },
  },
);
export const confirmationResponse = success('SuccessResponse', 'The change was made.', {});

export const errorResponse = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ErrorResponse'),
  type: 'object',
  description:
    'An error answered by the service: `message` says what is wrong in a sentence a person can act on; `code` is for programs. ' +
    '`errors`, in an INVALID_REQUEST answer, lists every problem of the request: the field it concerns (`events[0]` for an entry ' +
    'of a list) and a sentence that starts with that field.',
  properties: {
    success: { const: false },
    message: sentence,
    code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { field: text, message: sentence },
        required: ['field', 'message'],
        additionalProperties: false,
      },
    },
  },
  required: ['success', 'message', 'code'],
  additionalProperties: false,
} as const;

/** What API Gateway itself answers before (or instead of) any function: 401, 403, 404, 413, 500, 503. */
export const gatewayError = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('GatewayError'),
  type: 'object',
  description: 'An error answered by API Gateway itself (authorizer, payload limit, a function that failed to answer).',
  properties: { message: sentence },
  required: ['message'],
  additionalProperties: false,
} as const;

