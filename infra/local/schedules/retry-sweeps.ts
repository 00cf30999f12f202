/**
 * The retry sweep on one machine: the same handler as on AWS (functions/retryDeadLetters.ts),
 * invoked on a timer as the EventBridge schedule invokes it there. A run starts every period
 * whether or not the last one has ended, as a schedule's invocations do (a run on AWS may take 90 s
 * of a 60 s period: infra/aws/dead-letter-retries.ts; EventBridge invokes it asynchronously, and
 * Lambda runs each queued event in an instance of its own, with no reserved concurrency to wait
 * for: Lambda Developer Guide, "Invoking a Lambda function asynchronously",
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-async.html), at most two at once; so a quiet portal's
 * retry that falls due while a long run works off another portal's backlog goes out in the next
 * run's first pass (docs/failed-deliveries.md#fair-retries), not after the long run. Runs at once
 * never send one piece twice: each claims its pieces in the table. Its state is all in the
 * table, so under DATA_DIR a restart picks up what was due.
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
  /** Stops the timer, after the runs in progress. */
  close(): Promise<void>;
}

/** Runs at once: AWS's sweeper timeout over its period, rounded up (90 s / 60 s). */
const MAX_RUNS_AT_ONCE = 2;

export function startRetrySweeps({ handler, context, intervalMs, log }: RetrySweepsOptions): RetrySweeps {
  const running = new Set<Promise<void>>();
  const run = () => {
    if (running.size >= MAX_RUNS_AT_ONCE) return;
    // The same event shape as a scheduled rule's, as far as the handler reads it (it reads none).
    const current: Promise<void> = handler({ source: 'aws.events', 'detail-type': 'Scheduled Event', time: new Date().toISOString() }, context())
      .then(() => undefined)
      .catch((error: unknown) => log(`sweep failed: ${String(error)}`))
      .finally(() => running.delete(current));
    running.add(current);
  };
  const timer = setInterval(run, intervalMs);
  return {
    async close() {
      clearInterval(timer);
      await Promise.all(running);
    },
  };
}
