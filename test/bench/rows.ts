/**
 * The table's rows, measured: one per function beside its floor (bundle size, module load,
 * first and warm invocations, AWS calls) and beside the CDK's default build of it (cold start),
 * then list's and the dispatcher's scaling rows.
 */
import { statSync } from 'node:fs';
import type { Bundles } from './build';
import { dispatchBatch, listEvent } from './events';
import { eventsFor, makeFixtures, messagesPageEvent, queryPagesOf, type Fixtures } from './fixtures';
import type { BundleProcesses, CallCount, Turns } from './invocations';
import { dispatchLabel, type BenchPlan, type FunctionName, type Side } from './plan';
import { log } from './progress';
import { RECOVERY_LABEL, recoveryRow } from './recovery';
import type { Services } from './services';
import { pairedFigures, warmPairs } from './statistics';
import type { Pair, Row } from './table';
import { ATTEMPTS_PER_EVENT, FORWARDED_PER_BATCH, MINIMUM_CALLS, RECORDED_PER_BATCH, REPLAYED_PER_INVOCATION, TARGETS } from './targets';

/** What an invocation of these rows does, since their calls grow with it. */
const ROW_NOTES: Partial<Record<FunctionName, string>> = {
  replayDeadLetters: `${REPLAYED_PER_INVOCATION} dead letters per invocation: 1 Query, then per message 1 UpdateItem claiming it, 1 Publish and 1 TransactWriteItems removing it; 1 UpdateItem: the portal's rate limit`,
  createSubscription: "1 UpdateItem: the portal's rate limit (every floor makes it too: its cost is one such call, half the rename row)",
  testFilter: "1 UpdateItem: the portal's rate limit, its one AWS call (its floor makes it too)",
  testSubscription: "1 UpdateItem: the portal's rate limit (every floor makes it too: its cost is one such call, half the rename row)",
  renameSubscription: "2 UpdateItem: the portal's rate limit and the record's name",
  confirmSubscription: "2 UpdateItem: the portal's rate limit, and the confirmation request's turn (its floor makes both)",
  listSubscriptions: 'each entry\'s health (lastDeliveredAt, lastFailedAt, 24-hour counts) is read off its record in the same Query: no call per entry; 1 UpdateItem: the portal\'s rate limit',
  recordDeliveryAttempts: `a subscription event of ${ATTEMPTS_PER_EVENT} delivery status records per invocation: 1 ListTagsForResource, 1 GetItem, 1 TransactWriteItems`,
  forwardDeadLetters: `a batch of ${FORWARDED_PER_BATCH} dead letters per invocation, sent on in 1 SendMessageBatch`,
  recordDeadLetters: `a batch of ${RECORDED_PER_BATCH} dead letters per invocation: 1 write (TransactWriteItems) each, 1 GetItem per subscription`,
  recoverMessages: '1 SendMessage: its first job on the recovery queue (SQS, counted at the SQS stand-in)',
};

/**
 * Rows whose warm time is not judged, and why (none now: test-filter, which calls nothing else,
 * takes its portal's token as its floor does, so its warm time is judged against that call).
 */
const WARM_UNTARGETED: Partial<Record<FunctionName, string>> = {};

/** The HTTP functions' timeout (infra/aws/webhook-subscriptions-stack.ts), and what the list scaling rows get instead. */
const DEPLOYED_TIMEOUT_MS = 10_000;
const SCALING_TIMEOUT_MS = 5 * 60_000;

/** A function's measurements: its turns beside its floor's, and its counted calls. */
interface Run {
  fn: Turns;
  floor: Turns;
  calls: CallCount;
}

interface Context {
  plan: BenchPlan;
  bundles: Bundles;
  processes: BundleProcesses;
  services: Services;
  fixtures: Fixtures;
}

export interface Measured {
  rows: Row[];
  /** Scaling rows that failed, with why: the rest of the table is still printed. */
  unmeasured: string[];
}

