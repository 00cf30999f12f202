/**
 * Hostile input (the "Trust" issue), over HTTP against the local stack, the way a caller
 * reaches the service: for each of the six operations, over 1,000 generated requests with
 * wrong types, missing and extra fields (`__proto__`, `constructor`, `prototype` written
 * literally), empty and huge strings, Unicode (astral, combining, RTL, lone surrogates),
 * control characters, non-JSON bodies, wrong content types, oversized bodies (past 64 KiB,
 * past 1 MB, a few past API Gateway's 10 MB), ids with slashes, `..`, `%2F`, `%00`, double
 * encodings, Unicode and great length; and valid requests among them.
 *
 * For every answer: never a 5xx. Every refusal by the handlers is a 400 with exactly
 * `{success: false, message, code}` whose message names the field or says what is wrong,
 * without internals. API Gateway's own answers (404 for a path no route matches, 413 past
 * 10 MB) come only where API Gateway would give them. A refused request changes nothing: the
 * whole table (every portal, byte for byte) and every topic and SNS subscription of the
 * emulator are compared before and after. An accepted one changes exactly what it asks for.
 *
 * Generators: support/hostile-requests.ts (with the expected outcome of each request);
 * checks and the runner: support/hostile-checks.ts; per-operation state: support/hostile-drivers.ts.
 */
import fc from 'fast-check';
import { runBatch, Tally } from './support/hostile-checks';
import { driverFor, generatorIds, protectedItems, type Seeding, seedPortals, seedTopicArns } from './support/hostile-drivers';
import { type HostileHarness, OPERATION_NAMES, startHostileHarness } from './support/hostile-harness';
import {
  activateRequests,
  createRequests,
  deleteRequests,
  type GeneratorIds,
  type HostileRequest,
  listRequests,
  type OperationName,
  renameRequests,
  updateRequests,
} from './support/hostile-requests';

/** Requests in flight at once. */
const BATCH = 8;
/** Batches per operation: 128 × 8 = 1,024 requests. */
const RUNS = 128;
const MIN_REQUESTS_PER_OPERATION = 1_000;
/** Bounds one operation's property, shrinking included (a passing one takes about 4-10 s). */
const PROPERTY_TIME_LIMIT_MS = 45_000;

const GENERATORS: Readonly<Record<OperationName, (ids: GeneratorIds) => fc.Arbitrary<HostileRequest>>> = {
  create: () => createRequests(),
  update: updateRequests,
  activate: activateRequests,
  list: () => listRequests(),
  rename: renameRequests,
  delete: deleteRequests,
};

let harness: HostileHarness | undefined;
let seeding: Seeding;
let protectedState: Record<string, string>;
let seedTopics: Record<string, unknown>;
const tally = new Tally();

beforeAll(async () => {
  harness = await startHostileHarness();
  seeding = await seedPortals(harness);
  protectedState = protectedItems(seeding, await harness.snapshot());
  seedTopics = await harness.topicDetails(seedTopicArns(seeding));
}, 120_000);

afterAll(async () => {
  // The counts the issue asks about: answers by status (and code), per operation.
  console.log(`hostile-input answers by status:\n${tally.format()}\nbig uploads sent again after a reset: ${harness?.uploadRetries() ?? 0}`);
  await harness?.stop();
}, 60_000);

describe('hostile input over HTTP against the local stack', () => {
  it.each(OPERATION_NAMES)(
    '%s: over 1,000 generated requests, never a 5xx, every refusal the §3 envelope naming what is wrong, refusals change nothing',
    async (operation) => {
      const stack = harness!;
      const driver = driverFor(operation, { harness: stack, seeding, protectedItems: protectedState });
      const requests = GENERATORS[operation](generatorIds(seeding, operation));
      const sentBefore = tally.requests(operation);

      await fc.assert(
        fc.asyncProperty(fc.array(requests, { minLength: BATCH, maxLength: BATCH }), (batch) => runBatch(stack, driver, tally, batch)),
        { numRuns: RUNS, plugins: [fc.interruptAfterTimeLimit(PROPERTY_TIME_LIMIT_MS, { failOnInterrupt: true })] },
      );

      expect(tally.requests(operation) - sentBefore).toBeGreaterThanOrEqual(MIN_REQUESTS_PER_OPERATION);
      // Every portal's seeds and counters byte for byte as they were, and their topics' attributes and tags.
      driver.checkStart(await stack.snapshot());
      expect(await stack.topicDetails(seedTopicArns(seeding))).toEqual(seedTopics);
    },
    75_000,
  );
});
