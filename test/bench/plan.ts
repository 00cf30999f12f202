/**
 * What a bench run measures, read off its arguments: the functions (each beside its floor in
 * ./floors/), the scaling rows of list and the dispatcher, and how many runs of each.
 *
 *   --quick       a smoke run with few iterations and small scaling rows; its figures mean nothing
 *   --only a,b    those functions' rows alone (list's and the dispatcher's scaling rows with them,
 *                 with the dispatcher the end-to-end and fairness rows, with recoverMessages the recovery row)
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ATTEMPTS_RECORDER, DEAD_LETTER_FORWARDER, DEAD_LETTER_RECORDER, DISPATCHER, OPERATIONS, type OperationId } from '../../shared/operations';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type FunctionName =
  | (typeof OPERATIONS)[number]['handler']
  | typeof DISPATCHER.handler
  | typeof DEAD_LETTER_FORWARDER.handler
  | typeof DEAD_LETTER_RECORDER.handler
  | typeof ATTEMPTS_RECORDER.handler;
export type Side = 'function' | 'floor';

export interface BenchFunction {
  name: FunctionName;
  /** The handler's source, relative to ROOT; its floor is ./floors/<name>.ts. */
  entry: string;
  operationId?: OperationId;
}

export const ALL_FUNCTIONS: readonly BenchFunction[] = [
  ...OPERATIONS.map((op) => ({ name: op.handler as FunctionName, entry: `functions/${op.handler}.ts`, operationId: op.id })),
  { name: DISPATCHER.handler, entry: DISPATCHER.entry },
  { name: DEAD_LETTER_FORWARDER.handler, entry: DEAD_LETTER_FORWARDER.entry },
  { name: DEAD_LETTER_RECORDER.handler, entry: DEAD_LETTER_RECORDER.entry },
  { name: ATTEMPTS_RECORDER.handler, entry: ATTEMPTS_RECORDER.entry },
];

/**
 * A batch the dispatcher is invoked with: `events` records, spread evenly over `portals`, each
 * portal with `recipients` subscriptions choosing them; `filtered`: each recipient has a filter
 * (BENCH_FILTER) that every event's data matches, so the calls are the unfiltered row's and the
 * time shows what evaluating the filters costs.
 */
export interface DispatchShape {
  events: number;
  portals: number;
  recipients: number;
  filtered?: boolean;
}

/** The filter of a filtered row's recipients: four keys, each tried on every event (the bench's data is `{assetId: 'asset-1'}`). */
export const BENCH_FILTER = {
  assetId: [{ prefix: 'asset-' }, 'asset-0'],
  brand: [{ exists: false }],
  asset: { size: [{ exists: false }] },
  $or: [{ collection: [{ exists: false }] }, { fileType: [{ 'anything-but': { prefix: 'video/' } }] }],
};

/** How a dispatcher row names its batch. */
export function dispatchLabel({ events, portals, recipients, filtered }: DispatchShape): string {
  const spread = portals === 1 ? 'one portal' : `${portals} portals`;
  const filters = filtered ? ', a filter on each' : '';
  return `dispatcher, ${events} event${events === 1 ? '' : 's'} of ${spread}, ${recipients} recipient${recipients === 1 ? '' : 's'}${portals === 1 ? '' : ' each'}${filters}`;
}

export interface Iterations {
  /** Load-only processes per bundle. */
  loads: number;
  /** Cold starts (one invocation each) of every function and of the CDK's default build of it. */
  coldStarts: number;
  warm: number;
  blocks: number;
  /** Invocations of the counting pass. */
  counted: number;
  /** Records per list portal; the first is list's own row. */
  listScale: number[];
  /** Warm invocations and blocks of each list scaling row after the first. */
  listTurns: { warm: number; blocks: number }[];
  /** Messages logged for a subscription whose first page GET /messages reads, one row each. */
  messagesScale: number[];
  messagesTurns: { warm: number; blocks: number };
  /** The dispatcher's batches; the first is the dispatcher's own row. */
  dispatchShapes: DispatchShape[];
  dispatchIterations: number;
  /** Events timed from PutEvents to the endpoint under `npm start`'s path, after warm-up ones not counted (./end-to-end.ts). */
  endToEnd: { events: number; warmUp: number };
  /** The fairness row: one portal's flood, and the quiet portal's events timed alone (./fairness.ts). */
  fairness: { floodEvents: number; quietAlone: number };
  /** Turns of the recovery row (./recovery.ts): a recovery of 1,000 messages each, function and floor. */
  recoveryTurns: number;
}

