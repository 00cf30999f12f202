/**
 * What every answer to a hostile request must be (checks.ts): the refusal envelope, API Gateway's
 * own answers, success, and a 5xx told apart as overload or a fault.
 */
import { isOverloadAnswer } from './harness';
import type { RawAnswer } from './raw-http';
import { ANY_FIELD, type HostileRequest, type OperationName, type Target } from './requests';

/** Every code a refusal of the handlers may carry (docs/api.md, "Values"). */
export const KNOWN_CODES = [
  'MALFORMED_JSON',
  'MISSING_BODY',
  'BODY_NOT_OBJECT',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_CONTENT_TYPE',
  'INVALID_REQUEST',
  'SUBSCRIPTION_NOT_FOUND',
  'SUBSCRIPTION_LIMIT_REACHED',
  'ENDPOINT_REFUSED',
  'ENDPOINT_IN_SERVICE_ACCOUNT',
  'ENDPOINT_NOT_PUBLIC',
  'ENDPOINT_CREDENTIALS_OVER_HTTP',
  'ALREADY_CONFIRMED',
  'INVALID_IDEMPOTENCY_KEY',
  'IDEMPOTENCY_KEY_REUSED',
] as const;

/** The fields each operation reads: each `errors` entry of a refusal names one, its message starting with it ("name must be ..."). */
export const FIELDS: Readonly<Record<OperationName, readonly string[]>> = {
  create: ['name', 'endpoint', 'protocol', 'events'],
  update: ['config_id', 'configId', 'events'],
  activate: ['config_id', 'configId', 'status'],
  rename: ['config_id', 'configId', 'name'],
  delete: ['configId'],
  list: [],
};

/** What the message of each code must talk about, so that the caller knows what to fix. */
const CODE_MESSAGES: Readonly<Record<string, RegExp>> = {
  MALFORMED_JSON: /\bJSON\b/,
  MISSING_BODY: /\bbody\b/i,
  BODY_NOT_OBJECT: /\bobject\b/i,
  BODY_TOO_LARGE: /64 KiB/,
  UNSUPPORTED_CONTENT_TYPE: /content-type/i,
  SUBSCRIPTION_NOT_FOUND: /\bconfig_?[iI]d\b/,
  SUBSCRIPTION_LIMIT_REACHED: /\b(maximum|limit)\b/i,
  ENDPOINT_REFUSED: /\bendpoint\b/,
  ENDPOINT_IN_SERVICE_ACCOUNT: /\bendpoint\b.*\baccount\b/,
  ENDPOINT_NOT_PUBLIC: /\bendpoint's host\b.*\bpublic\b/,
  ENDPOINT_CREDENTIALS_OVER_HTTP: /\bendpoint\b.*\bhttp\b/,
  ALREADY_CONFIRMED: /\bconfirmed\b/,
  INVALID_IDEMPOTENCY_KEY: /\bIdempotency-Key header\b/,
  IDEMPOTENCY_KEY_REUSED: /\bIdempotency-Key\b/,
};