export async function measureRows(plan: BenchPlan, bundles: Bundles, processes: BundleProcesses, services: Services): Promise<Measured> {
  const loads = await measureLoads(plan, processes, services.env);
  log('making fixtures');
  const fixtures = await makeFixtures(plan, services.documentClient);
  const context: Context = { plan, bundles, processes, services, fixtures };
  const { rows, mainRuns } = await functionRows(context, loads);
  // After the functions' own rows: DynamoDB Local has served each kind of request by then.
  const coldStarts = await coldStartsBesideCdkDefault(context);
  for (const row of rows) row.coldStartMs = coldStarts.get(row.label as FunctionName);
  const unmeasured: string[] = [];
  if (plan.measures('listSubscriptions')) rows.push(...(await listScalingRows(context, mainRuns.get('listSubscriptions')!, unmeasured)));
  if (plan.measures('dispatchPortalEvents')) rows.push(...(await dispatchScalingRows(context, mainRuns.get('dispatchPortalEvents')!, unmeasured)));
  if (plan.measures('listMessages')) rows.push(...(await messagesScalingRows(context, unmeasured)));
  if (plan.measures('recoverMessages')) {
    try {
      rows.push(await recoveryRow(services.documentClient, fixtures, plan.iterations.recoveryTurns));
    } catch (error) {
      unmeasured.push(`${RECOVERY_LABEL}: ${(error as Error).message.slice(0, 500)}`);
    }
  }
  return { rows, unmeasured };
}

const loadKey = (side: Side, name: FunctionName) => `${side}/${name}`;

/**
 * Module load in load-only processes: rounds over every bundle, so a burst of load from other
 * work on the machine falls on functions and floors alike; function and floor take turns at
 * going first, since a process started right after another (still exiting) loads slower on 2 cores.
 */
async function measureLoads({ iterations, functions }: BenchPlan, processes: BundleProcesses, env: Record<string, string>): Promise<Map<string, number[]>> {
  log(iterations.loads > 0 ? `module load: ${iterations.loads} fresh processes per bundle` : 'module load: read off the invocation runs');
  const loads = new Map<string, number[]>();
  for (let round = 0; round < iterations.loads; round++) {
    for (const { name } of functions) {
      for (const side of round % 2 === 0 ? (['function', 'floor'] as const) : (['floor', 'function'] as const)) {
        const loadMs = await processes.load(side, name, env);
        loads.set(loadKey(side, name), [...(loads.get(loadKey(side, name)) ?? []), loadMs]);
      }
    }
  }
  return loads;
}

/**
 * Each function's cold start beside the CDK's default build of it: fresh processes invoked once
 * each, in rounds over every function (a burst of load from other work on the machine falls on
 * all of them, not on one function's row), the default build going first in every other round.
 * Answers each side's median and the median of the rounds' ratios.
 */
async function coldStartsBesideCdkDefault({ plan, processes, services, fixtures }: Context): Promise<Map<FunctionName, Pair>> {
  const { coldStarts: rounds } = plan.iterations;
  log(`cold starts: ${rounds} rounds over every function, beside the default CDK build`);
  const starts = new Map(plan.functions.map(({ name }) => [name, { function: [] as number[], cdkDefault: [] as number[] }]));
  for (let round = 0; round < rounds; round++) {
    for (const { name } of plan.functions) {
      for (const kind of round % 2 === 0 ? (['cdkDefault', 'function'] as const) : (['function', 'cdkDefault'] as const)) {
        const [event] = await eventsFor(name, 1, fixtures, plan);
        starts.get(name)![kind].push(await processes.coldStart(kind, name, event, services.env));
      }
    }
  }
  return new Map([...starts].map(([name, sides]) => [name, pairedFigures(sides.function, sides.cdkDefault)]));
}

