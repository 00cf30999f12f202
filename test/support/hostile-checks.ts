/**
 * What every answer to a hostile request must be, and the batch runner of the hostile-input
 * suite: refusals go out concurrently and must leave the table and SNS exactly as they were;
 * requests that may be accepted go one at a time, each checked for exactly the change it asks
 * for (and cleaned up by the operation's driver).
 */
import { randomUUID } from 'node:crypto';
import type { HostileHarness, RawAnswer, Snapshot } from './hostile-harness';
import { ANY_FIELD, type HostileRequest, type Ids, type OperationName, type Outcome, type Target } from './hostile-requests';

/** Every code a refusal of the handlers may carry (README "Values decided"). */
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

const GATEWAY_BODIES: Readonly<Record<number, string>> = { 404: 'Not Found', 413: 'Request Entity Too Large' };

export type AnswerKind = 'accepted' | 'refused' | 'gateway';

export class HostileFailure extends Error {
  override readonly name = 'HostileFailure';
}

export function describeAnswer(answer: RawAnswer): string {
  const text = answer.text.length > 600 ? `${answer.text.slice(0, 600)}…` : answer.text;
  return `${answer.status} (${answer.headers['content-type'] ?? 'no content-type'}) ${text}`;
}

function fail(request: HostileRequest, target: Target, answer: RawAnswer, why: string): never {
  const blame = target.blame.length > 0 ? ` naming ${target.blame.join(' or ')}` : '';
  throw new HostileFailure(
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

function checkGatewayAnswer(request: HostileRequest, target: Target, answer: RawAnswer, status: 404 | 413): void {
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

/** Checks an answer against what the request must get; throws a HostileFailure describing both when it is not. */
export function checkAnswer(request: HostileRequest, target: Target, answer: RawAnswer): AnswerKind {
  if (answer.status >= 500) fail(request, target, answer, 'a 5xx answer to a request from a caller');
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

export class Tally {
  private readonly counts = new Map<OperationName, Map<string, number>>();

  add(operation: OperationName, kind: AnswerKind, answer: RawAnswer): void {
    const code = isPlainObject(answer.json) && typeof answer.json.code === 'string' ? answer.json.code : '';
    const key = kind === 'gateway' ? `${answer.status} API Gateway` : kind === 'refused' ? `${answer.status} ${code}` : `${answer.status}`;
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
      lines.push(`${operation} (${this.requests(operation)} requests): ${detail.join(', ')}`);
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

const REFUSALS: ReadonlySet<Outcome> = new Set(['refuse', 'refuse-or-no-route', 'no-route', 'too-large', 'too-large-or-no-route']);
/** Outcomes API Gateway can decide from the headers, before reading the body. */
const EARLY_ANSWERS: ReadonlySet<Outcome> = new Set(['no-route', 'too-large', 'too-large-or-no-route', 'refuse-or-no-route']);

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
      expectEarlyAnswer: EARLY_ANSWERS.has(target.outcome),
    });
  } catch (error) {
    throw new HostileFailure(`no answer: ${(error as Error).message}\n  request: ${request.label}`);
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
    const kind = checkAnswer(request, target, answer);
    tally.add(driver.operation, kind, answer);
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
    const target = request.target(driver.ids());
    const answer = await send(harness, driver, request, target);
    const kind = checkAnswer(request, target, answer);
    tally.add(driver.operation, kind, answer);
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
