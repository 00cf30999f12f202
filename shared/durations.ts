/**
 * Durations as the settings write them: a whole number and a unit, `s`, `m`, `h` or `d`
 * (`90s`, `5m`, `2h`, `5d`). DELIVERY_RETRY_SCHEDULE is a comma-separated list of them,
 * DISABLE_FAILING_AFTER one.
 */
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d{1,7})([smhd])$/;

/** The duration in milliseconds, or undefined when the text is not one (or is zero). */
export function durationMs(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms > 0 ? ms : undefined;
}

/** A duration as the settings write it, in its largest whole unit: 300000 -> `5m`. */
export function durationText(ms: number): string {
  for (const unit of ['d', 'h', 'm'] as const) if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${Math.round(ms / 1000)}s`;
}
