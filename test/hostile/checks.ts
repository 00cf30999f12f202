/**
 * What every answer to a hostile request must be, and the batch runner of the hostile-input
 * suite: refusals go out concurrently and must leave the table and SNS exactly as they were;
 * requests that may be accepted go one at a time, each checked for exactly the change it asks
 * for (and cleaned up by the operation's driver).
 *
 * A 5xx is either overload or a fault. Overload: the 503 `SERVICE_UNAVAILABLE` envelope with
 * `Retry-After`, for a request that got past validation to DynamoDB or SNS (on a loaded machine
 * DynamoDB Local can miss the SDK's 1.5 s budget). A fault: any other 5xx, or a 503 for a request
 * refused before it reached a dependency. Overload answers are counted; a fault fails the suite.
 */
import { randomUUID } from 'node:crypto';
import { type HostileHarness, isOverloadAnswer, type RawAnswer, retryAfterMs, type Snapshot } from './harness';
import { ANY_FIELD, type HostileRequest, type Ids, type OperationName, type Outcome, type Target } from './requests';

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
const MAX_REQUEST_LINE_AND_HEADER_BYTES = 10_240;
/** What the harness adds to each request's headers (host, content-length, connection): fewer bytes than this. */
const HARNESS_HEADER_BYTES = 100;

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

