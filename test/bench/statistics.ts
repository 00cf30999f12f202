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
 * Each side's median, and their ratio as the median of the turns' own ratios: the function's
 * i-th figure over its floor's i-th, measured next to it. The machine drifts over a run (module
 * loads of the same bundle went from 80 to 130 ms within a minute here), and a ratio of two
 * medians would hand whatever drift fell between the turns to one side.
 */
export function pairedFigures(fn: readonly number[], floor: readonly number[]): Pair {
  return { function: median(fn), floor: median(floor), ratio: median(fn.map((value, index) => value / floor[index]!)) };
}

/**
 * Warm medians over every block, and p99s; the medians' ratio is the median of the blocks'
 * (each block of the function next to its floor's).
 */
export function warmPairs(fnBlocks: readonly number[][], floorBlocks: readonly number[][]): { warmMedianMs: Pair; warmP99Ms: Pair } {
  const [fnWarm, floorWarm] = [fnBlocks.flat(), floorBlocks.flat()];
  return {
    warmMedianMs: {
      function: median(fnWarm),
      floor: median(floorWarm),
      ratio: median(fnBlocks.map((block, index) => median(block) / median(floorBlocks[index]!))),
    },
    warmP99Ms: { function: quantile(fnWarm, 0.99), floor: quantile(floorWarm, 0.99) },
  };
}
