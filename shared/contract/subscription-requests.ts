/**
 * The bodies of the subscription requests: create, update, activate, rename, test and confirm
 * (request-schemas.ts). Every body but create's names its subscription by `config_id` or
 * `configId` (request-fields.ts).
 */
import { endpointSuitsProtocol } from './request-endpoints';
import {
  addressing,
  ADDRESSING_DESCRIPTION,
  endpointText,
  eventKinds,
  filterPolicy,
  protocolName,
  receivesPerSecond,
  subscriptionName,
  subscriptionStatus,
  UNKNOWN_FIELDS,
} from './request-fields';
import { SCHEMA_DIALECT, schemaId } from './schema-patterns';

export const createSubscriptionRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('CreateSubscriptionRequest'),
  type: 'object',
  description: `A new subscription. ${UNKNOWN_FIELDS}`,
  properties: { name: subscriptionName, endpoint: endpointText, protocol: protocolName, events: eventKinds, maxReceivesPerSecond: receivesPerSecond, filter: filterPolicy },
  required: ['name', 'endpoint', 'protocol', 'events'],
  allOf: endpointSuitsProtocol,
} as const;

export const updateSubscriptionRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('UpdateSubscriptionRequest'),
  type: 'object',
  description: `${ADDRESSING_DESCRIPTION}Replaces the event list, sets the throttle, sets the filter, or any of them together. ${UNKNOWN_FIELDS}`,
  properties: {
    ...addressing.properties,
    events: eventKinds,
    maxReceivesPerSecond: {
      ...receivesPerSecond,
      type: ['integer', 'null'],
      description: `${receivesPerSecond.description} null removes the throttle; absent leaves it as it is.`,
    },
    filter: { ...filterPolicy, type: ['object', 'null'], description: `${filterPolicy.description} null removes the filter; absent leaves it as it is.` },
  },
  // `events` may be left out when the throttle or the filter changes.
  allOf: [
    ...addressing.allOf,
    { if: { not: { required: ['maxReceivesPerSecond'] } }, then: { if: { not: { required: ['filter'] } }, then: { required: ['events'] } } },
  ],
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

export const testFilterRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('TestFilterRequest'),
  type: 'object',
  description: `A filter, and an example of an event's \`data\` to try it on; nothing is stored or sent. ${UNKNOWN_FIELDS}`,
  properties: {
    filter: filterPolicy,
    data: {
      type: 'object',
      additionalProperties: true,
      description: 'An event\'s `data`, as the endpoint receives it under `data` in the message body.',
      examples: [{ brand: 'acme', collection: 'summer', fileType: 'image/png', size: 2048 }],
      'x-error': 'must be a JSON object: an event\'s data.',
    },
  },
  required: ['filter', 'data'],
} as const;

export const confirmSubscriptionRequest = {
  $schema: SCHEMA_DIALECT,
  $id: schemaId('ConfirmSubscriptionRequest'),
  type: 'object',
  description: `${ADDRESSING_DESCRIPTION}${UNKNOWN_FIELDS}`,
  properties: { ...addressing.properties },
  allOf: addressing.allOf,
} as const;
