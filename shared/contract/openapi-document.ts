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
import { portalChangeBurst, portalChangeRatePerMinute, portalReadBurst, portalReadRatePerMinute, portalSendBurst, portalSendRatePerMinute } from '../settings';
import { OPERATION_DOCS, type OperationDoc } from './openapi-operation-docs';
import {
  DEFAULT_ATTEMPTS_PAGE,
  DEFAULT_DEAD_LETTERS_PAGE,
  DEFAULT_MESSAGES_PAGE,
  DEFAULT_RECOVERIES_PAGE,
  MAX_ATTEMPTS_PAGE,
  MAX_DEAD_LETTERS_PAGE,
  MAX_MESSAGES_PAGE,
  MAX_RECOVERIES_PAGE,
} from './dead-letter-limits';
import { RATE_LIMIT_HEADER_COMPONENTS, withRateLimitHeaders } from './openapi-rate-limit-headers';
import { errorComponent, errorComponentName, type ErrorStatus, presentedRequest, withTimeFormats } from './openapi-presentation';
import {
  CONTRACT_SCHEMAS,
  errorResponse,
  EXAMPLE_CONFIG_ID,
  eventKind,
  eventKindEntry,
  listAttemptsQuery,
  listMessagesQuery,
  listRecoveriesQuery,
  REQUEST_SCHEMAS,
  schemaNameOf,
  subscriptionIdParameter,
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

/**
 * Every schema of the contract as written, by component name, EventKind listing the catalog:
 * what the service accepts (test/service/contract.schema.test.ts), before the document presents it.
 */
export function writtenComponentSchemas(eventKinds: readonly string[]): Record<string, Json> {
  const components: Record<string, Json> = Object.fromEntries(CONTRACT_SCHEMAS.map((schema) => [nameOf(schema), documented(schema)]));
  components[nameOf(eventKind)] = { ...components[nameOf(eventKind)], enum: [...eventKinds] };
  return components;
}

const ERROR_STATUSES = [400, 401, 409, 429, 500, 503] as const satisfies readonly ErrorStatus[];
const requestSchemas: readonly unknown[] = Object.values(REQUEST_SCHEMAS);

/**
 * Every schema of the contract, by component name, as the document presents it
 * (openapi-presentation.ts); EventKind lists the catalog. The queries are the operations'
 * parameters, not components; ErrorResponse is one component per error status.
 */
function componentSchemas(eventKinds: readonly string[]): Record<string, Json> {
  const components: Record<string, Json> = {};
  for (const schema of CONTRACT_SCHEMAS) {
    const name = nameOf(schema);
    if (name.endsWith('Query')) continue;
    if (schema === errorResponse) {
      for (const status of ERROR_STATUSES) components[errorComponentName(status)] = errorComponent(documented(schema), status);
      continue;
    }
    components[name] = requestSchemas.includes(schema) ? presentedRequest(documented(schema)) : withTimeFormats(documented(schema));
  }
  components[nameOf(eventKind)] = { ...components[nameOf(eventKind)], enum: [...eventKinds] };
  return components;
}

/** A query parameter's schema as the document presents it: `limit` a bounded integer, as a client sends it. */
function querySchema(name: string, schema: Json, query: object): Json {
  if (name !== 'limit') return documented(schema, false);
  const [maximum, fallback] =
    query === listAttemptsQuery
      ? [MAX_ATTEMPTS_PAGE, DEFAULT_ATTEMPTS_PAGE]
      : query === listMessagesQuery
        ? [MAX_MESSAGES_PAGE, DEFAULT_MESSAGES_PAGE]
        : query === listRecoveriesQuery
          ? [MAX_RECOVERIES_PAGE, DEFAULT_RECOVERIES_PAGE]
          : [MAX_DEAD_LETTERS_PAGE, DEFAULT_DEAD_LETTERS_PAGE];
  return { type: 'integer', minimum: 1, maximum, default: fallback };
}

function jsonContent(schema: Json, example?: Json) {
  return { [JSON_MEDIA]: { schema, ...(example === undefined ? {} : { example }) } };
}

const errorOf = (status: ErrorStatus) => ref(errorComponentName(status));
const errorOrGateway = (status: ErrorStatus) => ({ anyOf: [errorOf(status), ref('GatewayError')] });
const retryAfter = (minimum: number, description: string) => ({
  'Retry-After': { description, required: true, schema: { type: 'integer', minimum } },
});

function responsesOf(doc: OperationDoc, operation: Operation): Json {
  const limit = portalLimitOf(operation);
  return {
    [doc.successStatus ?? 200]: {
      description: doc.summary + (doc.successStatus === 202 ? ': started.' : ': done.'),
      content: jsonContent(ref(doc.success), doc.successExample),
    },
    ...(doc.answersBadRequest && {
      400: {
        description:
          'A problem the caller can fix: malformed JSON, a missing or invalid field, an unknown or foreign `config_id`, the portal\'s ' +
          'limit reached, an endpoint SNS refused, one in the service\'s own account or one that cannot be public, a subscription already confirmed, a test or ' +
          'replay for a deactivated subscription or an endpoint that has not confirmed, a bad `limit` or `cursor`.',
        content: jsonContent(errorOf(400), {
          success: false,
          message: 'name must not be empty.',
          code: 'INVALID_REQUEST',
          errors: [{ field: 'name', message: 'name must not be empty.' }],
        }),
      },
    }),
    401: {
      description: 'API Gateway: no token, or one that is invalid or expired; the service: a token without a usable portal claim.',
      content: jsonContent(errorOrGateway(401), { message: 'Unauthorized' }),
    },
    403: {
      description: 'The token lacks the operation\'s scope.',
      content: jsonContent(ref('GatewayError'), { message: 'Forbidden' }),
    },
    ...(doc.answersConflict && {
      409: {
        description: 'The same Idempotency-Key is still being processed by another request: retry shortly.',
        content: jsonContent(errorOf(409), {
          success: false,
          message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
          code: 'IDEMPOTENCY_IN_PROGRESS',
        }),
      },
    }),
    // API Gateway's stage throttle may answer any route 429 in its own shape; the service
    // answers every route past its portal's limit, and confirm asked again too soon, in its envelope.
    429: {
      description:
        'Too many requests; nothing was done. API Gateway\'s stage throttle (`{message}`) may answer it on any route. ' +
        (limit
          ? 'The service answers it (`RATE_LIMITED`) when the portal sent this route more often than its limit ' +
            `(${limit[0].variable} at once, then ${limit[1].variable} a minute). `
          : '') +
        (doc.answersTooSoon ?? '') +
        'Send the same request again after the `Retry-After` seconds (the service\'s message also says when).',
      headers: retryAfter(1, 'Seconds to wait before sending the request again.'),
      content: jsonContent(
        errorOrGateway(429),
        limit
          ? {
              success: false,
              message: `This portal sends ${operation.method} .../subscriptions${operation.subPath} faster than its limit (${limit[0].default} at once, then ${limit[1].default} a minute); send it again after 2026-03-12T10:15:33Z (Retry-After says in how many seconds).`,
              code: 'RATE_LIMITED',
            }
          : { message: 'Too Many Requests' },
      ),
    },
    413: {
      description: 'The request is larger than API Gateway\'s payload limit.',
      content: jsonContent(ref('GatewayError'), { message: 'Request Entity Too Large' }),
    },
    431: {
      description:
        'The request line and headers are larger than API Gateway\'s limit (10,240 bytes); the local gateway answers 431 ' +
        '(docs/decisions/oversized-headers-431.md).',
      content: jsonContent(ref('GatewayError'), { message: 'Request Header Fields Too Large' }),
    },
    500: {
      description: 'A fault of the service; the message names no internals.',
      content: jsonContent(errorOrGateway(500), {
        success: false,
        message: 'The service failed to handle the request; retry it shortly.',
        code: 'INTERNAL_ERROR',
      }),
    },
    503: {
      description: 'A dependency of the service is unavailable: retry after the `Retry-After` seconds.',
      headers: retryAfter(0, 'Seconds to wait before retrying.'),
      content: jsonContent(errorOrGateway(503), {
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
      schema: querySchema(name, rest, doc.query!),
      ...(examples?.[0] !== undefined && { example: name === 'limit' ? Number(examples[0]) : examples[0] }),
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
    responses: withRateLimitHeaders(responsesOf(doc, operation), portalLimitOf(operation) !== undefined),
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
      contact: { name: 'Webhook subscriptions maintainers' },
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
      headers: RATE_LIMIT_HEADER_COMPONENTS,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'oauth2',
          description: 'OAuth 2.0 client credentials; the token carries the caller\'s portal in its portal claim.',
          flows: {
            clientCredentials: {
              tokenUrl: options.tokenUrl,
              scopes: {
                [SCOPES.read]: 'List the portal\'s subscriptions, their dead letters and their delivery attempts.',
                [SCOPES.write]: 'Create, change, test, confirm and delete the portal\'s subscriptions, and send their dead letters again.',
              },
            },
          },
        },
      },
    },
  };
}

/** The settings of a route's per-portal limit (every route has one: docs/security.md, "Rate limits"). */
function portalLimitOf(operation: Operation) {
  if (operation.portalBudget === 'change') return [portalChangeBurst, portalChangeRatePerMinute] as const;
  if (operation.portalBudget === 'read') return [portalReadBurst, portalReadRatePerMinute] as const;
  if (operation.limitedPerPortal) return [portalSendBurst, portalSendRatePerMinute] as const;
  return undefined;
}
