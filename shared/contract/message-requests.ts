/**
 * The requests about the message log (request-schemas.ts): the query listing a subscription's
 * messages. Every value is a string, as API Gateway hands query parameters over.
 */
import { DEFAULT_MESSAGES_PAGE, MAX_MESSAGES_PAGE } from './dead-letter-limits';
import { ADDRESSING_DESCRIPTION, addressing, subscriptionId, UNKNOWN_FIELDS } from './request-fields';
import { SCHEMA_DIALECT, schemaId } from './schema-patterns';

/** An ISO 8601 time with its offset (RFC 3339), as `since` and `until` take it. */
const ISO_TIME = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\\.[0-9]{1,9})?)?(?:Z|[+-][0-9]{2}:[0-9]{2})$';

export const listMessagesQuery = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ListMessagesQuery'),
  type: 'object',
  description: `Query parameters. ${UNKNOWN_FIELDS}`,
  properties: {
    config_id: { ...subscriptionId, description: 'The subscription whose messages are listed.' },
    limit: {
      type: 'string',
      pattern: `^0*(?:[1-9][0-9]?|${MAX_MESSAGES_PAGE})$`,
      description: `Messages per page: 1 to ${MAX_MESSAGES_PAGE}, default ${DEFAULT_MESSAGES_PAGE}.`,
      examples: ['20'],
      'x-error': `must be a whole number from 1 to ${MAX_MESSAGES_PAGE}.`,
    },
    cursor: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,2048}$',
      description: 'The `nextCursor` of the previous page, as it was answered; absent for the first page.',
      'x-error': 'must be the nextCursor of an earlier answer, unchanged.',
    },
    status: {
      type: 'string',
      enum: ['pending', 'delivered', 'failed', 'dead-lettered'],
      description: 'Only the messages in this delivery state; `failed` matches `dead-lettered` too (every message that had an attempt and was not delivered). Absent for all.',
      'x-error': 'must be pending, delivered, failed or dead-lettered.',
    },
    event: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: 'Only the messages of this event kind (`webhooks.test` for test events).',
      'x-error': 'must be an event kind of 1 to 256 characters.',
    },
    since: {
      type: 'string',
      pattern: ISO_TIME,
      description: 'Only the messages sent at or after this time (ISO 8601 with its offset, as `2026-11-24T09:00:00Z`).',
      examples: ['2026-11-24T09:00:00Z'],
      'x-error': 'must be an ISO 8601 time with its offset, as 2026-11-24T09:00:00Z.',
    },
    until: {
      type: 'string',
      pattern: ISO_TIME,
      description: 'Only the messages sent at or before this time (ISO 8601 with its offset).',
      examples: ['2026-11-24T18:00:00Z'],
      'x-error': 'must be an ISO 8601 time with its offset, as 2026-11-24T18:00:00Z.',
    },
  },
  required: ['config_id'],
} as const;

export const resendMessageRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ResendMessageRequest'),
  type: 'object',
  description: `${ADDRESSING_DESCRIPTION}The message of \`event_id\` is published again to this subscription only, with its original body. ${UNKNOWN_FIELDS}`,
  properties: {
    ...addressing.properties,
    event_id: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: 'The `eventId` of a message the subscription was sent (GET /messages lists them).',
      examples: ['6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c'],
      'x-error': 'must be an event id: a string of 1 to 256 characters.',
    },
  },
  required: ['event_id'],
  allOf: addressing.allOf,
} as const;
