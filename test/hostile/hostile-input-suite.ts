/**
 * The hostile-input suites' body (hostile-input.test.ts says what they check): a stack of their
 * own, seeded, then each operation given over 1,000 generated requests. The operations are
 * shared between two suites so that jest runs them side by side.
 */
import fc from 'fast-check';
import { runBatch, Tally } from './checks';
import { driverFor } from './drivers';
import { generatorIds, protectedItems, type Seeding, seedPortals, seedTopicArns } from './seeding';
import { type HostileHarness, startHostileHarness } from './harness';
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
} from './requests';

/** Requests in flight at once. */
const BATCH = 8;
/** Batches per operation: 128 × 8 = 1,024 requests. */
const RUNS = 128;
const MIN_REQUESTS_PER_OPERATION = 1_000;
/**
 * Only a guard against a hang: the properties are bounded in count (RUNS batches, no shrinking,
 * bounded retries) and every request in time (the harness's answer timeout). On an idle machine
 * an operation takes 10-30 s; beside a CPU and disk hog up to about 90 s.
 */
const OPERATION_HANG_GUARD_MS = 600_000;

const GENERATORS: Readonly<Record<OperationName, (ids: GeneratorIds) => fc.Arbitrary<HostileRequest>>> = {
  create: () => createRequests(),
  update: updateRequests,
  activate: activateRequests,
  list: () => listRequests(),
  rename: renameRequests,
  delete: deleteRequests,
};

/** Adds the suite's hooks and one test per operation, in the order given. */
export function describeHostileInput(operations: readonly OperationName[]): void {
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
  }, 300_000);

  afterAll(async () => {
    // The counts the issues ask about: answers by status (and code), overload and faults apart, per operation.
    console.log(
      `hostile-input answers by status:\n${tally.format()}\nbig uploads sent again after a reset: ${harness?.uploadRetries() ?? 0}` +
        `\nseeding and clean-up calls sent again after an overload answer: ${harness?.apiOverloadRetries() ?? 0}` +
        `\nrequests sent again after the gateway had closed their kept-alive connection: ${harness?.staleConnectionRetries() ?? 0}`,
    );
    await harness?.stop();
  }, 60_000);

  describe('hostile input over HTTP against the local stack', () => {
    it.each(operations)(
      '%s: over 1,000 generated requests, no 5xx but the overload answer, every refusal the error envelope naming what is wrong, refusals change nothing',
      async (operation) => {
        const stack = harness!;
        const driver = driverFor(operation, { harness: stack, seeding, protectedItems: protectedState });
        const requests = GENERATORS[operation](generatorIds(seeding, operation));
        const sentBefore = tally.requests(operation);

        // No time limit on the property: cut short on a loaded machine, it would leave its portal
        // half-changed for the next operation. A failure ends the run at once
        // (no shrinking against the live stack); its message names the request that failed.
        await fc.assert(
          fc.asyncProperty(fc.array(requests, { minLength: BATCH, maxLength: BATCH }), (batch) => runBatch(stack, driver, tally, batch)),
          { numRuns: RUNS, endOnFailure: true },
        );

        expect(tally.requests(operation) - sentBefore).toBeGreaterThanOrEqual(MIN_REQUESTS_PER_OPERATION);
        // Every portal's seeds and counters byte for byte as they were, and their topics' attributes and tags.
        driver.checkStart(await stack.snapshot());
        expect(await stack.topicDetails(seedTopicArns(seeding))).toEqual(seedTopics);
      },
      OPERATION_HANG_GUARD_MS,
    );
  });
}
