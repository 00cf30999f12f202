/**
 * The bundles a run measures, built with the stack's esbuild settings
 * (infra/aws/function-bundling.ts) and their source maps cut as the stack cuts them
 * (infra/aws/own-source-map.ts): per function, its own bundle, its floor's, and a counting
 * build; per function too, the bundle the CDK's NodejsFunction builds by default, to compare
 * cold starts with; and the bundle runner each fresh process starts with.
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILE, cdkDefaultEsbuildOptionsFor, esbuildOptionsFor } from '../../infra/aws/function-bundling';
import { writeOwnSourceMap } from '../../infra/aws/own-source-map';
import { writeValidators } from '../../shared/contract/write-validators';
import { ROOT, type BenchPlan, type Side } from './plan';

/**
 * `counted`: the function's bundle with SDK middleware counting its calls, for the counting pass
 * only; `cdkDefault`: the function built as NodejsFunction builds it without settings.
 */
export type BundleKind = Side | 'counted' | 'cdkDefault';

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
    `import { sqsClient } from ${source('shared/aws/sqs')};`,
    `import { countCommands } from ${source('test/bench/sdk-call-count')};`,
    'countCommands(dynamoDbClient);',
    'countCommands(snsClient);',
    'countCommands(sqsClient);',
    `export * from ${source(entry.replace(/\.ts$/, ''))};`,
  ].join('\n');
}

/** Whether the CDK app's context sets the flag under which NodejsFunction leaves `@smithy/*` to the runtime too. */
function smithyExternalByDefault(): boolean {
  const { context } = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return context?.['@aws-cdk/aws-lambda-nodejs:sdkV3ExcludeSmithyPackages'] === true;
}

export async function buildBundles({ outDir, functions }: BenchPlan): Promise<Bundles> {
  // The request validators the functions import, compiled from the contract's schemas.
  writeValidators();
  const bundlesDir = join(outDir, 'bundles');
  const bundles: Bundles = {
    path: (kind, name) => join(bundlesDir, kind, name, BUNDLE_FILE),
    runner: join(outDir, 'bundle-runner.mjs'),
  };
  rmSync(bundlesDir, { recursive: true, force: true });
  mkdirSync(join(outDir, 'counting-entries'), { recursive: true });
  const entryPoints: Record<string, string> = {};
  const cdkDefaultEntryPoints: Record<string, string> = {};
  for (const { name, entry } of functions) {
    entryPoints[`function/${name}/index`] = join(ROOT, entry);
    entryPoints[`floor/${name}/index`] = join(ROOT, 'test/bench/floors', `${name}.ts`);
    const countingSource = join(outDir, 'counting-entries', `${name}.ts`);
    writeFileSync(countingSource, countingEntry(entry));
    entryPoints[`counted/${name}/index`] = countingSource;
    cdkDefaultEntryPoints[`${name}/index`] = join(ROOT, entry);
  }
  await Promise.all([
    build(esbuildOptionsFor(entryPoints, bundlesDir)),
    // Inside the repository, so `@aws-sdk/*` resolves from its node_modules at run time, as
    // the runtime's own copy would be found on Lambda.
    build(cdkDefaultEsbuildOptionsFor(cdkDefaultEntryPoints, join(bundlesDir, 'cdkDefault'), { smithyExternal: smithyExternalByDefault() })),
    build({ entryPoints: [join(ROOT, 'test/bench/bundle-runner.ts')], outfile: bundles.runner, bundle: true, platform: 'node', format: 'esm', target: 'node24', logLevel: 'warning' }),
  ]);
  // The repository's package.json makes `.js` an ES module; Lambda's package has none, so
  // there `index.js` is CommonJS.
  writeFileSync(join(bundlesDir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  for (const { name } of functions) {
    for (const kind of ['function', 'floor'] as const) writeOwnSourceMap(`${bundles.path(kind, name)}.map`);
  }
  return bundles;
}