/** Text no message may hold (outside the quoted echo of the caller's own input). */
const FORBIDDEN_IN_MESSAGES: readonly (readonly [RegExp, string])[] = [
  [/\n\s*at\s|\bat\s+\S+\s+\(\S+:\d+:\d+\)|\S+\.(ts|js|mjs):\d+/, 'a stack trace'],
  // an actual ARN (with an account); "arn:aws:sqs:<region>:<account>:<queue>" only says what to send
  [/arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:\d{12}:/i, 'an ARN'],
  [/Zod|Invalid input|invalid_(type|union|value|format|key)|too_(small|big)|unrecognized_keys|expected (string|number|array|object), received/i, 'validator internals'],
  [/\bundefined\b|\bNaN\b|\[object \w+\]/, '"undefined", "NaN" or "[object ...]"'],
  [/TypeError|SyntaxError|RangeError|URIError|ReferenceError|Unexpected (token|end|non-whitespace)|at position \d+|\bposition \d+ \(line/, 'JavaScript error text'],
  [/Exception\b|DynamoDB|amazonaws|ConditionalCheck|TransactionCanceled|ValidationException|InvalidParameter|\$metadata|httpStatusCode/, 'AWS SDK text'],
  [/node_modules|file:\/\//, 'file paths'],
];

const GATEWAY_BODIES: Readonly<Record<number, string>> = {
  404: 'Not Found',
  413: 'Request Entity Too Large',
  431: 'Request Header Fields Too Large',
};

/**
 * API Gateway's limit on the request line and header values together (docs/local.md, "Calling the
 * API: good to know"): over it, its 431 before anything else. Long generated paths meet it.
 */
export const MAX_REQUEST_LINE_AND_HEADER_BYTES = 10_240;
/** What the harness adds to each request's headers (host, content-length, connection): fewer bytes than this. */
export const HARNESS_HEADER_BYTES = 100;

export type AnswerKind = 'accepted' | 'refused' | 'gateway' | 'overload';

export class HostileFailure extends Error {
  override readonly name: string = 'HostileFailure';
}

/** A 5xx that overload does not explain. */
export class ServiceFault extends HostileFailure {
  override readonly name = 'ServiceFault';
}

export function describeAnswer(answer: RawAnswer): string {
  const text = answer.text.length > 600 ? `${answer.text.slice(0, 600)}…` : answer.text;
  const retryAfter = answer.headers['retry-after'] === undefined ? '' : `, retry-after ${answer.headers['retry-after']}`;
  return `${answer.status} (${answer.headers['content-type'] ?? 'no content-type'}${retryAfter}) ${text}`;
}

function fail(request: HostileRequest, target: Target, answer: RawAnswer, why: string, Failure = HostileFailure): never {
  const blame = target.blame.length > 0 ? ` naming ${target.blame.join(' or ')}` : '';
  throw new Failure(
    `${why}\n  request: ${request.label}\n  sent to: ${JSON.stringify(target.path.slice(0, 300))}\n  expected: ${target.outcome}${blame}\n  answer: ${describeAnswer(answer)}`,
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isJson = (answer: RawAnswer) => /^application\/json\s*(;|$)/i.test(String(answer.headers['content-type'] ?? ''));

/** An answer of API Gateway itself: `{"message": ...}` and nothing else. */
function isGatewayAnswer(answer: RawAnswer): boolean {
  return isPlainObject(answer.json) && Object.keys(answer.json).length === 1 && typeof answer.json.message === 'string';
}

/** The message without the caller's own input that it quotes (JSON-quoted, e.g. an unknown event kind). */
const withoutEchoes = (message: string) => message.replace(/"(?:[^"\\]|\\.)*"/g, '""');

function checkGatewayAnswer(request: HostileRequest, target: Target, answer: RawAnswer, status: 404 | 413 | 431): void {
  if (answer.status !== status) fail(request, target, answer, `expected API Gateway's ${status}`);
  if (!isJson(answer) || !isGatewayAnswer(answer) || (answer.json as { message: string }).message !== GATEWAY_BODIES[status]) {
    fail(request, target, answer, `API Gateway's ${status} is {"message":"${GATEWAY_BODIES[status]}"}`);
  }
}

/**
 * A refusal by the handlers: 400 and exactly `{success: false, message, code}`, the message saying
 * what is wrong; a refusal of invalid fields (INVALID_REQUEST) also has `errors`, one `{field,
 * message}` per problem, every one of them named in `message`.
 */
function checkRefusal(request: HostileRequest, target: Target, answer: RawAnswer): void {
  if (answer.status !== 400) fail(request, target, answer, 'a refusal of the caller\'s input must be a 400');
  if (!isJson(answer)) fail(request, target, answer, 'the refusal is not application/json');
  const body = answer.json;
  if (!isPlainObject(body)) fail(request, target, answer, 'the refusal is not a JSON object');
  const { success, message, code } = body;
  const keys = Object.keys(body).sort().join(',');
  const expectedKeys = code === 'INVALID_REQUEST' ? 'code,errors,message,success' : 'code,message,success';
  if (keys !== expectedKeys) fail(request, target, answer, `the refusal must be exactly {${expectedKeys}}; it has ${keys}`);
  if (success !== false) fail(request, target, answer, 'success must be false');
  if (typeof message !== 'string' || message.trim().length < 10) fail(request, target, answer, 'the message must be a sentence');
  if (message.length > 2_000) fail(request, target, answer, 'the message is over 2000 characters');
  if (typeof code !== 'string' || !(KNOWN_CODES as readonly string[]).includes(code)) fail(request, target, answer, `unknown code ${String(code)}`);
  const own = withoutEchoes(message);
  for (const [pattern, what] of FORBIDDEN_IN_MESSAGES) {
    if (pattern.test(own)) fail(request, target, answer, `the message holds ${what}`);
  }
  let named: string[] = [];
  if (code === 'INVALID_REQUEST') {
    named = checkFieldErrors(request, target, answer, message, body.errors);
    const missed = (target.mustName ?? []).filter((group) => !group.some((field) => named.includes(field)));
    if (missed.length > 0) fail(request, target, answer, `the refusal does not name every problem: none of ${missed.map((group) => group.join('/')).join(', ')}`);
  } else if (!CODE_MESSAGES[code]!.test(message)) {
    fail(request, target, answer, `the message of ${code} does not say what is wrong (${CODE_MESSAGES[code]})`);
  }
  if (target.blame.length > 0 && !target.blame.some((blame) => names(blame, code, named))) {
    fail(request, target, answer, 'the refusal is for another reason than the ones the request has');
  }
}

/** Checks the `errors` of an INVALID_REQUEST refusal; returns the fields they name (`events[0]` as `events`). */
function checkFieldErrors(request: HostileRequest, target: Target, answer: RawAnswer, message: string, errors: unknown): string[] {
  const fields = FIELDS[request.operation];
  if (!Array.isArray(errors) || errors.length === 0) fail(request, target, answer, 'an INVALID_REQUEST refusal needs a non-empty errors array');
  const named: string[] = [];
  for (const [index, error] of errors.entries()) {
    if (!isPlainObject(error) || Object.keys(error).sort().join(',') !== 'field,message') {
      fail(request, target, answer, 'each entry of errors must be exactly {field, message}');
    }
    const { field, message: sentence } = error as { field: unknown; message: unknown };
    const match = typeof field === 'string' ? /^([A-Za-z_]+)(\[\d+\])?$/.exec(field) : null;
    if (!match || !fields.includes(match[1]!)) fail(request, target, answer, `errors[${index}].field must be one of ${fields.join(', ')}`);
    if (typeof sentence !== 'string' || !sentence.startsWith(`${field} `) || sentence.length < String(field).length + 5) {
      fail(request, target, answer, `errors[${index}].message must be a sentence about ${String(field)}, starting with it`);
    }
    const quoted = errors.length === 1 ? sentence : `(${index + 1}) ${sentence.replace(/\.$/, '')}`;
    if (!message.includes(quoted)) fail(request, target, answer, `the message does not name errors[${index}]`);
    named.push(match[1]!);
  }
  return named;
}

/** Whether a refusal names the blamed field (in its errors) or carries the blamed code. */
function names(blame: string, code: string, namedFields: readonly string[]): boolean {
  if (blame === ANY_FIELD) return code === 'INVALID_REQUEST';
  if (/^[A-Z_]+$/.test(blame)) return code === blame;
  // SNS's own refusal of an endpoint that passed validation names the endpoint too.
  if (code === 'ENDPOINT_REFUSED') return blame === 'endpoint';
  return namedFields.includes(blame);
}

function checkSuccess(request: HostileRequest, target: Target, answer: RawAnswer): void {
  if (answer.status !== 200) fail(request, target, answer, 'a valid request must be answered 200');
  if (!isJson(answer) || !isPlainObject(answer.json)) fail(request, target, answer, 'the answer is not a JSON object');
  if (answer.json.success !== true || typeof answer.json.message !== 'string' || answer.json.message === '') {
    fail(request, target, answer, 'a success is {success: true, message, ...}');
  }
}

/** Whether the handler may get past validation with this request and call DynamoDB or SNS. */
export function mayReachDependency(target: Target): boolean {
  return target.outcome === 'accept' || target.outcome === 'either' || (target.outcome === 'refuse' && target.dependencyRefusal === true);
}

/** A 5xx is overload only as the 503 envelope with Retry-After, to a request that reached a dependency; else a ServiceFault. */
function checkServerError(request: HostileRequest, target: Target, answer: RawAnswer): 'overload' {
  if (!isOverloadAnswer(answer)) {
    fail(request, target, answer, 'a fault: a 5xx that is not the overload answer (503 {success: false, message, code: SERVICE_UNAVAILABLE} with Retry-After)', ServiceFault);
  }
  if (!mayReachDependency(target)) {
    fail(request, target, answer, 'a fault: a 503 for a request that is refused before it reaches any dependency, which overload cannot explain', ServiceFault);
  }
  const message = (answer.json as { message: string }).message;
  for (const [pattern, what] of FORBIDDEN_IN_MESSAGES) {
    if (pattern.test(message)) fail(request, target, answer, `a fault: the 503 message holds ${what}`, ServiceFault);
  }
  return 'overload';
}

/** API Gateway's answer to a request line and headers over its limit, whatever else the request holds. */
export function checkHeadersTooLarge(request: HostileRequest, target: Target, answer: RawAnswer): AnswerKind {
  checkGatewayAnswer(request, target, answer, 431);
  return 'gateway';
}

/** Checks an answer against what the request must get; throws a HostileFailure describing both when it is not. */
export function checkAnswer(request: HostileRequest, target: Target, answer: RawAnswer): AnswerKind {
  if (answer.status >= 500) return checkServerError(request, target, answer);
  switch (target.outcome) {
    case 'no-route':
      checkGatewayAnswer(request, target, answer, 404);
      return 'gateway';
    case 'too-large':
      checkGatewayAnswer(request, target, answer, 413);
      return 'gateway';
    case 'too-large-or-no-route':
      checkGatewayAnswer(request, target, answer, answer.status === 404 ? 404 : 413);
      return 'gateway';
    case 'refuse-or-no-route':
      if (answer.status === 404 && isGatewayAnswer(answer)) {
        checkGatewayAnswer(request, target, answer, 404);
        return 'gateway';
      }
      checkRefusal(request, target, answer);
      return 'refused';
    case 'refuse':
      checkRefusal(request, target, answer);
      return 'refused';
    case 'accept':
      checkSuccess(request, target, answer);
      return 'accepted';
    case 'either':
      if (answer.status === 200) {
        checkSuccess(request, target, answer);
        return 'accepted';
      }
      checkRefusal(request, target, answer);
      return 'refused';
  }
}
