/**
 * The request side of the contract (schemas.ts): each field a request may send, what each
 * protocol's endpoint must be, and each request body's schema. Request bodies use no `$ref`: a
 * refusal's place in the body, and its message, are read from the failing keyword's path in the
 * body's own schema.
 */
import { UUID_PATTERN } from '../subscriptions/config-id';
import { PROTOCOLS } from '../subscriptions/model';
import { DEFAULT_ATTEMPTS_PAGE, DEFAULT_DEAD_LETTERS_PAGE, MAX_ATTEMPTS_PAGE, MAX_DEAD_LETTERS_PAGE, MAX_REPLAY_EVENT_IDS } from './dead-letter-limits';
import {
  SCHEMA_DIALECT,
  MIN_RECEIVES_PER_SECOND,
  MAX_RECEIVES_PER_SECOND,
  schemaId,
  MAX_NAME_LENGTH,
  MAX_URL_LENGTH,
  MAX_EMAIL_LENGTH,
  MAX_EVENTS,
  EXAMPLE_CONFIG_ID,
  CONTROL,
  LONE_SURROGATE,
  TRIMMED_AT_MOST_MAX_NAME,
  TRIMMED_WITHOUT_CONTROL,
  absoluteUrl,
  EMAIL_ADDRESS,
  SQS_QUEUE_ARN,
  SQS_FIFO_QUEUE_ARN,
  LAMBDA_FUNCTION_ARN,
  PROTOCOL_LIST,
} from './schema-patterns';

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
