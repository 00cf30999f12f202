/**
 * `npm run bench`: each function beside its floor, in one run (docs/performance.md).
 *
 * Builds every function's bundle and a floor bundle per function (./floors/: the same SDK calls,
 * the same clients, nothing else); starts DynamoDB Local, the SNS emulator and the SQS stand-in; measures bundle
 * size, module load (fresh Node processes), the first invocation after load, warm invocations,
 * cold starts beside the CDK's default build of each function, and AWS calls per invocation;
 * then, its services stopped, the end-to-end time from PutEvents to an http endpoint under
 * `npm start`'s path (./end-to-end.ts), and a quiet portal's while another floods (./fairness.ts); prints one table and stops what it started.
 *
 * `--quick` and `--only`: plan.ts. Exits non-zero only when it could not measure, never because
 * a target is missed.
 */
import './in-process-logs-silent';
import { buildBundles } from './build';
import { END_TO_END_LABEL, endToEndRow } from './end-to-end';
import { FAIRNESS_LABEL, fairnessRow } from './fairness';
import { bundleProcesses } from './invocations';
import { planFrom, type BenchPlan } from './plan';
import { log } from './progress';
import { measureRows } from './rows';
import { benchServices } from './services';
import { formatTable } from './table';

async function main(plan: BenchPlan): Promise<void> {
  log(`${plan.quick ? 'quick smoke run' : 'full run'}: building ${plan.functions.length * 3} bundles`);
  const bundles = await buildBundles(plan);
  const processes = bundleProcesses(bundles, plan.outDir);

  const services = benchServices({ quick: plan.quick });
  // Interrupted (Ctrl-C, a timeout), DynamoDB Local's Java process would outlive us.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping what the bench started`);
      void services.stop().then(() => process.exit(130));
    });
  }
  let measured: Awaited<ReturnType<typeof measureRows>>;
  try {
    log('starting DynamoDB Local, the SNS emulator and the SQS stand-in');
    measured = await measureRows(plan, bundles, processes, await services.start());
  } finally {
    await services.stop();
  }
  const { rows, unmeasured } = measured;
  // After the bench's own services stopped: the local stack starts a DynamoDB Local of its own.
  if (plan.measures('dispatchPortalEvents')) {
    log(`end to end: ${plan.iterations.endToEnd.events} events from PutEvents to an http endpoint under npm start's path`);
    try {
      rows.push(await endToEndRow(plan));
    } catch (error) {
      unmeasured.push(`${END_TO_END_LABEL}: ${(error as Error).message.slice(0, 500)}`);
    }
    log(`fairness: a quiet portal's events while another portal floods ${plan.iterations.fairness.floodEvents}`);
    try {
      rows.push(await fairnessRow(plan));
    } catch (error) {
      unmeasured.push(`${FAIRNESS_LABEL}: ${(error as Error).message.slice(0, 500)}`);
    }
  }
  const { text, rowCount, overTarget, coldStartVsCdkDefault } = formatTable(rows, { smoke: plan.quick });
  process.stdout.write(`${text}\n`);
  log('done');
  for (const failure of unmeasured) process.stdout.write(`could not measure ${failure}\n`);
  if (plan.quick) {
    // No verdict and no ratio: a smoke run's would mislead (formatTable, SMOKE_RUN_NOTE).
    process.stdout.write(`bench: smoke run, ${rowCount} rows measured, none judged (figures: npm run bench without --quick)\n`);
    if (unmeasured.length > 0) throw new Error(`${unmeasured.length} row(s) could not be measured (above)`);
    return;
  }
  process.stdout.write(`bench: ${rowCount} rows, ${overTarget} over target\n`);
  // The largest ratio over the functions: the target (targets.ts) holds for every one of them.
  if (coldStartVsCdkDefault !== undefined) process.stdout.write(`bench: cold start vs default CDK build: ${coldStartVsCdkDefault.toFixed(2)}x\n`);
  if (unmeasured.length > 0) throw new Error(`${unmeasured.length} row(s) could not be measured (above)`);
}

const plan = planFrom(process.argv);
if ('error' in plan) {
  process.stderr.write(`bench: ${plan.error}\n`);
  process.exit(1);
}
main(plan).then(
  // Whatever sockets the in-process setup left open, everything started is stopped.
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench: could not measure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
