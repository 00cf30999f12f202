/**
 * Jest's setup for every suite (jest.config.js, setupFilesAfterEnv): the service's log lines a
 * test provokes without capturing them are held back, so `npm test` shows its PASS and FAIL lines,
 * not the ERROR entries of faults the suites inject on purpose. Those lines are the logger's
 * (shared/logger.ts): one JSON object per line, `level` first. A suite that checks logs captures
 * them itself with `jest.spyOn(process.stdout, 'write')`, which stands in for this while it runs;
 * anything else written goes through. `SHOW_SERVICE_LOGS=1` lets them through too, to see what a
 * failing test logged.
 */

/** A line of the service's JSON log format. */
const SERVICE_LOG_LINE = /^\{"level":"(DEBUG|INFO|WARN|ERROR)","message":/;
const HELD_BACK = Symbol.for('webhook-subscriptions.serviceLogsHeldBack');

type Write = (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;

/** Replaces `stream.write` with one that drops the service's log lines (once per stream). */
export function holdBackServiceLogs(stream: { write: Write }): void {
  const marked = stream as { write: Write; [HELD_BACK]?: true };
  if (marked[HELD_BACK]) return;
  marked[HELD_BACK] = true;
  const write = stream.write.bind(stream);
  stream.write = (chunk, ...rest) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const kept = text
      .split(/(?<=\n)/)
      .filter((line) => !SERVICE_LOG_LINE.test(line))
      .join('');
    if (kept === text) return write(chunk, ...rest);
    if (kept !== '') return write(kept, ...rest);
    // Nothing left to write: as a write that completed, callback included.
    const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
    if (callback) process.nextTick(callback);
    return true;
  };
}

if (process.env.SHOW_SERVICE_LOGS !== '1') holdBackServiceLogs(process.stdout as unknown as { write: Write });