/** A row per function; list's and the dispatcher's runs are also the first row of their scaling. */
async function functionRows({ plan, bundles, processes, services, fixtures }: Context, loads: Map<string, number[]>): Promise<{ rows: Row[]; mainRuns: Map<FunctionName, Run> }> {
  const { iterations } = plan;
  const { env } = services;
  const rows: Row[] = [];
  const mainRuns = new Map<FunctionName, Run>();
  for (const { name } of plan.functions) {
    log(`${name}: ${iterations.warm} warm invocations each, in ${iterations.blocks} turns`);
    const events = (count: number) => eventsFor(name, count, fixtures, plan);
    const turns = await processes.invokeInTurns(name, { warm: iterations.warm, blocks: iterations.blocks, events }, () => env);
    const calls = await processes.countCalls(name, await events(iterations.counted), env, services.counters);
    // Every fresh process times its import() the same way: the invocation runs' loads join the load-only ones.
    for (const side of ['function', 'floor'] as const) loads.set(loadKey(side, name), [...(loads.get(loadKey(side, name)) ?? []), ...turns[side].loadsMs]);
    const { function: fn, floor } = turns;
    mainRuns.set(name, { fn, floor, calls });
    rows.push({
      label: name,
      bundleBytes: { function: statSync(bundles.path('function', name)).size, floor: statSync(bundles.path('floor', name)).size },
      loadMs: pairedFigures(loads.get(loadKey('function', name))!, loads.get(loadKey('floor', name))!),
      firstMs: pairedFigures(fn.firstsMs, floor.firstsMs),
      ...warmPairs(fn.warmBlocksMs, floor.warmBlocksMs),
      calls: calls.calls,
      wireRequests: calls.wireRequests,
      minimum: MINIMUM_CALLS[name]!({
        records: iterations.listScale[0]!,
        queryPages: name === 'listSubscriptions' ? await queryPagesOf(services.documentClient, fixtures.listPortals.get(iterations.listScale[0]!)!) : 0,
        dispatch: iterations.dispatchShapes[0]!,
      }),
      ...(ROW_NOTES[name] && { note: ROW_NOTES[name] }),
      ...(WARM_UNTARGETED[name] && { untargeted: WARM_UNTARGETED[name] }),
    });
  }
  return { rows, mainRuns };
}

/** List at each size of its scale (every endpoint confirmed: its Query pages alone): a few invocations each, and one counted. */
async function listScalingRows({ plan, processes, services, fixtures }: Context, mainRun: Run, unmeasured: string[]): Promise<Row[]> {
  const { listScale, listTurns } = plan.iterations;
  const rows: Row[] = [];
  const perRecordMs = new Map<number, { function: number; floor: number }>();
  const warmRatios = new Map<number, Pair>();
  for (const size of listScale) {
    try {
      let run = mainRun;
      if (size !== listScale[0]) {
        const { warm, blocks } = listTurns[listScale.indexOf(size) - 1]!;
        log(`list at ${size} records: ${warm} warm invocations each, in ${blocks} turns`);
        const events = (count: number) => Array.from({ length: count }, () => listEvent(fixtures.listPortals.get(size)!));
        // Timed past the deployed timeout, so a portal too large for it still gets a figure.
        const scaleEnv = { ...services.env, BENCH_TIMEOUT_MS: String(SCALING_TIMEOUT_MS) };
        // No warm-up block: each invocation of the largest portal takes seconds, and list's own row warmed its Query.
        const turns = await processes.invokeInTurns('listSubscriptions', { warm, blocks, events: async (count) => events(count), warmUp: false }, () => scaleEnv);
        run = { fn: turns.function, floor: turns.floor, calls: await processes.countCalls('listSubscriptions', events(1), scaleEnv, services.counters, 1) };
      }
      const warm = warmPairs(run.fn.warmBlocksMs, run.floor.warmBlocksMs);
      perRecordMs.set(size, { function: warm.warmMedianMs.function / size, floor: warm.warmMedianMs.floor / size });
      warmRatios.set(size, warm.warmMedianMs);
      const overDeployedTimeout = warm.warmMedianMs.function > DEPLOYED_TIMEOUT_MS - 500;
      const [middle, largest] = listScale.slice(-2) as [number, number];
      let note = `${(warm.warmMedianMs.function / size).toFixed(3)} ms per record`;
      if (overDeployedTimeout) note += '; longer than the deployed 10 s timeout allows: as deployed, this list answers 503 (timed here with more time)';
      let noteMissed = false;
      if (size === largest) {
        // The function's growth per record against the floor's: DynamoDB Local's pages of a large
        // partition grow the floor's per-record time too, which is no cost of the service's code.
        // That quotient is the largest portal's ratio to its floor over the middle one's: taken from
        // the turns' ratios (each next to its floor's), not from medians that drift apart over the
        // run, and missed only when even the two intervals' most favourable ends are over it.
        const growth = (side: 'function' | 'floor') => perRecordMs.get(largest)![side] / perRecordMs.get(middle)![side];
        const [middleRatio, largestRatio] = [warmRatios.get(middle)!, warmRatios.get(largest)!];
        const flatness = largestRatio.ratio! / middleRatio.ratio!;
        const [flatnessLow, flatnessHigh] = [largestRatio.ratioInterval![0] / middleRatio.ratioInterval![1], largestRatio.ratioInterval![1] / middleRatio.ratioInterval![0]];
        const flat = flatnessLow <= TARGETS.listPerRecordFlatness;
        const fast = warm.warmMedianMs.function < TARGETS.listLargestWarmMedianMs;
        noteMissed = !flat || !fast;
        note += `; per record ${growth('function').toFixed(2)}x the ${middle}-record portal's, the floor's ${growth('floor').toFixed(2)}x:`;
        note += ` ${flatness.toFixed(2)}x the floor's growth (${flatnessLow.toFixed(2)}-${flatnessHigh.toFixed(2)}), ${flat ? 'flat' : 'NOT flat'} (target <= ${TARGETS.listPerRecordFlatness}x)`;
        note += `; warm median ${fast ? 'under' : 'NOT under'} ${TARGETS.listLargestWarmMedianMs} ms`;
      }
      rows.push({
        label: `list, ${size} records`,
        ...warm,
        calls: run.calls.calls,
        wireRequests: run.calls.wireRequests,
        minimum: MINIMUM_CALLS.listSubscriptions!({ records: size, queryPages: await queryPagesOf(services.documentClient, fixtures.listPortals.get(size)!) }),
        note,
        noteMissed,
      });
    } catch (error) {
      unmeasured.push(`list, ${size} records: ${(error as Error).message.slice(0, 500)}`);
    }
  }
  return rows;
}

