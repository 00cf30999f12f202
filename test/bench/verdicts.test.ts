/**
 * The bench's verdicts (docs/performance.md, "Verdicts that hold"): a ratio measured in turns is
 * over its target only when the whole interval around its median is; a row without a target
 * prints its reason and no verdict.
 */
import { fairnessVerdict } from './fairness';
import { medianInterval, pairedFigures } from './statistics';
import { formatTable, type Row } from './table';

const warmRow = (label: string, ratio: number, ratioInterval: [number, number], extra: Partial<Row> = {}): Row => ({
  label,
  warmMedianMs: { function: 10 * ratio, floor: 10, ratio, ratioInterval },
  warmP99Ms: { function: 20, floor: 20 },
  ...extra,
});

const lineOf = (text: string, label: string) => text.split('\n').find((line) => line.startsWith(`| ${label} |`))!;

describe('the interval around a median', () => {
  it('is the k-th smallest to the k-th largest value, about 95% whatever the distribution', () => {
    const values = (count: number) => Array.from({ length: count }, (_, index) => count - index);

    expect(medianInterval(values(5))).toEqual([1, 5]);
    expect(medianInterval(values(10))).toEqual([2, 9]);
    expect(medianInterval(values(15))).toEqual([4, 12]);
    expect(medianInterval(values(20))).toEqual([6, 15]);
    expect(medianInterval(values(30))).toEqual([10, 21]);
  });

  it('is the interval of the turns\' ratios in a pair measured in turns', () => {
    const pair = pairedFigures([12, 11, 13, 30, 12, 11, 12, 13, 12, 11], [10, 10, 10, 10, 10, 10, 10, 10, 10, 10]);

    expect(pair.ratio).toBeCloseTo(1.2);
    expect(pair.ratioInterval).toEqual([1.1, 1.3]);
  });
});

describe('a row\'s verdict', () => {
  it('misses the warm target only when the whole interval is over it, and says so with "!"', () => {
    const { text, overTarget } = formatTable([
      warmRow('straddling', 1.3, [1.1, 1.5]),
      warmRow('over', 1.3, [1.25, 1.4]),
      warmRow('under', 1.05, [1.01, 1.09]),
    ]);

    expect(lineOf(text, 'straddling')).toContain('(1.30x 1.10-1.50) |');
    expect(lineOf(text, 'straddling')).toMatch(/\| met \|$/);
    expect(lineOf(text, 'over')).toContain('(1.30x 1.25-1.40 !) |');
    expect(lineOf(text, 'over')).toMatch(/\| OVER TARGET \|$/);
    expect(lineOf(text, 'under')).toMatch(/\| met \|$/);
    expect(overTarget).toBe(1);
  });

  it('of a row without a target prints its ratio and its reason, and no verdict', () => {
    const { text, overTarget } = formatTable([warmRow('end to end', 27, [25, 30], { untargeted: 'no target: the floor is the last hop alone' })]);

    const line = lineOf(text, 'end to end');
    expect(line).toContain('(27.00x 25.00-30.00) |');
    expect(line).toMatch(/\| no target: the floor is the last hop alone \|$/);
    expect(line).not.toMatch(/OVER TARGET|\bmet\b|!/);
    expect(overTarget).toBe(0);
  });

  it('misses the cold-start target (0.7x the default CDK build) only when the whole interval is over it', () => {
    const cold = (ratio: number, ratioInterval: [number, number]) => ({ coldStartMs: { function: 100 * ratio, floor: 100, ratio, ratioInterval } });
    const { text, overTarget } = formatTable([
      warmRow('cold straddling', 1, [0.95, 1.05], cold(0.72, [0.66, 0.78])),
      warmRow('cold over', 1, [0.95, 1.05], cold(0.75, [0.71, 0.8])),
      warmRow('cold under', 1, [0.95, 1.05], cold(0.6, [0.55, 0.65])),
    ]);

    expect(lineOf(text, 'cold straddling')).toContain('(0.72x 0.66-0.78) |');
    expect(lineOf(text, 'cold straddling')).toMatch(/\| met \|$/);
    expect(lineOf(text, 'cold over')).toContain('(0.75x 0.71-0.80 !) |');
    expect(lineOf(text, 'cold over')).toMatch(/\| OVER TARGET \|$/);
    expect(lineOf(text, 'cold under')).toMatch(/\| met \|$/);
    expect(overTarget).toBe(1);
  });

  it('misses the bundle target (1.15x the floor) on the ratio of the two sizes, which has no interval', () => {
    const bundle = (kb: number) => ({ bundleBytes: { function: kb * 1024, floor: 260 * 1024 } });
    const { text, overTarget } = formatTable([warmRow('bundle over', 1, [0.95, 1.05], bundle(304)), warmRow('bundle within', 1, [0.95, 1.05], bundle(298))]);

    expect(lineOf(text, 'bundle over')).toContain('| 304 / 260 (1.17x !) |');
    expect(lineOf(text, 'bundle within')).toContain('| 298 / 260 (1.15x) |');
    expect(overTarget).toBe(1);
  });
});

describe("the fairness row's verdict", () => {
  const alone = Array.from({ length: 50 }, () => 20);
  const result = (duringFloodMs: number[]) => ({
    aloneMs: alone,
    duringFloodMs,
    floodDrainMs: 40_000,
    floodEvents: 2_000,
    floodArrivedBefore: duringFloodMs.map((_, n) => 400 + n * 500),
  });

  it('is met when the p99 during the flood is within 3x of the p99 alone', () => {
    expect(fairnessVerdict(result(Array.from({ length: 30 }, () => 60))).verdict).toBe(true);
  });

  it("is met over 3x when the p99 stays under one batch's time (the drain over its batches, times the batches at once)", () => {
    // 40 s / 200 batches x 5 at once = 1,000 ms.
    const { verdict, note } = fairnessVerdict(result(Array.from({ length: 30 }, () => 900)));
    expect(verdict).toBe(true);
    expect(note).toMatch(/^met: p99 during the flood 45\.00x alone .*one batch's 1000 ms/);
    expect(note).toMatch(/the first quiet event put during it arrived after 400 of the flood's 16000 bodies$/);
  });

  it('misses when the p99 is over both', () => {
    const { verdict, note } = fairnessVerdict(result([...Array.from({ length: 29 }, () => 30), 9_000]));
    expect(verdict).toBe(false);
    expect(note).toMatch(/^OVER TARGET/);
  });
});
