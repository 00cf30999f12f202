/**
 * The requests about recoveries (request-schemas.ts): starting one (POST /recover) and listing a
 * subscription's (GET /recoveries, whose values are all strings, as API Gateway hands query
 * parameters over).
 */
import { DEFAULT_RECOVERIES_PAGE, MAX_RECOVERIES_PAGE } from './dead-letter-limits';
import { ADDRESSING_DESCRIPTION, addressing, subscriptionId, UNKNOWN_FIELDS } from './request-fields';
import { SCHEMA_DIALECT, schemaId } from './schema-patterns';

/** An ISO 8601 time with its offset (RFC 3339), as GET /messages' `since` and `until` take it. */
const ISO_TIME = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\\.[0-9]{1,9})?)?(?:Z|[+-][0-9]{2}:[0-9]{2})$';

export const recoverMessagesRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('RecoverMessagesRequest'),
  type: 'object',
  description:
    `${ADDRESSING_DESCRIPTION}Every event of the window (\`sentAt\` from \`since\` to \`until\`, as GET /messages filters) that \`status\` ` +
    `chooses is sent again to this subscription only, once, oldest first, with its original body. ${UNKNOWN_FIELDS}`,
  properties: {
    ...addressing.properties,
    since: {
      type: 'string',
      pattern: ISO_TIME,
      description: 'The start of the window (ISO 8601 with its offset), at most MESSAGE_KEEP_DAYS ago.',
      examples: ['2026-11-24T09:00:00Z'],
      'x-error': 'must be an ISO 8601 time with its offset, as 2026-11-24T09:00:00Z.',
    },
    until: {
      type: 'string',
      pattern: ISO_TIME,
      description: "The end of the window (ISO 8601 with its offset); absent, or later than now: the request's time.",
      examples: ['2026-11-24T18:00:00Z'],
      'x-error': 'must be an ISO 8601 time with its offset, as 2026-11-24T18:00:00Z.',
    },
    status: {
      type: 'string',
      enum: ['failed', 'all'],
      description:
        '`failed` (the default): the events with a message that had an attempt and was not delivered (`failed` or `dead-lettered`) and none delivered; `all`: every event of the window.',
      'x-error': 'must be failed or all.',
    },
  },
  required: ['since'],
  allOf: addressing.allOf,
} as const;

export const listRecoveriesQuery = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ListRecoveriesQuery'),
  type: 'object',
  description: `Query parameters. ${UNKNOWN_FIELDS}`,
  properties: {
    config_id: { ...subscriptionId, description: 'The subscription whose recoveries are listed.' },
    limit: {
      type: 'string',
      pattern: `^0*(?:[1-9][0-9]?|${MAX_RECOVERIES_PAGE})$`,
      description: `Recoveries per page: 1 to ${MAX_RECOVERIES_PAGE}, default ${DEFAULT_RECOVERIES_PAGE}.`,
      examples: ['20'],
      'x-error': `must be a whole number from 1 to ${MAX_RECOVERIES_PAGE}.`,
    },
    cursor: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,2048}$',
      description: 'The `cursor` of the previous page, as it was answered; absent for the first page.',
      'x-error': 'must be the cursor of an earlier answer, unchanged.',
    },
  },
  required: ['config_id'],
} as const;
