/**
 * Runs inside each fresh Node process the benchmark starts (bundled by build.ts into
 * .bench/<quick|full>/bundle-runner.mjs, so no TypeScript loader sits between Node and the bundle).
 *
 *   load <bundle> <result.json>                 times import() of the bundle, nothing else
 *   invoke <bundle> <events.json> <result.json> imports it, then calls its handler once per
 *                                               event in order, timing each call
 *
 * The first call is the cold start's invocation (after load); the rest are warm. A handler
 * answer other than success is an error: a benchmark of a failing call measures nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from '../support/lambda-context';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

/**
 * How long an invocation may run: the functions' deployed 10 s timeout, unless the benchmark
 * gives more (BENCH_TIMEOUT_MS) to time a portal too large to list within it.
 */
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 10_000);

/** Why an answer is not a success, or undefined when it is one. */
function failureOf(answer: unknown): string | undefined {
  const result = answer as { statusCode?: number; body?: string; batchItemFailures?: unknown[] } | undefined;
  if (result?.batchItemFailures !== undefined) {
    return result.batchItemFailures.length === 0 ? undefined : `batch item failures: ${JSON.stringify(result.batchItemFailures)}`;
  }
  // The attempts consumer's summary: every record of the event kept.
  const kept = answer as { stored?: number; dropped?: number } | undefined;
  if (typeof kept?.stored === 'number') return kept.stored > 0 && !kept.dropped ? undefined : `kept ${kept.stored}, dropped ${kept.dropped}`;
  // 202: recover's answer, its work started.
  return result?.statusCode === 200 || result?.statusCode === 202 ? undefined : `answered ${result?.statusCode}: ${result?.body}`;
}

async function main(): Promise<void> {
  const [mode, bundlePath, ...rest] = process.argv.slice(2);
  const started = performance.now();
  const module = (await import(pathToFileURL(bundlePath!).href)) as { handler: Handler };
  const loadMs = performance.now() - started;
  if (mode === 'load') {
    writeFileSync(rest[0]!, JSON.stringify({ loadMs }));
    return;
  }
  const [eventsPath, resultPath] = rest;
  const events = JSON.parse(readFileSync(eventsPath!, 'utf8')) as unknown[];
  const durationsMs: number[] = [];
  for (const event of events) {
    const context = lambdaContext('bench', TIMEOUT_MS);
    const callStarted = performance.now();
    const answer = await module.handler(event, context);
    durationsMs.push(performance.now() - callStarted);
    const failure = failureOf(answer);
    if (failure) throw new Error(`invocation ${durationsMs.length} failed: ${failure.slice(0, 500)}`);
  }
  // Set only by a counting build of the bundle (sdk-call-count.ts).
  const sdkCalls = (globalThis as Record<string, unknown>).__benchSdkCalls;
  writeFileSync(resultPath!, JSON.stringify({ loadMs, durationsMs, sdkCalls }));
}

main().then(
  // The SDK's keep-alive sockets would hold the process open; the results are written.
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
