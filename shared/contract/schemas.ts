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
 */
import { UUID_PATTERN } from '../subscriptions/config-id';
import { DEFAULT_ATTEMPTS_PAGE, DEFAULT_DEAD_LETTERS_PAGE, MAX_ATTEMPTS_PAGE, MAX_DEAD_LETTERS_PAGE, MAX_REPLAY_EVENT_IDS } from './dead-letter-limits';
import { PROTOCOLS } from '../subscriptions/model';

export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const ID_PREFIX = 'urn:webhook-subscriptions:schema:';

/** A top-level schema's `$id`; its name is its component name in the OpenAPI document. */
export const schemaId = (name: string) => `${ID_PREFIX}${name}`;
/** The component name of a schema id; undefined for any other reference. */
export const schemaNameOf = (id: string) => (id.startsWith(ID_PREFIX) ? id.slice(ID_PREFIX.length) : undefined);

const ref = (schema: { readonly $id: string }) => ({ $ref: schema.$id }) as const;

export const MAX_NAME_LENGTH = 255;
export const MAX_URL_LENGTH = 2048;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_EVENTS = 50;
export const EXAMPLE_CONFIG_ID = '0192f8a4-7b3c-7d2e-9f01-23456789abcd';

// Patterns are ECMAScript regular expressions with the `u` flag (JSON Schema's dialect): `\s` is
// what String.prototype.trim() removes, and a surrogate range matches only unpaired surrogates.
// Each is linear on the 64 KiB a body may hold: no two quantifiers compete for the same text.
const CONTROL = '\\u0000-\\u001F\\u007F-\\u009F';
const LONE_SURROGATE = '[\\uD800-\\uDFFF]';
/** Trimmed, at most 255 characters (code points): first and last non-space at most 255 apart. */
const TRIMMED_AT_MOST_MAX_NAME = `^\\s*(?:\\S(?:[\\s\\S]{0,${MAX_NAME_LENGTH - 2}}\\S)?\\s*)?$`;
/** Trimmed, no control character left (a tab or newline around the name is trimmed away). */
const TRIMMED_WITHOUT_CONTROL = `^\\s*(?:[^\\s${CONTROL}](?:[^${CONTROL}]*[^\\s${CONTROL}])?\\s*)?$`;

const caseInsensitive = (text: string) =>
  [...text].map((letter) => (/[a-z]/.test(letter) ? `[${letter.toUpperCase()}${letter}]` : letter)).join('');
const URL_PORT = '(?::0*(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])?)?';
/** An absolute URL of the scheme (in any case) with a host: user info, port, path, query and fragment optional. */
const absoluteUrl = (scheme: string) =>
  `^${caseInsensitive(scheme)}://(?:[^\\s/?#@\\\\]*@)?(?:[^\\s/?#@:\\[\\]\\\\<>^|%]+|\\[[0-9A-Fa-f:.]+\\])${URL_PORT}(?:[/?#][\\s\\S]*)?$`;
/** Local part, `@`, a domain with a dot that is neither its first nor its last character. */
const EMAIL_ADDRESS = '^[^\\s@<>()\\[\\],;:"]+@[^\\s@<>()\\[\\],;:"][^\\s@<>()\\[\\],;:".]*\\.[^\\s@<>()\\[\\],;:"]+$';
const ARN_REGION_ACCOUNT = '[a-z]{2}(?:-[a-z]+)+-[0-9]:[0-9]{12}';
const SQS_QUEUE_ARN = `^arn:aws[a-z-]*:sqs:${ARN_REGION_ACCOUNT}:[A-Za-z0-9_-]{1,80}(?:\\.fifo)?$`;
const SQS_FIFO_QUEUE_ARN = `^arn:aws[a-z-]*:sqs:${ARN_REGION_ACCOUNT}:[A-Za-z0-9_-]{1,80}\\.fifo$`;
const LAMBDA_FUNCTION_ARN = `^arn:aws[a-z-]*:lambda:${ARN_REGION_ACCOUNT}:function:[A-Za-z0-9_-]{1,64}(?::[A-Za-z0-9_$-]{1,128})?$`;

