/** The benchmark's one table (markdown, so docs/performance.md can hold it as printed) and its verdicts. */
import { TARGETS, judgeCalls, type CallMinimum } from './targets';

/** One figure for the function and for its floor. */
export interface Pair {
  function: number;
  floor: number;
  /** Measured in turns: the median of the turns' ratios (statistics.ts, pairedFigures); else function / floor. */
  ratio?: number;
  /**
   * Measured in turns: the interval of about 95% around that median (statistics.ts,
   * medianInterval). A target is missed only when the whole interval is over it: a ratio whose
   * turns straddle the target is within the run's noise, and a verdict on it would flip from run to run.
   */
  ratioInterval?: [number, number];
}

export interface Row {
  label: string;
  bundleBytes?: Pair;
  loadMs?: Pair;
  firstMs?: Pair;
  warmMedianMs: Pair;
  warmP99Ms: Pair;
  /** Cold start: `function` the function's, `floor` here the CDK's default build of the same handler. */
  coldStartMs?: Pair;
  /** The function's AWS calls per invocation, by action, as SDK middleware counted them. */
  calls?: ReadonlyMap<string, number>;
  /** Requests per invocation the counting proxies saw on the wire: more than the calls when the SDK retried. */
  wireRequests?: number;
  minimum?: CallMinimum;
  /** What a scaling row adds (time per record and its flatness). */
  note?: string;
  /** A target of the row's own that was missed (scaling flatness), said in `note`. */
  noteMissed?: boolean;
  /** A row shown without a target, and why: its ratios are printed, never judged. */
  untargeted?: string;
}

const ratioOf = ({ function: fn, floor, ratio }: Pair) => ratio ?? fn / floor;

function pairCell(pair: Pair | undefined, digits: number, target?: number, smoke = false): { text: string; missed: boolean } {
  if (!pair) return { text: '', missed: false };
  // A smoke run's figures only show that each was measured: no ratio, no judgement.
  if (smoke) return { text: `${pair.function.toFixed(digits)} / ${pair.floor.toFixed(digits)}`, missed: false };
  const ratio = ratioOf(pair);
  const missed = target !== undefined && (pair.ratioInterval?.[0] ?? ratio) > target;
  const interval = pair.ratioInterval ? ` ${pair.ratioInterval[0].toFixed(2)}-${pair.ratioInterval[1].toFixed(2)}` : '';
  return { text: `${pair.function.toFixed(digits)} / ${pair.floor.toFixed(digits)} (${ratio.toFixed(2)}x${interval}${missed ? ' !' : ''})`, missed };
}

export interface Table {
  text: string;
  rowCount: number;
  overTarget: number;
  /** The largest cold-start ratio to the CDK's default build over the rows, if any row has one. */
  coldStartVsCdkDefault?: number;
}

export interface TableOptions {
  /**
   * `--quick`: few iterations on whatever else the machine runs, so ratios and verdicts would
   * only mislead. The table shows the figures without them and says why; AWS calls, which do
   * not depend on time, are still counted but not judged either.
   */
  readonly smoke?: boolean;
}

/** The first line of a smoke run's output, and the one its summary repeats. */
export const SMOKE_RUN_NOTE =
  'Smoke run (--quick): few iterations on a machine doing other things, so these figures show only that each was measured; they are not compared or judged. `npm run bench` (no --quick) on an idle machine gives the figures docs/performance.md quotes.';

export function formatTable(rows: readonly Row[], { smoke = false }: TableOptions = {}): Table {
  const lines = [
    '| function | bundle KB: fn / floor (ratio) | module load ms | first invocation ms | warm median ms | warm p99 ms | cold start ms: fn / default CDK build (ratio) | AWS calls per invocation (minimum) | notes |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  let overTarget = 0;
  let coldStartVsCdkDefault: number | undefined;
  for (const row of rows) {
    const bundle = pairCell(row.bundleBytes && { function: row.bundleBytes.function / 1024, floor: row.bundleBytes.floor / 1024 }, 0, TARGETS.bundle, smoke);
    const load = pairCell(row.loadMs, 1, TARGETS.load, smoke);
    const first = pairCell(row.firstMs, 1, undefined, smoke);
    const warm = pairCell(row.warmMedianMs, 2, row.untargeted ? undefined : TARGETS.warmMedian, smoke);
    const p99 = pairCell(row.warmP99Ms, 2, undefined, smoke);
    const cold = pairCell(row.coldStartMs, 1, TARGETS.coldStartVsCdkDefault, smoke);
    if (row.coldStartMs) coldStartVsCdkDefault = Math.max(coldStartVsCdkDefault ?? 0, ratioOf(row.coldStartMs));
    let callsText = '';
    let callsMissed = false;
    const notes: string[] = [];
    if (row.calls && row.minimum && smoke) {
      callsText = round([...row.calls.values()].reduce((sum, count) => sum + count, 0));
    } else if (row.calls && row.minimum) {
      const verdict = judgeCalls(row.calls, row.minimum);
      callsMissed = !verdict.met;
      callsText = `${round(verdict.total)} (${verdict.minimum})${callsMissed ? ' !' : ''}`;
      if (verdict.reason) notes.push(verdict.reason);
      if (verdict.excess.length > 0) notes.push(`over: ${verdict.excess.join(', ')}`);
      if (row.wireRequests !== undefined && Math.abs(row.wireRequests - verdict.total) > 1e-9) notes.push(`${round(row.wireRequests)} requests on the wire (SDK retries)`);
    }
    // A scaling row's note holds its own ratios and verdict: not shown for a smoke run.
    if (row.note && !smoke) notes.push(row.note);
    const missed = !smoke && (bundle.missed || load.missed || warm.missed || cold.missed || callsMissed || row.noteMissed === true);
    if (missed) overTarget++;
    const verdict = smoke ? 'not judged (smoke run)' : row.untargeted ? row.untargeted : missed ? 'OVER TARGET' : 'met';
    lines.push(`| ${row.label} | ${bundle.text} | ${load.text} | ${first.text} | ${warm.text} | ${p99.text} | ${cold.text} | ${callsText} | ${[verdict, ...notes].join('; ')} |`);
  }
  if (smoke) {
    lines.push('', SMOKE_RUN_NOTE);
    return { text: lines.join('\n'), rowCount: rows.length, overTarget: 0 };
  }
  lines.push(
    '',
    'Times: each side\'s median; their ratio, the median of the turns\' ratios (each turn of the function next to one of its floor\'s; each cold start next to one of the default CDK build\'s), then the interval of about 95% around it.',
    'Cold start: module load + first invocation of one fresh process; the default CDK build is the same handler as NodejsFunction builds it without settings (CommonJS, not minified, no source map, @aws-sdk/* from node_modules).',
    `Targets: bundle and module load <= ${TARGETS.bundle}x the floor, warm median <= ${TARGETS.warmMedian}x, cold start <= ${TARGETS.coldStartVsCdkDefault}x the default CDK build's, AWS calls = the minimum or +1 with its reason; "!" marks a miss: a ratio whose whole interval is over its target.`,
  );
  return { text: lines.join('\n'), rowCount: rows.length, overTarget, ...(coldStartVsCdkDefault !== undefined && { coldStartVsCdkDefault }) };
}

/** Calls per invocation are whole numbers unless an invocation differed from the others. */
function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}
