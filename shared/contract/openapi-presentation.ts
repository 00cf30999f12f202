/**
 * How the OpenAPI document presents the contract's schemas to client generators
 * (docs/decisions/document-presents-types-for-generators.md). The schemas themselves
 * (schemas.ts), which the functions' compiled validators are built from, are not changed: the
 * document shows a stricter, plainly typed reading of each request body, which every body it
 * accepts the service accepts too:
 * - a body that names a subscription requires `config_id`; `configId`, the alias the service
 *   also takes, is said in the description only (an `if`/`then` leaves both optional in
 *   generated types);
 * - update's "events, maxReceivesPerSecond, filter or several" is an `anyOf` of three object
 *   schemas, each requiring one of them, rather than nested `if`/`then`s;
 * - the parts of a string's `allOf` (its patterns) carry `type: string`, so that no generator
 *   reads them as values of any type.
 * In the answers, every time is `format: date-time`, and each error status has its own error
 * schema whose `code` is an enum of the codes that status carries.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is plain JSON
type Json = any;

const isObject = (value: unknown): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The parts of a typed schema's `allOf` typed as it is, recursively. */
function typedParts(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(typedParts);
  if (!isObject(schema)) return schema;
  const out: Json = Object.fromEntries(Object.entries(schema).map(([keyword, value]) => [keyword, typedParts(value)]));
  if (typeof schema.type === 'string' && schema.type !== 'object' && Array.isArray(out.allOf)) {
    out.allOf = out.allOf.map((part: Json) => (isObject(part) && part.type === undefined ? { type: schema.type, ...part } : part));
  }
  return out;
}

const isAddressingRule = (part: Json) => isObject(part) && isObject(part.if) && isObject(part.then) && part.then.required?.[0] === 'config_id';
const isEventsOrThrottleRule = (part: Json) =>
  isObject(part) && isObject(part.then) && JSON.stringify(part.then).includes('"events"') && JSON.stringify(part.if).includes('maxReceivesPerSecond');

/** A request body's schema as the document presents it (see above). */
export function presentedRequest(schema: Json): Json {
  const typed = typedParts(schema);
  const { properties = {}, required = [], allOf = [], ...rest } = typed;
  if (!('config_id' in properties)) return typed;
  const { configId: _alias, ...shown } = properties;
  const parts = (allOf as Json[]).filter((part) => !isAddressingRule(part));
  const eitherOf = parts.some(isEventsOrThrottleRule);
  const others = parts.filter((part) => !isEventsOrThrottleRule(part));
  const presented = { ...rest, properties: shown, required: ['config_id', ...required], ...(others.length > 0 && { allOf: others }) };
  if (!eitherOf) return presented;
  // One object schema per way of calling it, each complete: a generator types the body as either.
  const { description, ...body } = presented;
  return {
    type: 'object',
    description,
    anyOf: [
      { ...body, required: [...body.required, 'events'] },
      { ...body, required: [...body.required, 'maxReceivesPerSecond'] },
      { ...body, required: [...body.required, 'filter'] },
    ],
  };
}

/** Answers: every time (a property named `at` or ending in `At`) is `format: date-time`. */
export function withTimeFormats(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(withTimeFormats);
  if (!isObject(schema)) return schema;
  const out: Json = Object.fromEntries(Object.entries(schema).map(([keyword, value]) => [keyword, withTimeFormats(value)]));
  if (isObject(out.properties)) {
    for (const [name, property] of Object.entries(out.properties as Record<string, Json>)) {
      const types = [property?.type].flat();
      if ((name === 'at' || /[a-z]At$/.test(name)) && types.includes('string')) out.properties[name] = { ...property, format: 'date-time' };
    }
  }
  return out;
}

/** The codes the service answers with each error status (shared/http/errors.ts, the domain's refusals). */
export const ERROR_CODES = {
  400: [
    'INVALID_REQUEST',
    'MALFORMED_JSON',
    'MISSING_BODY',
    'BODY_NOT_OBJECT',
    'BODY_TOO_LARGE',
    'UNSUPPORTED_CONTENT_TYPE',
    'BAD_REQUEST',
    'INVALID_IDEMPOTENCY_KEY',
    'IDEMPOTENCY_KEY_REUSED',
    'SUBSCRIPTION_NOT_FOUND',
    'SUBSCRIPTION_LIMIT_REACHED',
    'SUBSCRIPTION_DEACTIVATED',
    'ALREADY_CONFIRMED',
    'ENDPOINT_REFUSED',
    'ENDPOINT_IN_SERVICE_ACCOUNT',
    'ENDPOINT_NOT_PUBLIC',
    'ENDPOINT_NOT_CONFIRMED',
    'ENDPOINT_CREDENTIALS_OVER_HTTP',
    'ENDPOINT_CREDENTIALS_GONE',
    'ATTEMPTS_NOT_RECORDED',
    'THROTTLE_NOT_SUPPORTED',
    'MESSAGE_NOT_FOUND',
    'WINDOW_NOT_KEPT',
  ],
  401: ['MISSING_PORTAL_CLAIM', 'INVALID_PORTAL_CLAIM', 'UNAUTHORIZED'],
  409: ['IDEMPOTENCY_IN_PROGRESS', 'CONFLICT'],
  429: ['RATE_LIMITED', 'CONFIRMATION_PENDING', 'CONFIRMATION_REQUESTS_PER_DAY'],
  500: ['INTERNAL_ERROR'],
  503: ['SERVICE_UNAVAILABLE'],
} as const;
export type ErrorStatus = keyof typeof ERROR_CODES;

export const errorComponentName = (status: ErrorStatus) => `ErrorResponse${status}`;

/** The service's error answer of one status: ErrorResponse with `code` an enum of its codes (`errors` on 400 only). */
export function errorComponent(errorResponse: Json, status: ErrorStatus): Json {
  const { errors, code, ...properties } = errorResponse.properties;
  return {
    ...errorResponse,
    description: `${errorResponse.description} Status ${status}.`,
    properties: { ...properties, code: { ...code, enum: [...ERROR_CODES[status]] }, ...(status === 400 && { errors }) },
  };
}
