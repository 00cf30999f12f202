/**
 * The fairness row: a quiet portal's events, put -> body at the endpoint, while another portal's
 * flood of events drains, beside the same portal's alone in the same run, under `npm start`'s
 * path in a process of its own (./fairness-run.ts). Its target (docs/scale.md#fair-delivery): the
 * p99 during the flood within 3x of the p99 alone, or under one batch's time (the flood's drain
 * time over its batches, times the batches the local queue runs at once).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FairnessResult } from './fairness-run';
import { ROOT, type BenchPlan } from './plan';
import { median, quantile } from './statistics';
import type { Row } from './table';

const CHILD_TIMEOUT_MS = 8 * 60_000;
export const FAIRNESS_LABEL = "fairness: a quiet portal's put -> arrival while another portal floods";
/** The p99 during the flood may be this many times the p99 alone... */
export const FAIRNESS_P99_RATIO = 3;
/** ...or under one batch's time: the local queue runs this many batches of 10 at once (infra/local/stack/local-stack.ts). */
const LOCAL_BATCHES_AT_ONCE = 5;

export async function fairnessRow({ iterations, outDir }: BenchPlan): Promise<Row> {
  const { floodEvents, quietAlone } = iterations.fairness;
  const resultPath = join(outDir, 'runs', 'fairness.json');
  mkdirSync(join(outDir, 'runs'), { recursive: true });
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/bench/fairness-run.ts'), String(floodEvents), String(quietAlone), resultPath], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the fairness run exited ${code}: ${stderr.trim().slice(-1500)}`);
  const result = JSON.parse(readFileSync(resultPath, 'utf8')) as FairnessResult;
  const { verdict, note } = fairnessVerdict(result);
  return {
    label: FAIRNESS_LABEL,
    warmMedianMs: { function: median(result.duringFloodMs), floor: median(result.aloneMs) },
    warmP99Ms: { function: quantile(result.duringFloodMs, 0.99), floor: quantile(result.aloneMs, 0.99) },
    note,
    noteMissed: !verdict,
    untargeted: 'judged in its note (p99 ratio, not the median)',
  };
}

/** Whether the row meets its target, and what its note says. */
export function fairnessVerdict({ aloneMs, duringFloodMs, floodDrainMs, floodEvents, floodArrivedBefore }: FairnessResult): { verdict: boolean; note: string } {
  const p99Ratio = quantile(duringFloodMs, 0.99) / quantile(aloneMs, 0.99);
  const batchMs = (floodDrainMs / Math.ceil(floodEvents / 10)) * LOCAL_BATCHES_AT_ONCE;
  const verdict = p99Ratio <= FAIRNESS_P99_RATIO || quantile(duringFloodMs, 0.99) <= batchMs;
  return {
    verdict,
    note:
      `${verdict ? 'met' : 'OVER TARGET'}: p99 during the flood ${p99Ratio.toFixed(2)}x alone (target <= ${FAIRNESS_P99_RATIO}x, or under one batch's ${batchMs.toFixed(0)} ms); ` +
      `p50 ${(median(duringFloodMs) / median(aloneMs)).toFixed(2)}x; ${duringFloodMs.length} quiet events during the flood, ${aloneMs.length} alone; ` +
      `the flood (${floodEvents} events to 8 subscriptions) drained in ${(floodDrainMs / 1000).toFixed(1)} s; ` +
      `the first quiet event put during it arrived after ${floodArrivedBefore[0]} of the flood's ${floodEvents * 8} bodies`,
  };
}
