/**
 * The bundles run in fresh Node processes (./bundle-runner.ts): module load alone, invocations
 * timed cold and warm with function and floor taking turns (and cold starts of the CDK's
 * default build of the function beside them), and the counting pass.
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

/** Cold starts alone, in the order taken: module load and first invocation of each fresh process. */
export interface ColdStarts {
  loadsMs: number[];
  firstsMs: number[];
}

export interface TurnsOptions {
  warm: number;
  blocks: number;
  events: (count: number) => Promise<unknown[]>;
  /** A block of the floor first, not counted. */
  warmUp?: boolean;
  /**
   * Each turn also times a cold start of the function beside one of the CDK's default build of
   * it: two more fresh processes, each invoked once.
   */
  besideCdkDefault?: boolean;
}

/** A process's environment by what it runs. */
export type EnvOf = (kind: Side | 'cdkDefault') => Record<string, string>;

export interface TurnsRun extends Record<Side, Turns> {
  /** With `besideCdkDefault`: the function's cold starts and the default build's, the i-th of each taken next to each other. */
  coldPairs?: { function: ColdStarts; cdkDefault: ColdStarts };
}

/** What a function's counting run saw, per invocation: its SDK calls by action, and the requests on the wire. */
export interface CallCount {
  calls: Map<string, number>;
  wireRequests: number;
}

export interface BundleProcesses {
  /** Times import() of a bundle in a fresh process, nothing else. */
  load(side: Side, name: FunctionName, env: Record<string, string>): Promise<number>;
  invokeInTurns(name: FunctionName, options: TurnsOptions, envOf: EnvOf): Promise<TurnsRun>;
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

    /**
     * `warm` warm invocations of the function and as many of its floor, in `blocks` blocks that
     * alternate between the two; each block is a fresh process, whose load and first
     * invocation are kept apart from the warm ones. Answers, per side, every block's load, first
     * invocation and warm durations; with `besideCdkDefault`, also one cold start of the function
     * and one of the CDK's default build of it per block, in processes of one invocation each (a
     * process with a block of events to read has more to collect before its first invocation),
     * the default's first in one block and second in the next.
     */
    async invokeInTurns(name, { warm, blocks, events, warmUp = true, besideCdkDefault = false }, envOf) {
      const runs: TurnsRun = {
        function: { loadsMs: [], firstsMs: [], warmBlocksMs: [] },
        floor: { loadsMs: [], firstsMs: [], warmBlocksMs: [] },
        ...(besideCdkDefault && { coldPairs: { function: { loadsMs: [], firstsMs: [] }, cdkDefault: { loadsMs: [], firstsMs: [] } } }),
      };
      const coldPair = async (order: ('function' | 'cdkDefault')[]) => {
        for (const kind of runs.coldPairs ? order : []) {
          const run = await invoke(kind, name, await events(1), envOf(kind));
          runs.coldPairs![kind].loadsMs.push(run.loadMs);
          runs.coldPairs![kind].firstsMs.push(run.firstMs);
        }
      };
      const perBlock = Math.ceil(warm / blocks);
      // One block of the floor first, not counted: DynamoDB Local's JVM compiles the paths of each
      // new kind of request as it first serves them, and whichever side went first would pay for it
      // (a rename's median went from 5.4 to 1.8 ms over its first blocks here).
      if (warmUp) await invoke('floor', name, await events(perBlock + 1), envOf('floor'));
      for (let block = 0; block < blocks; block++) {
        const even = block % 2 === 0;
        if (even) await coldPair(['cdkDefault', 'function']);
        for (const side of even ? (['function', 'floor'] as const) : (['floor', 'function'] as const)) {
          const run = await invoke(side, name, await events(perBlock + 1), envOf(side));
          runs[side].loadsMs.push(run.loadMs);
          runs[side].firstsMs.push(run.firstMs);
          runs[side].warmBlocksMs.push(run.warmMs);
        }
        if (!even) await coldPair(['function', 'cdkDefault']);
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
      const countedEnv = { ...env, AWS_ENDPOINT_URL_DYNAMODB: counters.dynamoDb.endpoint, AWS_ENDPOINT_URL_SNS: counters.sns.endpoint };
      const { sdkCalls } = await runChild<{ sdkCalls?: Record<string, number> }>('invoke', 'counted', name, [writeEvents(events)], countedEnv);
      if (!sdkCalls) throw new Error(`${name}: its counting build reported no SDK calls`);
      const wire = [...counters.dynamoDb.counts.values(), ...counters.sns.counts.values()].reduce((sum, count) => sum + count, 0);
      return {
        calls: new Map(Object.entries(sdkCalls).map(([action, count]) => [action, count / invocations])),
        wireRequests: wire / invocations,
      };
    },
  };
}
