/**
 * The parts request bodies are made of (request-schemas.ts): each field a request may send,
 * and the addressing of a subscription by `config_id` or `configId`. A field's `x-error` is what
 * a refusal of it says after its name.
 */
import { UUID_PATTERN } from '../subscriptions/config-id';
import { PROTOCOLS } from '../subscriptions/model';
import {
  SCHEMA_DIALECT,
  MIN_RECEIVES_PER_SECOND,
  MAX_RECEIVES_PER_SECOND,
  schemaId,
  MAX_NAME_LENGTH,
  MAX_EVENTS,
  EXAMPLE_CONFIG_ID,
  CONTROL,
  LONE_SURROGATE,
  TRIMMED_AT_MOST_MAX_NAME,
  TRIMMED_WITHOUT_CONTROL,
  PROTOCOL_LIST,
} from './schema-patterns';

// A `not` names its type too: a value of another type would pass its pattern, and so fail the `not`.

export const subscriptionName = {
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

export const endpointText = {
  type: 'string',
  description: 'Where SNS delivers; its form depends on `protocol` (the branches of `allOf`).',
  'x-error': 'must be a string.',
  allOf: [
    { not: { type: 'string', pattern: LONE_SURROGATE }, 'x-error': 'must be valid Unicode text.' },
    { not: { type: 'string', pattern: `[${CONTROL}]` }, 'x-error': 'must not contain control characters.' },
  ],
} as const;

export const protocolName = {
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

export const eventKinds = {
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

export const receivesPerSecond = {
  type: 'integer',
  minimum: MIN_RECEIVES_PER_SECOND,
  maximum: MAX_RECEIVES_PER_SECOND,
  description:
    'At most this many deliveries per second to the endpoint (SNS\'s `throttlePolicy.maxReceivesPerSecond`); ' +
    'http and https subscriptions only. Deliveries over the rate wait their turn; none is dropped. Absent: no throttling.',
  examples: [10],
  'x-error': `must be a whole number from ${MIN_RECEIVES_PER_SECOND} to ${MAX_RECEIVES_PER_SECOND} (SNS's bounds).`,
} as const;

/**
 * A subscription's `filter`: an SNS filter policy (the message-body kind) applied to each event's
 * `data`. The schema says only that it is an object; its language and SNS's limits are checked
 * beside the schema (request-bodies.ts, shared/filters/filter-policy.ts), each refusal naming the
 * part of the filter it concerns.
 */
export const filterPolicy = {
  type: 'object',
  // Any keys: said so, for client generators (an object without properties is typed empty by some).
  additionalProperties: true,
  description:
    'An SNS filter policy applied to each event\'s `data`: the subscription receives an event only when its `data` matches ' +
    '(exact values, `prefix`, `suffix`, `equals-ignore-case`, `anything-but`, `numeric`, `exists`, nested keys, `$or`; ' +
    'at most 5 keys, 150 combinations, 16384 bytes). Test events and the service\'s notices are not filtered.',
  examples: [{ brand: ['acme'], size: [{ numeric: ['>', 1000] }] }],
  'x-error': 'must be an SNS filter policy: a JSON object of keys and their conditions, such as {"brand": ["acme"]}.',
} as const;

export const subscriptionId = {
  type: 'string',
  pattern: UUID_PATTERN,
  description: 'A subscription\'s id (`configId` of its record), in any letter case.',
  examples: [EXAMPLE_CONFIG_ID],
  'x-error': { type: 'must be a UUID.', pattern: `must be a UUID such as ${EXAMPLE_CONFIG_ID}.` },
} as const;

export const subscriptionStatus = {
  type: 'integer',
  enum: [0, 1],
  description: '1 (activated) or 0 (deactivated).',
  'x-error': 'must be 1 (activated) or 0 (deactivated).',
} as const;

/** The schema of `{configId}` in delete's path. */
export const subscriptionIdParameter = subscriptionId;

// ---- addressing a subscription ------------------------------------------------------------

/** `config_id`, or `configId` as an alias; without `configId`, `config_id` is required. */
export const addressing = {
  properties: { config_id: subscriptionId, configId: subscriptionId },
  allOf: [{ if: { not: { required: ['configId'] } }, then: { required: ['config_id'] } }],
} as const;
export const ADDRESSING_DESCRIPTION =
  'The subscription is named by `config_id`, or by `configId` (an alias); when both are sent they must name the same subscription. ';
export const UNKNOWN_FIELDS = 'Other fields are ignored.';