const PROTOCOL_LIST = PROTOCOLS.join(', ');

// ---- request fields -----------------------------------------------------------------------
// A `not` names its type too: a value of another type would pass its pattern, and so fail the `not`.

const subscriptionName = {
  type: 'string',
  description: `Trimmed of surrounding whitespace, then 1 to ${MAX_NAME_LENGTH} characters, none of them a control character.`,
  examples: ['Media updates'],
  'x-error': 'must be a string.',
  allOf: [
    { not: { type: 'string', pattern: LONE_SURROGATE }, 'x-error': 'must be valid Unicode text.' },
    { pattern: '\\S', 'x-error': 'must not be empty.' },
    { pattern: TRIMMED_AT_MOST_MAX_NAME, 'x-error': `must be at most ${MAX_NAME_LENGTH} characters.` },
    { pattern: TRIMMED_WITHOUT_CONTROL, 'x-error': 'must not contain control characters.' },
  ],
} as const;

const endpointText = {
  type: 'string',
  description: 'Where SNS delivers; its form depends on `protocol` (the branches of `allOf`).',
  'x-error': 'must be a string.',
  allOf: [
    { not: { type: 'string', pattern: LONE_SURROGATE }, 'x-error': 'must be valid Unicode text.' },
    { not: { type: 'string', pattern: `[${CONTROL}]` }, 'x-error': 'must not contain control characters.' },
  ],
} as const;

const protocolName = {
  type: 'string',
  enum: PROTOCOLS,
  description: `One of ${PROTOCOL_LIST}. The service lower-cases it before this check, so any letter case is accepted (and stored lower-case).`,
  'x-error': `must be one of ${PROTOCOL_LIST}.`,
} as const;

/**
 * An entry of `events`. The catalog is the deployment's (EVENT_KINDS): the OpenAPI document
 * refers to the EventKind component here, built with the catalog as its enum; the service checks
 * the catalog after the compiled validator, against its own configuration.
 */
export const eventKindEntry = {
  type: 'string',
  description: 'An event kind of the catalog of this deployment (EVENT_KINDS).',
  'x-error': 'must be a string.',
} as const;

/** The catalog's kinds; its `enum` is added when the document is built. */
export const eventKind = { $schema: SCHEMA_DIALECT, $id: schemaId('EventKind'), ...eventKindEntry } as const;

const eventKinds = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_EVENTS,
  items: eventKindEntry,
  description: `1 to ${MAX_EVENTS} kinds of the catalog. A repeated kind is dropped; the order is kept.`,
  'x-error': {
    type: 'must be an array of event kinds.',
    minItems: 'must list at least one event kind.',
    maxItems: `must list at most ${MAX_EVENTS} event kinds.`,
  },
} as const;

/**
 * SNS's `throttlePolicy.maxReceivesPerSecond` of an http/https subscription's delivery policy:
 * an `int`, "1 or greater", no throttling by default (SNS Developer Guide, "Amazon SNS message
 * delivery retries", section "Creating an HTTP/S delivery policy", its table of the policy's
 * attributes; https://docs.aws.amazon.com/sns/latest/dg/sns-message-delivery-retries.html).
 * The page names no upper bound; its JSON format ("SetSubscriptionAttributes delivery policy
 * JSON format") calls the value an int, so the largest is the largest 32-bit integer.
 */
export const MIN_RECEIVES_PER_SECOND = 1;
export const MAX_RECEIVES_PER_SECOND = 2_147_483_647;

