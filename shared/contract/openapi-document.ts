/**
 * The OpenAPI 3.1 document of the API, generated (never written by hand) from:
 * - the operations table (shared/operations.ts): paths under both prefixes, methods, scopes;
 * - the JSON Schemas of the contract (schemas.ts), request bodies and answers alike, taken as
 *   they are: the components of the document, each referred to by its name;
 * - the catalog of event kinds of the deployment the document is built for (EVENT_KINDS), as the
 *   EventKind component's enum, to which every request's `events` entries refer.
 */
import { IDEMPOTENCY_KEY_PATTERN } from '../http/middleware/idempotency-key';
import { type Operation, OPERATIONS, type OperationId, SCOPES } from '../operations';
import {
  activateSubscriptionRequest,
  confirmSubscriptionRequest,
  CONTRACT_SCHEMAS,
  createSubscriptionRequest,
  EXAMPLE_CONFIG_ID,
  eventKind,
  eventKindEntry,
  listAttemptsQuery,
  listDeadLettersQuery,
  renameSubscriptionRequest,
  replayDeadLettersRequest,
  schemaNameOf,
  subscriptionIdParameter,
  testSubscriptionRequest,
  updateSubscriptionRequest,
} from './schemas';

export interface OpenApiOptions {
  /** The event kinds the service accepts (EVENT_KINDS): the catalog of the `events` enums. */
  readonly eventKinds: readonly string[];
  /** The OAuth 2.0 token endpoint (client credentials) of the tokens' issuer. */
  readonly tokenUrl: string;
  /** The API's base URL, when known (locally); on AWS the stack's ApiUrl output. */
  readonly serverUrl?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is plain JSON
type Json = any;

export const SECURITY_SCHEME = 'portalOAuth';
const JSON_MEDIA = 'application/json';
const EXAMPLE_TOPIC_ARN = `arn:aws:sns:eu-west-1:123456789012:webhooks-${EXAMPLE_CONFIG_ID}`;
const EXAMPLE_RECORD = {
  configId: EXAMPLE_CONFIG_ID,
  endpoint: 'https://hooks.example.com/assets',
  events: ['asset_bank.media.create', 'asset_bank.media.updated'],
  name: 'Media updates',
  portalId: 'portal-a',
  protocol: 'https',
  subscriptionArn: `${EXAMPLE_TOPIC_ARN}:4f6b1a1e-2d3c-4b5a-8f9e-0a1b2c3d4e5f`,
  topicArn: EXAMPLE_TOPIC_ARN,
  status: 1,
  confirmed: false,
  subscriptionState: 'pending',
};

/** What the document says of each operation beyond the operations table. */
interface OperationDoc {
  readonly summary: string;
  readonly description: string;
  /** The schema of the body; none: any body is ignored. */
  readonly request?: { readonly $id: string };
  /** The schema of the query parameters (all strings), documented one parameter each. */
  readonly query?: { readonly properties: Record<string, Json>; readonly required: readonly string[] };
  readonly requestExample?: Json;
  /** Component name of the 200 body, and an example of it. */
  readonly success: string;
  readonly successExample: Json;
  /** Statuses beyond those every operation has. */
  readonly answersBadRequest: boolean;
  readonly answersConflict?: boolean;
  /** Why the operation itself may answer 429 besides the portal's rate limit, as a sentence. */
  readonly answersTooSoon?: string;
  readonly idempotencyKey?: boolean;
}

// Keyed by operation id: an operation added to the table and not described here fails type-checking.
const OPERATION_DOCS: Record<OperationId, OperationDoc> = {
  createSubscriptionRoute: {
    summary: 'Create a subscription',
    description:
      'Creates a subscription of the caller\'s portal with its own SNS topic and the endpoint subscribed to it. ' +
      'The endpoint must suit the protocol: an absolute https:// or http:// URL of at most 2048 characters, an e-mail ' +
      'address (email, email-json), an SQS queue ARN (sqs) or a Lambda function ARN (lambda). `protocol` is ' +
      'case-insensitive. At most MAX_SUBSCRIPTIONS_PER_PORTAL subscriptions per portal. A queue or function of the ' +
      'service\'s own AWS account is refused (400 `ENDPOINT_IN_SERVICE_ACCOUNT`) unless the deployment allows it; ' +
      'one of another account stays `pending` until its owner confirms the subscription. An http/https endpoint whose ' +
      'host cannot be public (a loopback, private, link-local or reserved IP literal, or `localhost`) is refused (400 ' +
      '`ENDPOINT_NOT_PUBLIC`), and so is a user name or password in a plain http:// URL (400 ' +
      '`ENDPOINT_CREDENTIALS_OVER_HTTP`). A basic-auth password (`https://user:password@host/...`) is passed to SNS and ' +
      'never shown again: every answer shows the endpoint as `https://user:****@host/...`. `maxReceivesPerSecond` ' +
      '(http/https only; otherwise 400 `THROTTLE_NOT_SUPPORTED`) has SNS send at most that many deliveries a second to ' +
      'the endpoint, holding the rest back.',
    request: createSubscriptionRequest,
    requestExample: {
      name: 'Media updates',
      endpoint: 'https://hooks.example.com/assets',
      protocol: 'https',
      events: ['asset_bank.media.create', 'asset_bank.media.updated'],
    },
    success: 'CreateSubscriptionResponse',
    successExample: { success: true, message: 'Subscription created.', record: EXAMPLE_RECORD },
    answersBadRequest: true,
    answersConflict: true,
    idempotencyKey: true,
  },
  updateSubscriptionRoute: {
    summary: 'Replace the event list or set the throttle of a subscription',
    description:
      'Replaces the event kinds (duplicates are dropped, order kept), sets the throttle `maxReceivesPerSecond` in the ' +
      'SNS subscription\'s delivery policy (a number; `null` removes it; http/https only, otherwise 400 ' +
      '`THROTTLE_NOT_SUPPORTED`), or both; at least one of the two. `configId` is accepted as an alias of `config_id`.',
    request: updateSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, events: ['asset_bank.media.deleted'] },
    success: 'UpdateSubscriptionResponse',
    successExample: {
      success: true,
      message: 'Subscription events updated.',
      record: { configId: EXAMPLE_CONFIG_ID, events: ['asset_bank.media.deleted'], portalId: 'portal-a' },
    },
    answersBadRequest: true,
  },
  activateSubscriptionRoute: {
    summary: 'Activate or deactivate a subscription',
    description: '`status` 1 activates, 0 deactivates: a deactivated subscription receives only test events.',
    request: activateSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, status: 0 },
    success: 'SuccessResponse',
    successExample: { success: true, message: 'Subscription deactivated.' },
    answersBadRequest: true,
  },
  listSubscriptionsRoute: {
    summary: 'List the portal\'s subscriptions',
    description:
      'Every subscription of the caller\'s portal, oldest first, with SNS\'s side of it (`subscriptionState`: confirmed, ' +
      'pending or unsubscribed) as the service last learned it: SNS is asked only about subscriptions not known to be ' +
      'confirmed, and a confirmation that lapses shows within one run of the reconciler. Each entry also tells its dead ' +
      'letters: how many are kept (`deadLetters`), when the latest failed (`lastDeadLetterAt`), how many gave way to the ' +
      'cap of 1,000 (`deadLettersDropped`); and its health, from SNS\'s delivery status logs: the latest delivery and failure ' +
      '(`lastDeliveredAt`, `lastFailedAt`) and the counts of the last 24 hours (`deliveredLast24h`, `failedLast24h`). The answer also says how many subscriptions the portal may have ' +
      '(`maxSubscriptions`). Any body is ignored.',
    success: 'ListSubscriptionsResponse',
    successExample: {
      success: true,
      message: '1 subscription found.',
      configs: [
        {
          configId: EXAMPLE_CONFIG_ID,
          name: EXAMPLE_RECORD.name,
          endpoint: EXAMPLE_RECORD.endpoint,
          protocol: 'https',
          events: EXAMPLE_RECORD.events,
          status: 1,
          confirmed: true,
          subscriptionState: 'confirmed',
          deadLetters: 2,
          lastDeadLetterAt: '2026-11-24T08:41:12.345Z',
          deadLettersDropped: 0,
          lastDeliveredAt: '2026-11-24T09:02:33.120Z',
          lastFailedAt: '2026-11-24T08:41:12.345Z',
          deliveredLast24h: 118,
          failedLast24h: 2,
          disabledReason: null,
          disabledAt: null,
        },
      ],
      maxSubscriptions: 10,
    },
    answersBadRequest: false,
  },
  renameSubscriptionRoute: {
    summary: 'Rename a subscription',
    description: 'The name is trimmed: 1-255 characters, no control characters.',
    request: renameSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, name: 'Media hooks' },
    success: 'SuccessResponse',
    successExample: { success: true, message: 'Subscription renamed.' },
    answersBadRequest: true,
  },
  deleteSubscriptionRoute: {
    summary: 'Delete a subscription',
    description: 'Deletes the subscription, its SNS topic and its SNS subscription. Any body is ignored.',
    success: 'SuccessResponse',
    successExample: { success: true, message: 'Subscription deleted.' },
    answersBadRequest: true,
  },
  testSubscriptionRoute: {
    summary: 'Send a test event',
    description:
      'Publishes one `webhooks.test` message to the subscription, whatever its event list and status. While its endpoint has not ' +
      'confirmed (`subscriptionState` pending or unsubscribed) nothing would arrive: 400 `ENDPOINT_NOT_CONFIRMED`.',
    request: testSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID },
    success: 'TestSubscriptionResponse',
    successExample: { success: true, message: 'Test event sent.', messageId: '5a3d2c1b-0f9e-4d8c-b7a6-958473625140' },
    answersBadRequest: true,
  },
  listDeadLettersRoute: {
    summary: 'List a subscription\'s dead letters',
    description:
      'The messages SNS could not deliver to the endpoint after its retries, newest first, a page at a time (`limit`, default 50, ' +
      'at most 100; `cursor`: the previous page\'s `nextCursor`). Each is kept 14 days (to the end of the UTC day it failed on ' +
      'plus 14 days), and at most 1,000 per subscription: the oldest give way, counted in `deadLettersDropped`.',
    query: listDeadLettersQuery,
    success: 'ListDeadLettersResponse',
    successExample: {
      success: true,
      message: '1 dead letter on this page.',
      deadLetters: [
        {
          eventId: '6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c',
          event: 'asset_bank.media.create',
          occurredAt: '2026-11-24T08:15:00Z',
          failedAt: '2026-11-24T08:41:12.345Z',
          messageId: '5a3d2c1b-0f9e-4d8c-b7a6-958473625140',
          retries: 1,
          nextRetryAt: '2026-11-24T10:41:12.345Z',
        },
      ],
      nextCursor: null,
      deadLettersDropped: 0,
    },
    answersBadRequest: true,
  },
  replayDeadLettersRoute: {
    summary: 'Send dead letters again',
    description:
      'Publishes the subscription\'s dead letters to its topic again with their original body (same `eventId`), oldest first, ' +
      'at most 100 per request, and removes each once SNS accepted it: all kept ones, or those of the given `eventIds`. ' +
      '`remaining` says how many are still kept. At least once: receivers deduplicate on (`configId`, `eventId`). One that fails ' +
      'again comes back as a new dead letter. Each is claimed before it is published, so concurrent replays share the letters and each ' +
      'is sent once; one claimed by a replay that crashed can be replayed again a minute later. ' +
      'eventIds naming no kept dead letter: 200 with `replayed` 0. A deactivated ' +
      'subscription (400 `SUBSCRIPTION_DEACTIVATED`) or one whose endpoint has not confirmed (400 `ENDPOINT_NOT_CONFIRMED`) is refused.',
    request: replayDeadLettersRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID, eventIds: ['6a1e4c2b-3f5d-4e7a-9b8c-0d1e2f3a4b5c'] },
    success: 'ReplayDeadLettersResponse',
    successExample: { success: true, message: '1 dead letter sent again.', replayed: 1, remaining: 0 },
    answersBadRequest: true,
    answersConflict: true,
    idempotencyKey: true,
  },
  listAttemptsRoute: {
    summary: 'List a subscription\'s delivery attempts',
    description:
      'Every delivery of a message to the endpoint as SNS logged it (its delivery status logs), successes included, newest ' +
      'first, a page at a time (`limit`, default 50, at most 100; `cursor`: the previous page\'s `nextCursor`; `status`: ' +
      '`delivered` or `failed` only). `attempts` is SNS\'s count of tries for the message, `dwellTimeMs` the time from publishing ' +
      'to the end of the delivery; `messageId` is the `x-amz-sns-message-id` header the endpoint received. Successes are ' +
      'sampled as the deployment sets (all by default); failures are all kept. Kept 7 days (a deployment setting), at most ' +
      '1,000 per subscription (the oldest give way). E-mail subscriptions have none: 400 `ATTEMPTS_NOT_RECORDED`.',
    query: listAttemptsQuery,
    success: 'ListAttemptsResponse',
    successExample: {
      success: true,
      message: '1 delivery attempt on this page.',
      attempts: [
        {
          at: '2026-11-24T09:02:33.120Z',
          status: 'delivered',
          statusCode: 200,
          dwellTimeMs: 84,
          attempts: 1,
          messageId: '5a3d2c1b-0f9e-4d8c-b7a6-958473625140',
        },
      ],
      nextCursor: null,
    },
    answersBadRequest: true,
  },
  confirmSubscriptionRoute: {
    summary: 'Ask the endpoint to confirm again',
    description:
      'Subscribes the endpoint of a `pending` or `unsubscribed` subscription again: SNS sends it a new confirmation ' +
      'request (an e-mail, or a SubscriptionConfirmation POST), and it receives events once it confirms. A ' +
      '`confirmed` subscription is answered 400 `ALREADY_CONFIRMED`. An endpoint whose password SNS no longer holds ' +
      '(its SNS subscription is gone) is answered 400 `ENDPOINT_CREDENTIALS_GONE`: create the subscription again. ' +
      '`configId` is accepted as an alias of `config_id`.',
    request: confirmSubscriptionRequest,
    requestExample: { config_id: EXAMPLE_CONFIG_ID },
    answersTooSoon:
      'Confirm also answers 429 `CONFIRMATION_PENDING` while a confirmation request sent less than 5 minutes ago is still pending ' +
      '(create\'s own request included), and `CONFIRMATION_REQUESTS_PER_DAY` once the endpoint was sent CONFIRMATION_REQUESTS_PER_DAY ' +
      '(5 by default) this UTC day. ',
    success: 'ConfirmSubscriptionResponse',
    successExample: {
      success: true,
      message: 'Confirmation requested: SNS sent the endpoint a new confirmation request.',
      subscriptionState: 'pending',
    },
    answersBadRequest: true,
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The component name of a top-level schema. */
function nameOf(schema: { readonly $id: string }): string {
  const name = schemaNameOf(schema.$id);
  if (!name) throw new Error(`${schema.$id} is not a schema of the contract.`);
  return name;
}

/**
 * A schema as the document holds it: a component (its `$schema` and `$id` are the document's),
 * referring to the others by their component names, and to EventKind for an entry of `events`.
 */
function documented(value: unknown, top = true): Json {
  if (value === eventKindEntry) return ref(nameOf(eventKind));
  if (Array.isArray(value)) return value.map((item) => documented(item, false));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([keyword]) => !(top && (keyword === '$schema' || keyword === '$id')))
      .map(([keyword, item]) => [keyword, keyword === '$ref' ? ref(nameOf({ $id: String(item) })).$ref : documented(item, false)]),
  );
}

