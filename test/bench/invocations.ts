/**
 * The bundles run in fresh Node processes (./bundle-runner.ts): module load alone, invocations
 * timed cold and warm with function and floor taking turns, single cold starts (the function's
 * and the CDK's default build of it), and the counting pass.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BundleKind, Bundles } from './build';
import type { FunctionName, Side } from './plan';
import type { CallCounters } from './services';

/** Each child process gets this long; a hung one is a failed measurement, not a hung bench. */
const CHILD_TIMEOUT_MS = 5 * 60_000;

/** One process's invocations: its load, its first invocation, the warm ones. */
interface Invocations {
  loadMs: number;
  firstMs: number;
  warmMs: number[];
}

/** One side's turns, in the order taken: the i-th of the function's ran next to the i-th of its floor's. */
export interface Turns {
  loadsMs: number[];
  firstsMs: number[];
  warmBlocksMs: number[][];
}

export interface TurnsOptions {
  warm: number;
  blocks: number;
  events: (count: number) => Promise<unknown[]>;
  /** A block of the floor first, not counted. */
  warmUp?: boolean;
}

/** What a function's counting run saw, per invocation: its SDK calls by action, and the requests on the wire. */
export interface CallCount {
  calls: Map<string, number>;
  wireRequests: number;
}

export interface BundleProcesses {
  /** Times import() of a bundle in a fresh process, nothing else. */
  load(side: Side, name: FunctionName, env: Record<string, string>): Promise<number>;
  /** A cold start: a fresh process's module load plus its one invocation, on `event`. */
  coldStart(kind: 'function' | 'cdkDefault', name: FunctionName, event: unknown, env: Record<string, string>): Promise<number>;
  invokeInTurns(name: FunctionName, options: TurnsOptions, envOf: (side: Side) => Record<string, string>): Promise<Record<Side, Turns>>;
  countCalls(name: FunctionName, events: unknown[], env: Record<string, string>, counters: CallCounters, invocations?: number): Promise<CallCount>;
}

/** `outDir`: where the events each process reads and the results it writes are kept. */
export function bundleProcesses(bundles: Bundles, outDir: string): BundleProcesses {
  const runsDir = join(outDir, 'runs');
  mkdirSync(runsDir, { recursive: true });
  let sequence = 0;

  /** Runs the bundle runner in a fresh Node process; answers what it wrote. */
  async function runChild<Result>(mode: 'load' | 'invoke', kind: BundleKind, name: string, args: string[], env: Record<string, string>): Promise<Result> {
    const resultPath = join(runsDir, `${++sequence}.json`);
    const child = spawn(process.execPath, [bundles.runner, mode, bundles.path(kind, name), ...args, resultPath], {
      env: { PATH: process.env.PATH ?? '', ...env },
      // The functions' logs go where Lambda's would go: nowhere we read.
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    if (code !== 0) throw new Error(`${mode} ${bundles.path(kind, name)} exited ${code}: ${stderr.trim().slice(-1500)}`);
    return JSON.parse(readFileSync(resultPath, 'utf8')) as Result;
  }

  function writeEvents(events: unknown[]): string {
    const path = join(runsDir, `events-${++sequence}.json`);
    writeFileSync(path, JSON.stringify(events));
    return path;
  }

  async function invoke(kind: Side | 'cdkDefault', name: FunctionName, events: unknown[], env: Record<string, string>): Promise<Invocations> {
    const { loadMs, durationsMs } = await runChild<{ loadMs: number; durationsMs: number[] }>('invoke', kind, name, [writeEvents(events)], env);
    return { loadMs, firstMs: durationsMs[0]!, warmMs: durationsMs.slice(1) };
  }

  return {
    async load(side, name, env) {
      const { loadMs } = await runChild<{ loadMs: number }>('load', side, name, [], env);
      return loadMs;
    },

    async coldStart(kind, name, event, env) {
      const { loadMs, firstMs } = await invoke(kind, name, [event], env);
      return loadMs + firstMs;
    },

    /**
     * `warm` warm invocations of the function and as many of its floor, in `blocks` blocks that
     * alternate between the two; each block is a fresh process, whose load and first
     * invocation are kept apart from the warm ones. Answers, per side, every block's load, first
     * invocation and warm durations.
     */
    async invokeInTurns(name, { warm, blocks, events, warmUp = true }, envOf) {
      const runs: Record<Side, Turns> = {
        function: { loadsMs: [], firstsMs: [], warmBlocksMs: [] },
        floor: { loadsMs: [], firstsMs: [], warmBlocksMs: [] },
      };
      const perBlock = Math.ceil(warm / blocks);
      // One block of the floor first, not counted: DynamoDB Local's JVM compiles the paths of each
      // new kind of request as it first serves them, and whichever side went first would pay for it
      // (a rename's median went from 5.4 to 1.8 ms over its first blocks here).
      if (warmUp) await invoke('floor', name, await events(perBlock + 1), envOf('floor'));
      for (let block = 0; block < blocks; block++) {
        const order: Side[] = block % 2 === 0 ? ['function', 'floor'] : ['floor', 'function'];
        for (const side of order) {
          const run = await invoke(side, name, await events(perBlock + 1), envOf(side));
          runs[side].loadsMs.push(run.loadMs);
          runs[side].firstsMs.push(run.firstMs);
          runs[side].warmBlocksMs.push(run.warmMs);
        }
      }
      return runs;
    },

    /**
     * Calls per invocation, never during timings: the function's counting build (SDK middleware,
     * by action) runs through the counting proxies (every request on the wire, retries included).
     */
    async countCalls(name, events, env, counters, invocations = events.length) {
      counters.dynamoDb.reset();
      counters.sns.reset();
      counters.sqs.reset();
      const countedEnv = { ...env, AWS_ENDPOINT_URL_DYNAMODB: counters.dynamoDb.endpoint, AWS_ENDPOINT_URL_SNS: counters.sns.endpoint, AWS_ENDPOINT_URL_SQS: counters.sqs.endpoint };
      const { sdkCalls } = await runChild<{ sdkCalls?: Record<string, number> }>('invoke', 'counted', name, [writeEvents(events)], countedEnv);
      if (!sdkCalls) throw new Error(`${name}: its counting build reported no SDK calls`);
      const wire = [...counters.dynamoDb.counts.values(), ...counters.sns.counts.values(), ...counters.sqs.counts.values()].reduce((sum, count) => sum + count, 0);
      return {
        calls: new Map(Object.entries(sdkCalls).map(([action, count]) => [action, count / invocations])),
        wireRequests: wire / invocations,
      };
    },
  };
}