const receivesPerSecond = {
  type: 'integer',
  minimum: MIN_RECEIVES_PER_SECOND,
  maximum: MAX_RECEIVES_PER_SECOND,
  description:
    'At most this many deliveries per second to the endpoint (SNS\'s `throttlePolicy.maxReceivesPerSecond`); ' +
    'http and https subscriptions only. Deliveries over the rate wait their turn; none is dropped. Absent: no throttling.',
  examples: [10],
  'x-error': `must be a whole number from ${MIN_RECEIVES_PER_SECOND} to ${MAX_RECEIVES_PER_SECOND} (SNS's bounds).`,
} as const;

const subscriptionId = {
  type: 'string',
  pattern: UUID_PATTERN,
  description: 'A subscription\'s id (`configId` of its record), in any letter case.',
  examples: [EXAMPLE_CONFIG_ID],
  'x-error': { type: 'must be a UUID.', pattern: `must be a UUID such as ${EXAMPLE_CONFIG_ID}.` },
} as const;

const subscriptionStatus = {
  type: 'integer',
  enum: [0, 1],
  description: '1 (activated) or 0 (deactivated).',
  'x-error': 'must be 1 (activated) or 0 (deactivated).',
} as const;

/** The schema of `{configId}` in delete's path. */
export const subscriptionIdParameter = subscriptionId;

// ---- what each protocol's endpoint must be ------------------------------------------------

const urlEndpoint = (protocol: 'https' | 'http') => ({
  type: 'string',
  maxLength: MAX_URL_LENGTH,
  pattern: absoluteUrl(protocol),
  description: `An absolute ${protocol}:// URL of at most ${MAX_URL_LENGTH} characters.`,
  examples: [`${protocol}://hooks.example.com/webhooks`],
  'x-error': `must be an absolute ${protocol}:// URL of at most ${MAX_URL_LENGTH} characters for protocol ${protocol}.`,
});

const emailEndpoint = (protocol: 'email' | 'email-json') => ({
  type: 'string',
  maxLength: MAX_EMAIL_LENGTH,
  pattern: EMAIL_ADDRESS,
  description: 'An e-mail address.',
  examples: ['ops@example.com'],
  'x-error': `must be an e-mail address for protocol ${protocol}.`,
});

/** The endpoint each protocol takes: the admin page shows `description` and the first of `examples`. */
const ENDPOINT_BY_PROTOCOL = {
  https: urlEndpoint('https'),
  http: urlEndpoint('http'),
  email: emailEndpoint('email'),
  'email-json': emailEndpoint('email-json'),
  sqs: {
    type: 'string',
    pattern: SQS_QUEUE_ARN,
    description: 'A standard SQS queue\'s ARN: arn:aws:sqs:<region>:<account>:<queue> (not a FIFO queue).',
    examples: ['arn:aws:sqs:eu-west-1:123456789012:webhooks'],
    'x-error': 'must be an SQS queue ARN (arn:aws:sqs:<region>:<account>:<queue>) for protocol sqs.',
    allOf: [
      {
        // SNS standard topics (one per subscription here) cannot deliver to FIFO queues.
        not: { type: 'string', pattern: SQS_FIFO_QUEUE_ARN },
        'x-error': 'names a FIFO queue (its name ends in .fifo), and FIFO queues are not supported: subscribe a standard SQS queue.',
      },
    ],
  },
  lambda: {
    type: 'string',
    pattern: LAMBDA_FUNCTION_ARN,
    description: 'A Lambda function ARN: arn:aws:lambda:<region>:<account>:function:<name>.',
    examples: ['arn:aws:lambda:eu-west-1:123456789012:function:hook'],
    'x-error': 'must be a Lambda function ARN (arn:aws:lambda:<region>:<account>:function:<name>) for protocol lambda.',
  },
} as const satisfies Record<(typeof PROTOCOLS)[number], object>;

/** One branch per protocol: with that protocol, the endpoint must have its form. */
const endpointSuitsProtocol = Object.entries(ENDPOINT_BY_PROTOCOL).map(([protocol, endpoint]) => ({
  if: { properties: { protocol: { const: protocol } }, required: ['protocol'] },
  then: { properties: { endpoint } },
}));