/** Every schema of the contract, by component name; EventKind lists the catalog. */
function componentSchemas(eventKinds: readonly string[]): Record<string, Json> {
  const components: Record<string, Json> = Object.fromEntries(CONTRACT_SCHEMAS.map((schema) => [nameOf(schema), documented(schema)]));
  components[nameOf(eventKind)] = { ...components[nameOf(eventKind)], enum: [...eventKinds] };
  return components;
}

function jsonContent(schema: Json, example?: Json) {
  return { [JSON_MEDIA]: { schema, ...(example === undefined ? {} : { example }) } };
}

const errorOrGateway = { anyOf: [ref('ErrorResponse'), ref('GatewayError')] };

function responsesOf(doc: OperationDoc, operation: Operation): Json {
  return {
    200: { description: doc.summary + ': done.', content: jsonContent(ref(doc.success), doc.successExample) },
    ...(doc.answersBadRequest && {
      400: {
        description:
          'A problem the caller can fix: malformed JSON, a missing or invalid field, an unknown or foreign `config_id`, the portal\'s ' +
          'limit reached, an endpoint SNS refused, one in the service\'s own account or one that cannot be public, a subscription already confirmed, a test or ' +
          'replay for a deactivated subscription or an endpoint that has not confirmed, a bad `limit` or `cursor`.',
        content: jsonContent(ref('ErrorResponse'), {
          success: false,
          message: 'name must not be empty.',
          code: 'INVALID_REQUEST',
          errors: [{ field: 'name', message: 'name must not be empty.' }],
        }),
      },
    }),
    401: {
      description: 'API Gateway: no token, or one that is invalid or expired; the service: a token without a usable portal claim.',
      content: jsonContent(errorOrGateway, { message: 'Unauthorized' }),
    },
    403: {
      description: 'The token lacks the operation\'s scope.',
      content: jsonContent(ref('GatewayError'), { message: 'Forbidden' }),
    },
    ...(doc.answersConflict && {
      409: {
        description: 'The same Idempotency-Key is still being processed by another request: retry shortly.',
        content: jsonContent(ref('ErrorResponse'), {
          success: false,
          message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
          code: 'IDEMPOTENCY_IN_PROGRESS',
        }),
      },
    }),
    ...((operation.limitedPerPortal || doc.answersTooSoon) && {
      429: {
        description:
          (operation.limitedPerPortal
            ? 'The portal sent this route more often than its limit (PORTAL_SEND_BURST at once, then PORTAL_SEND_RATE_PER_MINUTE a minute), ' +
              '`RATE_LIMITED`. '
            : '') +
          (doc.answersTooSoon ?? '') +
          'Nothing was done; send the same request again after the `Retry-After` seconds (the message says when).',
        headers: { 'Retry-After': { description: 'Seconds to wait before sending the request again.', schema: { type: 'integer', minimum: 1 } } },
        content: jsonContent(ref('ErrorResponse'), {
          success: false,
          message:
            'This portal sends POST .../subscriptions/test faster than its limit (25 at once, then 20 a minute); send it again after 2026-03-12T10:15:33Z (Retry-After says in how many seconds).',
          code: 'RATE_LIMITED',
        }),
      },
    }),
    413: {
      description: 'The request is larger than API Gateway\'s payload limit.',
      content: jsonContent(ref('GatewayError'), { message: 'Request Entity Too Large' }),
    },
    500: {
      description: 'A fault of the service; the message names no internals.',
      content: jsonContent(errorOrGateway, {
        success: false,
        message: 'The service failed to handle the request; retry it shortly.',
        code: 'INTERNAL_ERROR',
      }),
    },
    503: {
      description: 'A dependency of the service is unavailable: retry after the `Retry-After` seconds.',
      headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } } },
      content: jsonContent(errorOrGateway, {
        success: false,
        message: 'A backend service is temporarily unavailable; retry the request shortly.',
        code: 'SERVICE_UNAVAILABLE',
      }),
    },
  };
}

