/**
 * The requests about what deliveries left behind (request-schemas.ts): the queries listing a
 * subscription's dead letters and delivery attempts, and the body of a replay of dead letters.
 */
import { DEFAULT_ATTEMPTS_PAGE, DEFAULT_DEAD_LETTERS_PAGE, MAX_ATTEMPTS_PAGE, MAX_DEAD_LETTERS_PAGE, MAX_REPLAY_EVENT_IDS } from './dead-letter-limits';
import { addressing, ADDRESSING_DESCRIPTION, subscriptionId, UNKNOWN_FIELDS } from './request-fields';
import { SCHEMA_DIALECT, schemaId } from './schema-patterns';

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
