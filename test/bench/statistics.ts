/** The figures a row prints, from the durations of function and floor measured in turns. */
import type { Pair } from './table';

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** The middle value; for an even count, the mean of the two middle ones (the lower alone would favour one side). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The ranks of a distribution-free interval of about 95% around the median of `count` values:
 * the k-th smallest and the k-th largest, k the largest with P(Binomial(count, 1/2) < k) <= 2.5%
 * (at least 1: with 5 values, min to max, 94%). It assumes nothing of the values' distribution,
 * which a shared machine's timings do not follow.
 */
function medianIntervalRank(count: number): number {
  let below = 0;
  let probability = 0.5 ** count;
  let rank = 1;
  for (let k = 1; k <= count / 2; k++) {
    // P(B <= k - 1) after this step.
    below += probability;
    if (below > 0.025) break;
    rank = k;
    probability = (probability * (count - (k - 1))) / k;
  }
  return rank;
}

/** The interval around the median of `values` that holds the true median with about 95% confidence. */
export function medianInterval(values: readonly number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = medianIntervalRank(sorted.length);
  return [sorted[rank - 1]!, sorted[sorted.length - rank]!];
}

/**
 * Each side's median, and their ratio as the median of the turns' own ratios: the function's
 * i-th figure over its floor's i-th, measured next to it. The machine drifts over a run (module
 * loads of the same bundle went from 80 to 130 ms within a minute here), and a ratio of two
 * medians would hand whatever drift fell between the turns to one side.
 */
export function pairedFigures(fn: readonly number[], floor: readonly number[]): Pair {
  const ratios = fn.map((value, index) => value / floor[index]!);
  return { function: median(fn), floor: median(floor), ratio: median(ratios), ratioInterval: medianInterval(ratios) };
}

/**
 * Warm medians over every block, and p99s; the medians' ratio is the median of the blocks'
 * (each block of the function next to its floor's), with its interval.
 */
export function warmPairs(fnBlocks: readonly number[][], floorBlocks: readonly number[][]): { warmMedianMs: Pair; warmP99Ms: Pair } {
  const [fnWarm, floorWarm] = [fnBlocks.flat(), floorBlocks.flat()];
  const ratios = fnBlocks.map((block, index) => median(block) / median(floorBlocks[index]!));
  return {
    warmMedianMs: { function: median(fnWarm), floor: median(floorWarm), ratio: median(ratios), ratioInterval: medianInterval(ratios) },
    warmP99Ms: { function: quantile(fnWarm, 0.99), floor: quantile(floorWarm, 0.99) },
  };
}
