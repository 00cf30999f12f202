/**
 * The bodies the API answers, as zod schemas: the OpenAPI document (openapi-document.ts)
 * renders them with zod's own JSON Schema output, and the tests hold every answer they receive
 * to that rendering. Every object is strict (`additionalProperties: false`), so a handler
 * answering a field that is not here fails the suites. Only the document and the tests import
 * this file, never a handler: the Lambda bundles do not carry it.
 */
import * as z from 'zod/mini';
import { PROTOCOLS } from '../subscriptions/model';

/** Names the schemas of the document's `components.schemas`. */
export const responseRegistry = z.registry<{ id: string; description?: string }>();

function named<T extends z.ZodMiniType>(id: string, description: string, schema: T): T {
  responseRegistry.add(schema, { id, description });
  return schema;
}

export const protocolSchema = named('Protocol', 'Delivery protocol, as stored (lower-case).', z.enum(PROTOCOLS));

export const subscriptionStatusSchema = named(
  'SubscriptionStatus',
  '1 = activated, 0 = deactivated.',
  z.union([z.literal(0), z.literal(1)]),
);

export const subscriptionStateSchema = named(
  'SubscriptionState',
  'SNS\'s side of a subscription: `confirmed` (SNS delivers to the endpoint), `pending` (SNS waits for the endpoint to confirm; ' +
    'nothing is delivered meanwhile), `unsubscribed` (SNS no longer has it: the endpoint unsubscribed, or never confirmed in time; ' +
    '`POST /confirm` subscribes it again).',
  z.enum(['confirmed', 'pending', 'unsubscribed']),
);

const configId = z.string().check(z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/));
const message = z.string().check(z.minLength(1));

/** The record create answers (shared/subscriptions/model.ts recordView). */
export const subscriptionRecordSchema = named(
  'SubscriptionRecord',
  'A subscription as create answers it; `confirmed` is true only while `subscriptionState` is `confirmed`.',
  z.strictObject({
    configId,
    endpoint: z.string(),
    events: z.array(z.string()),
    name: z.string(),
    portalId: z.string(),
    protocol: protocolSchema,
    subscriptionArn: z.string(),
    topicArn: z.string(),
    status: subscriptionStatusSchema,
    confirmed: z.boolean(),
    subscriptionState: subscriptionStateSchema,
  }),
);

/** One entry of the list answer (listEntryView). */
export const subscriptionListEntrySchema = named(
  'SubscriptionListEntry',
  'One subscription of the caller\'s portal, as list answers it.',
  z.strictObject({
    configId,
    name: z.string(),
    endpoint: z.string(),
    protocol: protocolSchema,
    events: z.array(z.string()),
    status: subscriptionStatusSchema,
    confirmed: z.boolean(),
    subscriptionState: subscriptionStateSchema,
  }),
);

/** `{success: true, message}` and what an operation adds to it. */
function success<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.strictObject({ success: z.literal(true), message, ...shape });
}

export const createSubscriptionResponse = named(
  'CreateSubscriptionResponse',
  'The subscription was created (or, for a repeated Idempotency-Key, the first answer again).',
  success({ record: subscriptionRecordSchema }),
);
export const updateSubscriptionResponse = named(
  'UpdateSubscriptionResponse',
  'The event list was replaced.',
  success({ record: z.strictObject({ configId, events: z.array(z.string()), portalId: z.string() }) }),
);
export const listSubscriptionsResponse = named(
  'ListSubscriptionsResponse',
  'Every subscription of the caller\'s portal, oldest first.',
  success({ configs: z.array(subscriptionListEntrySchema) }),
);
export const testSubscriptionResponse = named(
  'TestSubscriptionResponse',
  'One webhooks.test message was published to the subscription\'s topic.',
  success({ messageId: z.string() }),
);
export const confirmSubscriptionResponse = named(
  'ConfirmSubscriptionResponse',
  'The endpoint was subscribed again: SNS sent it a new confirmation request (`pending`), or confirmed it itself (`confirmed`).',
  success({ subscriptionState: subscriptionStateSchema }),
);
export const confirmationResponse = named('SuccessResponse', 'The change was made.', success({}));

/**
 * The service's error envelope. `errors`, when present, names the fields a validation answer
 * concerns (`field` is the body's field, dotted for nested ones).
 */
export const errorResponseSchema = named(
  'ErrorResponse',
  'An error answered by the service: `message` says what is wrong in a sentence a person can act on; `code` is for programs.',
  z.strictObject({
    success: z.literal(false),
    message,
    code: z.string().check(z.regex(/^[A-Z][A-Z0-9_]*$/)),
    errors: z.optional(z.array(z.strictObject({ field: z.string(), message }))),
  }),
);

/** What API Gateway itself answers before (or instead of) any function: 401, 403, 404, 413, 500, 503. */
export const gatewayErrorSchema = named(
  'GatewayError',
  'An error answered by API Gateway itself (authorizer, payload limit, a function that failed to answer).',
  z.strictObject({ message }),
);
