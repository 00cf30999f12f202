/**
 * The bundles a run measures, built with the stack's esbuild settings
 * (infra/aws/function-bundling.ts): per function, its own bundle, its floor's, and a counting
 * build; and the bundle runner each fresh process starts with.
 */
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { esbuildOptionsFor } from '../../infra/aws/function-bundling';
import { writeValidators } from '../../shared/contract/write-validators';
import { ROOT, type BenchPlan, type Side } from './plan';

/** `counted`: the function's bundle with SDK middleware counting its calls, for the counting pass only. */
export type BundleKind = Side | 'counted';

export interface Bundles {
  path(kind: BundleKind, name: string): string;
  /** ./bundle-runner.ts, bundled so no TypeScript loader sits between Node and a bundle. */
  runner: string;
}

/**
 * The source of a function's counting build: its handler, with a counter (./sdk-call-count.ts)
 * on the clients every handler shares (shared/aws/), so the bundles measured carry no hook.
 */
function countingEntry(entry: string): string {
  const source = (path: string) => JSON.stringify(join(ROOT, path));
  return [
    `import { dynamoDbClient } from ${source('shared/aws/dynamodb')};`,
    `import { snsClient } from ${source('shared/aws/sns')};`,
    `import { countCommands } from ${source('test/bench/sdk-call-count')};`,
    'countCommands(dynamoDbClient);',
    'countCommands(snsClient);',
    `export * from ${source(entry.replace(/\.ts$/, ''))};`,
  ].join('\n');
}

export async function buildBundles({ outDir, functions }: BenchPlan): Promise<Bundles> {
  // The request validators the functions import, compiled from the contract's schemas.
  writeValidators();
  const bundles: Bundles = {
    path: (kind, name) => join(outDir, 'bundles', kind, name, 'index.mjs'),
    runner: join(outDir, 'bundle-runner.mjs'),
  };
  rmSync(join(outDir, 'bundles'), { recursive: true, force: true });
  mkdirSync(join(outDir, 'counting-entries'), { recursive: true });
  const entryPoints: Record<string, string> = {};
  for (const { name, entry } of functions) {
    entryPoints[`function/${name}/index`] = join(ROOT, entry);
    entryPoints[`floor/${name}/index`] = join(ROOT, 'test/bench/floors', `${name}.ts`);
    const countingSource = join(outDir, 'counting-entries', `${name}.ts`);
    writeFileSync(countingSource, countingEntry(entry));
    entryPoints[`counted/${name}/index`] = countingSource;
  }
  await Promise.all([
    build(esbuildOptionsFor(entryPoints, join(outDir, 'bundles'))),
    build({ entryPoints: [join(ROOT, 'test/bench/bundle-runner.ts')], outfile: bundles.runner, bundle: true, platform: 'node', format: 'esm', target: 'node24', logLevel: 'warning' }),
  ]);
  return bundles;
}