/** The full run stays well under 10 minutes on 2 loaded cores. */
const FULL: Iterations = {
  loads: 20,
  coldStarts: 20,
  warm: 500,
  // The warm invocations in blocks, a fresh process each, function and floor taking turns
  // (and turns at going first): DynamoDB Local's JVM and the machine speed up and slow down
  // over a run, and one long run after the other would hand the difference to one side.
  blocks: 10,
  counted: 3,
  listScale: [10, 1_000, 10_000],
  // Enough turns for a verdict that holds from run to run (docs/performance.md, "Verdicts that
  // hold"): with 5 turns the 1,000-record row's ratio swung from 0.75x to 1.52x between runs.
  // Each turn is a fresh process whose first invocation is not counted; a 10,000-record portal is
  // some 6 Query pages and an answer of about 2 MB per invocation (every endpoint confirmed: no
  // SNS call), so its turns hold fewer invocations.
  listTurns: [
    { warm: 150, blocks: 15 },
    { warm: 30, blocks: 10 },
  ],
  // A log of 1,000 and of 10,000 messages: a page of 100 is one Query of the key range either way.
  messagesScale: [1_000, 10_000],
  messagesTurns: { warm: 100, blocks: 10 },
  // One event, one recipient (the function's own row); a bulk upload's batch (ten events of one
  // portal of ten recipients: 1 Query and 10 PublishBatch, against 110 calls one event at a time);
  // and ten portals' events in one batch (a Query and a PublishBatch each).
  dispatchShapes: [
    { events: 1, portals: 1, recipients: 1 },
    { events: 10, portals: 1, recipients: 10 },
    { events: 10, portals: 10, recipients: 1 },
    // The bulk upload's batch again, every recipient with a filter its events match: the same calls.
    { events: 10, portals: 1, recipients: 10, filtered: true },
  ],
  dispatchIterations: 200,
  // 200 for a p99 that is more than the largest few; the first 20 warm the JIT and DynamoDB Local's paths.
  endToEnd: { events: 200, warmUp: 20 },
  // The flood: 2,000 events of a portal of eight subscriptions.
  fairness: { floodEvents: 2_000, quietAlone: 50 },
  recoveryTurns: 6,
};

// The quick run saves processes (each costs seconds on a loaded machine): no load-only ones,
// module load is read off the invocation runs' own imports.
const QUICK: Iterations = {
  loads: 0,
  coldStarts: 1,
  warm: 5,
  blocks: 1,
  counted: 1,
  listScale: [3, 6, 12],
  listTurns: [
    { warm: 1, blocks: 1 },
    { warm: 1, blocks: 1 },
  ],
  messagesScale: [6, 12],
  messagesTurns: { warm: 1, blocks: 1 },
  dispatchShapes: [
    { events: 1, portals: 1, recipients: 1 },
    { events: 3, portals: 1, recipients: 3 },
    { events: 3, portals: 3, recipients: 1 },
    { events: 3, portals: 1, recipients: 3, filtered: true },
  ],
  dispatchIterations: 2,
  endToEnd: { events: 3, warmUp: 1 },
  fairness: { floodEvents: 100, quietAlone: 3 },
  recoveryTurns: 1,
};

export interface BenchPlan {
  quick: boolean;
  /** Bundles, events and results of this kind of run. */
  outDir: string;
  iterations: Iterations;
  functions: BenchFunction[];
  measures(name: FunctionName): boolean;
}

/** The `--only` names, or undefined without the option. */
function onlyNames(argv: readonly string[]): string[] | undefined {
  const index = argv.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  if (index < 0) return undefined;
  const arg = argv[index]!;
  return (arg === '--only' ? (argv[index + 1] ?? '') : arg.slice('--only='.length)).split(',');
}

/** The plan of a run started with `argv`, or why the arguments cannot be one. */
export function planFrom(argv: readonly string[]): BenchPlan | { error: string } {
  const quick = argv.includes('--quick');
  const only = onlyNames(argv);
  const unknownNames = (only ?? []).filter((name) => !ALL_FUNCTIONS.some((fn) => fn.name === name));
  if (unknownNames.length > 0) {
    return { error: `--only takes function names, comma-separated: ${ALL_FUNCTIONS.map((fn) => fn.name).join(', ')}` };
  }
  const functions = ALL_FUNCTIONS.filter((fn) => !only || only.includes(fn.name));
  return {
    quick,
    // Apart, so the quick run of `npm test` cannot rebuild a full run's bundles under it.
    outDir: join(ROOT, '.bench', quick ? 'quick' : 'full'),
    iterations: quick ? QUICK : FULL,
    functions,
    measures: (name) => functions.some((fn) => fn.name === name),
  };
}