/** The OpenAPI id of an operation under a prefix: the table's id under the canonical one. */
export function documentOperationId(operation: Operation, prefixIndex: number): string {
  return prefixIndex === 0 ? operation.id : `${operation.id}Legacy`;
}

function operationObject(operation: Operation, prefixIndex: number): Json {
  const doc = OPERATION_DOCS[operation.id as OperationId];
  const parameters: Json[] = [];
  if (operation.subPath.includes('{configId}')) {
    parameters.push({
      name: 'configId',
      in: 'path',
      required: true,
      description: 'The subscription\'s id.',
      schema: documented(subscriptionIdParameter, false),
      example: EXAMPLE_CONFIG_ID,
    });
  }
  for (const [name, schema] of Object.entries(doc.query?.properties ?? {})) {
    const { description, examples, ...rest } = schema as Json;
    parameters.push({
      name,
      in: 'query',
      required: doc.query!.required.includes(name),
      description,
      schema: documented(rest, false),
      ...(examples?.[0] !== undefined && { example: examples[0] }),
    });
  }
  if (doc.idempotencyKey) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        operation.id === 'replayDeadLettersRoute'
          ? 'Makes retries of this replay safe: the same key (per portal, 24 hours) with the same body answers the first answer again and sends nothing.'
          : 'Makes retries of this create safe: the same key (per portal, 24 hours) with the same body answers the first answer again and creates nothing.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN.source },
      example: '8e0f1b2a-3c4d-4e5f-9a6b-7c8d9e0f1a2b',
    });
  }
  return {
    operationId: documentOperationId(operation, prefixIndex),
    summary: doc.summary,
    description: prefixIndex === 0 ? doc.description : `${doc.description} (The same operation under the interface description's prefix.)`,
    tags: ['subscriptions'],
    security: [{ [SECURITY_SCHEME]: [operation.scope] }],
    ...(parameters.length > 0 && { parameters }),
    ...(doc.request && {
      requestBody: { required: true, content: jsonContent(ref(nameOf(doc.request)), doc.requestExample) },
    }),
    responses: responsesOf(doc, operation),
  };
}

