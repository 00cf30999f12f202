/**
 * The end-to-end row: PutEvents to the body at an http endpoint, under `npm start`'s path, in a
 * process of its own (./end-to-end-run.ts: the local stack loads the handlers into the process
 * that starts it, and this one has loaded them already for the bench's own services).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EndToEndResult } from './end-to-end-run';
import { ROOT, type BenchPlan } from './plan';
import { median, medianInterval, quantile } from './statistics';
import type { Row } from './table';

/** Starting the stack (DynamoDB Local's JVM), confirming, and some 220 events one at a time. */
const CHILD_TIMEOUT_MS = 5 * 60_000;

/** Why the row has no target: what its floor is, and why a ratio to it would judge nothing of the service's. */
export const END_TO_END_NO_TARGET =
  "no target: the floor (the same body POSTed straight to the endpoint) is the last hop alone; the path adds the stand-ins' hops, whose local times are not AWS's (docs/performance.md), and the service's code on it, the dispatcher, has its own row against its floor";

export const END_TO_END_LABEL = 'end to end: PutEvents to an http endpoint';

export async function endToEndRow({ iterations, outDir }: BenchPlan): Promise<Row> {
  const { events, warmUp } = iterations.endToEnd;
  const resultPath = join(outDir, 'runs', 'end-to-end.json');
  mkdirSync(join(outDir, 'runs'), { recursive: true });
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/bench/end-to-end-run.ts'), String(events), String(warmUp), resultPath], {
    cwd: ROOT,
    // Not the bench's own environment (its services' endpoints): the stack sets the handlers' own.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    // The handlers' logs go where `npm start`'s would: a terminal nobody reads here.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the end-to-end run exited ${code}: ${stderr.trim().slice(-1500)}`);
  const { totalMs, directMs, hops } = JSON.parse(readFileSync(resultPath, 'utf8')) as EndToEndResult;
  const share = (values: number[]) => `${median(values).toFixed(1)} ms`;
  const ratios = totalMs.map((total, index) => total / directMs[index]!);
  return {
    label: END_TO_END_LABEL,
    warmMedianMs: { function: median(totalMs), floor: median(directMs), ratio: median(ratios), ratioInterval: medianInterval(ratios) },
    warmP99Ms: { function: quantile(totalMs, 0.99), floor: quantile(directMs, 0.99) },
    note:
      `${totalMs.length} events one at a time (p50 and p99 in the warm columns), each beside a direct POST of the same body (the floor); ` +
      `hop medians: PutEvents to queued ${share(hops.putToQueued)}, queued to the dispatcher's Query ${share(hops.queuedToDispatcher)}, ` +
      `its Query to its PublishBatch ${share(hops.dispatcherToPublish)}, PublishBatch to the body at the endpoint ${share(hops.publishToEndpoint)}`,
    untargeted: END_TO_END_NO_TARGET,
  };
}