function isPlainObject(value: unknown): value is Record<string, unknown> {
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
function checkHeadersTooLarge(request: HostileRequest, target: Target, answer: RawAnswer): AnswerKind {
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

// ---------------------------------------------------------------------------------------------
// Counting answers
// ---------------------------------------------------------------------------------------------

const OVERLOAD_KEY = '503 SERVICE_UNAVAILABLE (overload)';
const FAULT_KEY = ' (fault)';

export class Tally {
  private readonly counts = new Map<OperationName, Map<string, number>>();

  add(operation: OperationName, kind: AnswerKind, answer: RawAnswer): void {
    const code = isPlainObject(answer.json) && typeof answer.json.code === 'string' ? answer.json.code : '';
    const key =
      kind === 'gateway' ? `${answer.status} API Gateway` : kind === 'refused' ? `${answer.status} ${code}` : kind === 'overload' ? OVERLOAD_KEY : `${answer.status}`;
    this.count(operation, key);
  }

  /** An answer that failed the suite as a ServiceFault. */
  addFault(operation: OperationName, answer: RawAnswer): void {
    this.count(operation, `${answer.status}${FAULT_KEY}`);
  }

  overloads(operation: OperationName): number {
    return this.counts.get(operation)?.get(OVERLOAD_KEY) ?? 0;
  }

  faults(operation: OperationName): number {
    return [...(this.counts.get(operation) ?? [])].filter(([key]) => key.endsWith(FAULT_KEY)).reduce((sum, [, count]) => sum + count, 0);
  }

  private count(operation: OperationName, key: string): void {
    const counts = this.counts.get(operation) ?? new Map<string, number>();
    counts.set(key, (counts.get(key) ?? 0) + 1);
    this.counts.set(operation, counts);
  }

  requests(operation: OperationName): number {
    return [...(this.counts.get(operation)?.values() ?? [])].reduce((sum, count) => sum + count, 0);
  }

  byStatus(operation: OperationName): Record<string, number> {
    const byStatus: Record<string, number> = {};
    for (const [key, count] of this.counts.get(operation) ?? []) {
      const status = key.endsWith('API Gateway') ? key : key.split(' ')[0]!;
      byStatus[status] = (byStatus[status] ?? 0) + count;
    }
    return byStatus;
  }

  format(): string {
    const lines: string[] = [];
    for (const [operation, counts] of this.counts) {
      const detail = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => `${key}: ${count}`);
      lines.push(`${operation} (${this.requests(operation)} requests; overload ${this.overloads(operation)}, faults ${this.faults(operation)}): ${detail.join(', ')}`);
    }
    return lines.join('\n');
  }
}

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

/** What changed between two snapshots, for failure messages. */
export function describeChanges(before: Snapshot, after: Snapshot): string {
  const lines: string[] = [];
  for (const key of new Set([...Object.keys(before.items), ...Object.keys(after.items)])) {
    const was = before.items[key];
    const is = after.items[key];
    if (was === is) continue;
    lines.push(was === undefined ? `  + item ${key}: ${is}` : is === undefined ? `  - item ${key}` : `  ~ item ${key}: ${was} -> ${is}`);
  }
  const diff = (name: string, was: readonly string[], is: readonly string[]) => {
    for (const entry of is) if (!was.includes(entry)) lines.push(`  + ${name} ${entry}`);
    for (const entry of was) if (!is.includes(entry)) lines.push(`  - ${name} ${entry}`);
  };
  diff('topic', before.topics, after.topics);
  diff('SNS subscription', before.subscriptions, after.subscriptions);
  return lines.join('\n');
}

export function sameState(a: Snapshot, b: Snapshot): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function expectState(actual: Snapshot, expected: Snapshot, what: string): void {
  if (!sameState(actual, expected)) throw new HostileFailure(`${what}:\n${describeChanges(expected, actual)}`);
}

/** Every string stored is valid Unicode (DynamoDB and SNS carry UTF-8). */
export function expectWellFormedStrings(snapshot: Snapshot): void {
  const visit = (value: unknown, where: string): void => {
    if (typeof value === 'string') {
      if (!value.isWellFormed()) throw new HostileFailure(`${where} holds a string that is not valid Unicode: ${JSON.stringify(value.slice(0, 100))}`);
    } else if (Array.isArray(value)) value.forEach((entry, index) => visit(entry, `${where}[${index}]`));
    else if (isPlainObject(value)) for (const [key, entry] of Object.entries(value)) visit(entry, `${where}.${key}`);
  };
  for (const [key, item] of Object.entries(snapshot.items)) visit(JSON.parse(item), `item ${key}`);
  for (const subscription of snapshot.subscriptions) visit(JSON.parse(subscription), 'SNS subscription');
}

/** The own property names of the built-in prototypes (the handlers run in this process). */
function prototypeShape(): string {
  const values = { polluted: ({} as Record<string, unknown>).polluted, isAdmin: ({} as Record<string, unknown>).isAdmin };
  return JSON.stringify([
    Object.getOwnPropertyNames(Object.prototype).sort(),
    Object.getOwnPropertyNames(Array.prototype).sort(),
    Object.getOwnPropertyNames(Function.prototype).sort(),
    values,
  ]);
}
const PROTOTYPES_AT_START = prototypeShape();

// ---------------------------------------------------------------------------------------------
// The batch runner
// ---------------------------------------------------------------------------------------------

/** What the runner needs to know about an operation. */
export interface OperationDriver {
  readonly operation: OperationName;
  readonly token: string;
  /** The portal's ids now. */
  ids(): Ids;
  /** Whether accepted requests change nothing (list): then all requests run concurrently. */
  readonly readOnly: boolean;
  /**
   * Checks an accepted request's answer and its effect on the state (`before` → now), puts
   * things back where they must be (e.g. deletes what create made) and returns the state then.
   */
  accepted(request: HostileRequest, answer: RawAnswer, before: Snapshot): Promise<Snapshot>;
  /** Checks of the state every batch starts from (e.g. the seeds byte for byte). */
  checkStart(state: Snapshot): void;
}

/**
 * How often a request that may change state is sent while the service answers overload: its
 * first attempt may have done part of its work, and only repeating it (as a client would, after
 * Retry-After) tells what the request does. Bounded in count; each wait by retryAfterMs.
 */
const ATTEMPTS_WHILE_OVERLOADED = 4;

const REFUSALS: ReadonlySet<Outcome> = new Set(['refuse', 'refuse-or-no-route', 'no-route', 'too-large', 'too-large-or-no-route']);
/** Outcomes API Gateway can decide from the headers, before reading the body. */
const EARLY_ANSWERS: ReadonlySet<Outcome> = new Set(['no-route', 'too-large', 'too-large-or-no-route', 'refuse-or-no-route']);

/** The request line and the header values this request goes out with, in bytes, but for what the harness adds. */
function requestLineAndHeaderBytes(driver: OperationDriver, request: HostileRequest, target: Target): number {
  const key = request.idempotencyKey ? [request.idempotencyKey.value + (request.idempotencyKey.unique ? randomUUID() : '')] : [];
  const values = [...Object.values(request.headers), `Bearer ${driver.token}`, ...key];
  return values.reduce((bytes, value) => bytes + Buffer.byteLength(value), Buffer.byteLength(`${request.method} ${target.path} HTTP/1.1`));
}

/** Whether API Gateway may answer 431 (headers near the limit), and whether it must (over it). */
function headerLimit(driver: OperationDriver, request: HostileRequest, target: Target): { may: boolean; must: boolean } {
  const bytes = requestLineAndHeaderBytes(driver, request, target);
  return { may: bytes + HARNESS_HEADER_BYTES > MAX_REQUEST_LINE_AND_HEADER_BYTES, must: bytes > MAX_REQUEST_LINE_AND_HEADER_BYTES };
}

async function send(harness: HostileHarness, driver: OperationDriver, request: HostileRequest, target: Target): Promise<RawAnswer> {
  try {
    return await harness.send({
      method: request.method,
      path: target.path,
      headers: {
        ...request.headers,
        authorization: `Bearer ${driver.token}`,
        ...(request.idempotencyKey ? { 'idempotency-key': request.idempotencyKey.value + (request.idempotencyKey.unique ? randomUUID() : '') } : {}),
      },
      body: request.body(),
      chunked: request.chunked,
      expectEarlyAnswer: EARLY_ANSWERS.has(target.outcome) || headerLimit(driver, request, target).may,
    });
  } catch (error) {
    throw new HostileFailure(`no answer: ${(error as Error).message}\n  request: ${request.label}`);
  }
}

/** checkAnswer, counting the answer (a fault too, before it fails the suite). */
function checked(driver: OperationDriver, tally: Tally, request: HostileRequest, target: Target, answer: RawAnswer): AnswerKind {
  try {
    const limit = headerLimit(driver, request, target);
    const kind = limit.must || (limit.may && answer.status === 431) ? checkHeadersTooLarge(request, target, answer) : checkAnswer(request, target, answer);
    tally.add(driver.operation, kind, answer);
    return kind;
  } catch (error) {
    if (error instanceof ServiceFault) tally.addFault(driver.operation, answer);
    throw error;
  }
}

/**
 * Sends a request that may change state; while it is answered overload, again after
 * Retry-After, at most ATTEMPTS_WHILE_OVERLOADED times in all.
 */
async function sendUntilNotOverloaded(harness: HostileHarness, driver: OperationDriver, tally: Tally, request: HostileRequest) {
  for (let attempt = 1; ; attempt++) {
    const target = request.target(driver.ids());
    const answer = await send(harness, driver, request, target);
    const kind = checked(driver, tally, request, target, answer);
    if (kind !== 'overload') return { target, answer, kind };
    if (attempt >= ATTEMPTS_WHILE_OVERLOADED) {
      throw new HostileFailure(`answered overload ${attempt} times in a row; what the request did is unknown\n  request: ${request.label}\n  answer: ${describeAnswer(answer)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs(answer)));
  }
}

/**
 * Runs one batch: the requests that must be refused (or cannot change anything) concurrently,
 * then the table and SNS must be exactly as before; then the others one at a time, each
 * checked by the driver. Counts every answer in `tally`.
 */
export async function runBatch(harness: HostileHarness, driver: OperationDriver, tally: Tally, requests: readonly HostileRequest[]): Promise<void> {
  const before = await harness.snapshot();
  driver.checkStart(before);
  const ids = driver.ids();
  const resolved = requests.map((request) => ({ request, target: request.target(ids) }));
  const concurrent = resolved.filter(({ target }) => driver.readOnly || REFUSALS.has(target.outcome));
  const sequential = resolved.filter((entry) => !concurrent.includes(entry));

  const answers = await Promise.all(concurrent.map(({ request, target }) => send(harness, driver, request, target)));
  for (const [index, { request, target }] of concurrent.entries()) {
    const answer = answers[index]!;
    // An overload answer here is to a request that changes nothing: the state check below holds for it too.
    const kind = checked(driver, tally, request, target, answer);
    if (kind === 'accepted') await driver.accepted(request, answer, before);
  }
  let state = await harness.snapshot();
  if (!sameState(state, before)) {
    throw new HostileFailure(
      `requests that had to be refused changed the table or SNS:\n${describeChanges(before, state)}\n  requests:\n${concurrent.map(({ request }) => `    ${request.label}`).join('\n')}`,
    );
  }
  if (prototypeShape() !== PROTOTYPES_AT_START) throw new HostileFailure(`a built-in prototype changed during:\n${requests.map((request) => `  ${request.label}`).join('\n')}`);

  for (const { request } of sequential) {
    const { answer, kind } = await sendUntilNotOverloaded(harness, driver, tally, request);
    if (kind === 'accepted') {
      state = await driver.accepted(request, answer, state);
      expectWellFormedStrings(state);
    } else {
      const now = await harness.snapshot();
      if (!sameState(now, state)) {
        throw new HostileFailure(`a refused request changed the table or SNS:\n${describeChanges(state, now)}\n  request: ${request.label}\n  answer: ${describeAnswer(answer)}`);
      }
    }
    if (prototypeShape() !== PROTOTYPES_AT_START) throw new HostileFailure(`a built-in prototype changed during: ${request.label}`);
  }
}