/** The document, for one configuration of the service. */
export function buildOpenApiDocument(options: OpenApiOptions): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of OPERATIONS) {
    operation.paths.forEach((path, prefixIndex) => {
      paths[path] ??= {};
      paths[path][operation.method.toLowerCase()] = operationObject(operation, prefixIndex);
    });
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Webhook subscriptions',
      version: '1.0.0',
      description:
        'Manage the webhook subscriptions of a portal. Every route exists under two prefixes, ' +
        '`/v7/webhooks/public/api/subscriptions` (canonical) and `/webhooks/api/subscriptions`. ' +
        'Generated from the operations table and the JSON Schemas the service validates requests with: do not edit.',
    },
    ...(options.serverUrl && { servers: [{ url: options.serverUrl }] }),
    tags: [{ name: 'subscriptions', description: 'A portal\'s webhook subscriptions.' }],
    paths,
    components: {
      schemas: componentSchemas(options.eventKinds),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'oauth2',
          description: 'OAuth 2.0 client credentials; the token carries the caller\'s portal in its portal claim.',
          flows: {
            clientCredentials: {
              tokenUrl: options.tokenUrl,
              scopes: {
                [SCOPES.read]: 'List the portal\'s subscriptions and their dead letters.',
                [SCOPES.write]: 'Create, change, test, confirm and delete the portal\'s subscriptions, and send their dead letters again.',
              },
            },
          },
        },
      },
    },
  };
}