/** GET /messages' first page of 100 over a log of each size of its scale: one Query of the key range whatever the size. */
async function messagesScalingRows({ plan, processes, services, fixtures }: Context, unmeasured: string[]): Promise<Row[]> {
  const { messagesScale, messagesTurns, counted } = plan.iterations;
  const rows: Row[] = [];
  for (const size of messagesScale) {
    const label = `list messages, a page of 100 of ${size}`;
    try {
      log(`${label}: ${messagesTurns.warm} warm invocations each, in ${messagesTurns.blocks} turns`);
      const events = (count: number) => Array.from({ length: count }, () => messagesPageEvent(fixtures, size));
      const turns = await processes.invokeInTurns('listMessages', { ...messagesTurns, events: async (count) => events(count) }, () => services.env);
      const calls = await processes.countCalls('listMessages', events(counted), services.env, services.counters);
      rows.push({
        label,
        ...warmPairs(turns.function.warmBlocksMs, turns.floor.warmBlocksMs),
        calls: calls.calls,
        wireRequests: calls.wireRequests,
        minimum: MINIMUM_CALLS.listMessages!({ records: size, queryPages: 1 }),
      });
    } catch (error) {
      unmeasured.push(`${label}: ${(error as Error).message.slice(0, 500)}`);
    }
  }
  return rows;
}

/** The dispatcher with each batch of its shapes: the first is its own row's. */
async function dispatchScalingRows({ plan, processes, services, fixtures }: Context, mainRun: Run, unmeasured: string[]): Promise<Row[]> {
  const { dispatchShapes, dispatchIterations, blocks, counted } = plan.iterations;
  const rows: Row[] = [];
  for (const [index, shape] of dispatchShapes.entries()) {
    const label = dispatchLabel(shape);
    try {
      let run = mainRun;
      if (index > 0) {
        log(`${label}: ${dispatchIterations} invocations each`);
        const events = (count: number) => Array.from({ length: count }, () => dispatchBatch(fixtures.dispatchPortals.get(label)!, shape.events));
        const turns = await processes.invokeInTurns('dispatchPortalEvents', { warm: dispatchIterations, blocks, events: async (count) => events(count) }, () => services.env);
        run = { fn: turns.function, floor: turns.floor, calls: await processes.countCalls('dispatchPortalEvents', events(counted), services.env, services.counters) };
      }
      // What the same batch cost when each event was dispatched alone: a Query and a Publish per recipient.
      const oneByOne = shape.events * (1 + shape.recipients);
      rows.push({
        label,
        ...warmPairs(run.fn.warmBlocksMs, run.floor.warmBlocksMs),
        calls: run.calls.calls,
        wireRequests: run.calls.wireRequests,
        minimum: MINIMUM_CALLS.dispatchPortalEvents!({ records: shape.recipients, queryPages: 1, dispatch: shape }),
        ...(shape.events > 1 && { note: `${oneByOne} calls one event at a time` }),
      });
    } catch (error) {
      unmeasured.push(`${label}: ${(error as Error).message.slice(0, 500)}`);
    }
  }
  return rows;
}