// ---- request bodies -----------------------------------------------------------------------

/** `config_id`, or `configId` as an alias; without `configId`, `config_id` is required. */
const addressing = {
  properties: { config_id: subscriptionId, configId: subscriptionId },
  allOf: [{ if: { not: { required: ['configId'] } }, then: { required: ['config_id'] } }],
} as const;
const ADDRESSING_DESCRIPTION =
  'The subscription is named by `config_id`, or by `configId` (an alias); when both are sent they must name the same subscription. ';
const UNKNOWN_FIELDS = 'Other fields are ignored.';

export const createSubscriptionRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('CreateSubscriptionRequest'),
  type: 'object',
  description: `A new subscription. ${UNKNOWN_FIELDS}`,
  properties: { name: subscriptionName, endpoint: endpointText, protocol: protocolName, events: eventKinds, maxReceivesPerSecond: receivesPerSecond },
  required: ['name', 'endpoint', 'protocol', 'events'],
  allOf: endpointSuitsProtocol,
} as const;

export const updateSubscriptionRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('UpdateSubscriptionRequest'),
  type: 'object',
  description: `${ADDRESSING_DESCRIPTION}Replaces the event list, sets the throttle, or both. ${UNKNOWN_FIELDS}`,
  properties: {
    ...addressing.properties,
    events: eventKinds,
    maxReceivesPerSecond: {
      ...receivesPerSecond,
      type: ['integer', 'null'],
      description: `${receivesPerSecond.description} null removes the throttle; absent leaves it as it is.`,
    },
  },
  // `events` may be left out when the throttle alone changes.
  allOf: [...addressing.allOf, { if: { not: { required: ['maxReceivesPerSecond'] } }, then: { required: ['events'] } }],
} as const;

export const activateSubscriptionRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ActivateSubscriptionRequest'),
  type: 'object',
  description: `${ADDRESSING_DESCRIPTION}${UNKNOWN_FIELDS}`,
  properties: { ...addressing.properties, status: subscriptionStatus },
  required: ['status'],
  allOf: addressing.allOf,
} as const;

export const renameSubscriptionRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('RenameSubscriptionRequest'),
  type: 'object',
  description: `${ADDRESSING_DESCRIPTION}${UNKNOWN_FIELDS}`,
  properties: { ...addressing.properties, name: subscriptionName },
  required: ['name'],
  allOf: addressing.allOf,
} as const;

export const testSubscriptionRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('TestSubscriptionRequest'),
  type: 'object',
  description: `${ADDRESSING_DESCRIPTION}${UNKNOWN_FIELDS}`,
  properties: { ...addressing.properties },
  allOf: addressing.allOf,
} as const;

export const confirmSubscriptionRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ConfirmSubscriptionRequest'),
  type: 'object',
  description: `${ADDRESSING_DESCRIPTION}${UNKNOWN_FIELDS}`,
  properties: { ...addressing.properties },
  allOf: addressing.allOf,
} as const;


/**
 * The query of `GET /dead-letters`, validated like a body: every value is a string, as API
 * Gateway hands query parameters over (a repeated one joined with commas).
 */
export const listDeadLettersQuery = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ListDeadLettersQuery'),
  type: 'object',
  description: `Query parameters. ${UNKNOWN_FIELDS}`,
  properties: {
    config_id: { ...subscriptionId, description: 'The subscription whose dead letters are listed.' },
    limit: {
      type: 'string',
      pattern: `^0*(?:[1-9][0-9]?|${MAX_DEAD_LETTERS_PAGE})$`,
      description: `Dead letters per page: 1 to ${MAX_DEAD_LETTERS_PAGE}, default ${DEFAULT_DEAD_LETTERS_PAGE}.`,
      examples: ['20'],
      'x-error': `must be a whole number from 1 to ${MAX_DEAD_LETTERS_PAGE}.`,
    },
    cursor: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,2048}$',
      description: 'The `nextCursor` of the previous page, as it was answered; absent for the first page.',
      'x-error': 'must be the nextCursor of an earlier answer, unchanged.',
    },
  },
  required: ['config_id'],
} as const;

