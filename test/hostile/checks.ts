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
import { type AnswerKind, checkAnswer, checkHeadersTooLarge, describeAnswer, HARNESS_HEADER_BYTES, HostileFailure, MAX_REQUEST_LINE_AND_HEADER_BYTES, ServiceFault } from './answer-checks';
import { type HostileHarness, retryAfterMs } from './harness';
import type { RawAnswer } from './raw-http';
import type { HostileRequest, Ids, OperationName, Outcome, Target } from './requests';
import type { Snapshot } from './snapshot';
import { describeChanges, expectWellFormedStrings, PROTOTYPES_AT_START, prototypeShape, sameState } from './state-checks';
import { Tally } from './tally';

export { checkAnswer, describeAnswer, FIELDS, HostileFailure, KNOWN_CODES, mayReachDependency, ServiceFault, type AnswerKind } from './answer-checks';
export { Tally } from './tally';
export { describeChanges, expectState, expectWellFormedStrings, sameState } from './state-checks';

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
