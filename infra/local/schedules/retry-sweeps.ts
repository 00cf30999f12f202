/**
 * The retry sweep on one machine: the same handler as on AWS (functions/retryDeadLetters.ts),
 * invoked on a timer as the EventBridge schedule invokes it there, one run at a time. Its state is
 * all in the table, so under DATA_DIR a restart picks up what was due.
 */
import type { Context } from 'aws-lambda';
import type { ScheduledHandler } from '../operation-handlers';

export interface RetrySweepsOptions {
  handler: ScheduledHandler;
  context: () => Context;
  intervalMs: number;
  log: (line: string) => void;
}

export interface RetrySweeps {
  /** Stops the timer, after the run in progress. */
  close(): Promise<void>;
}

export function startRetrySweeps({ handler, context, intervalMs, log }: RetrySweepsOptions): RetrySweeps {
  let closed = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (!closed) timer = setTimeout(run, intervalMs);
  };
  const run = () => {
    // The same event shape as a scheduled rule's, as far as the handler reads it (it reads none).
    running = handler({ source: 'aws.events', 'detail-type': 'Scheduled Event', time: new Date().toISOString() }, context())
      .then(() => undefined)
      .catch((error: unknown) => log(`sweep failed: ${String(error)}`))
      .finally(schedule);
  };
  schedule();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