/** The query of `GET /attempts`, validated like a body, as the dead letters' is. */
export const listAttemptsQuery = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ListAttemptsQuery'),
  type: 'object',
  description: `Query parameters. ${UNKNOWN_FIELDS}`,
  properties: {
    config_id: { ...subscriptionId, description: 'The subscription whose delivery attempts are listed.' },
    limit: {
      type: 'string',
      pattern: `^0*(?:[1-9][0-9]?|${MAX_ATTEMPTS_PAGE})$`,
      description: `Attempts per page: 1 to ${MAX_ATTEMPTS_PAGE}, default ${DEFAULT_ATTEMPTS_PAGE}.`,
      examples: ['20'],
      'x-error': `must be a whole number from 1 to ${MAX_ATTEMPTS_PAGE}.`,
    },
    cursor: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,2048}$',
      description: 'The `nextCursor` of the previous page, as it was answered; absent for the first page.',
      'x-error': 'must be the nextCursor of an earlier answer, unchanged.',
    },
    status: {
      type: 'string',
      enum: ['delivered', 'failed'],
      description: 'Only the attempts of this outcome; absent for both.',
      'x-error': 'must be delivered or failed.',
    },
  },
  required: ['config_id'],
} as const;

export const replayDeadLettersRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ReplayDeadLettersRequest'),
  type: 'object',
  description:
    `${ADDRESSING_DESCRIPTION}Without \`eventIds\`, every dead letter kept for the subscription is sent again, oldest first, ` +
    `at most ${MAX_REPLAY_EVENT_IDS} per request. ${UNKNOWN_FIELDS}`,
  properties: {
    ...addressing.properties,
    eventIds: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_REPLAY_EVENT_IDS,
      uniqueItems: true,
      items: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        'x-error': 'must hold event ids: strings of 1 to 256 characters.',
      },
      description: `1 to ${MAX_REPLAY_EVENT_IDS} different event ids of dead letters kept for the subscription.`,
      'x-error': {
        type: 'must be an array of event ids.',
        minItems: 'must list at least one event id (leave it out to send every dead letter again).',
        maxItems: `must list at most ${MAX_REPLAY_EVENT_IDS} event ids.`,
        uniqueItems: 'must not list an event id twice.',
      },
    },
  },
  allOf: addressing.allOf,
} as const;

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
} as const;

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
    deadLetters: { type: 'integer', minimum: 0, description: 'How many dead letters are kept for it (GET /dead-letters lists them).' },
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
export const updateSubscriptionResponse = success('UpdateSubscriptionResponse', 'The event list was replaced, the throttle set, or both.', {
  record: {
    type: 'object',
    properties: { configId: createdId, events: storedEvents, portalId: text, maxReceivesPerSecond: storedReceivesPerSecond },
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
      description: 'When its next scheduled retry is due (ISO 8601); null once the schedule is spent, after a replay, or while the subscription is deactivated or deleted.',
    },
  },
  required: ['eventId', 'event', 'occurredAt', 'failedAt', 'messageId', 'retries', 'nextRetryAt'],
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
  },
  required: ['at', 'status', 'statusCode', 'dwellTimeMs', 'attempts', 'messageId'],
  additionalProperties: false,
} as const;
export const listAttemptsResponse = success('ListAttemptsResponse', "One page of the subscription's delivery attempts, newest first.", {
  attempts: { type: 'array', items: ref(deliveryAttempt) },
  nextCursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last page.' },
});
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
  confirmSubscriptionResponse,
  deadLetter,
  listDeadLettersResponse,
  replayDeadLettersResponse,
  deliveryAttempt,
  listAttemptsResponse,
  confirmationResponse,
  errorResponse,
  gatewayError,
  ...Object.values(REQUEST_SCHEMAS),
] as const;
