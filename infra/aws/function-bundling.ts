/**
 * How every function's bundle is built: the one set of esbuild settings that the CDK stack
 * (service-function.ts) deploys and that `npm run bench` (test/bench/) builds and measures, so
 * the benchmark can never measure a bundle other than the one deployed; and, for the bench's
 * comparison, the bundle the CDK's NodejsFunction builds when given no settings at all. Plain
 * data, without CDK imports, so the benchmark can read it without loading aws-cdk-lib.
 */
import type { BuildOptions } from 'esbuild';

// ESM output has no `require`; a CommonJS module inside the bundle that calls require() for a
// Node built-in gets this one instead of throwing "Dynamic require of ... is not supported".
const CREATE_REQUIRE_BANNER =
  "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);";

/** Field names as the CDK's NodejsFunction `bundling` prop takes them. */
export const FUNCTION_BUNDLING = {
  format: 'esm',
  target: 'node24',
  // Prefer packages' ESM builds, so esbuild can drop what a handler does not import.
  mainFields: ['module', 'main'],
  banner: CREATE_REQUIRE_BANNER,
  minify: true,
  // Stack traces point at the TypeScript source (NODE_OPTIONS below). The map names the source
  // lines only; the sources' text stays out of the deployed package. After esbuild, the map is
  // cut down to our own sources (own-source-map.ts): Node reads and parses the whole map as
  // the bundle loads, and the SDK's mappings were nine tenths of it.
  sourceMap: true,
  sourcesContent: false,
  // Bundle the AWS SDK instead of using the runtime's copy: the version is the one tested, and
  // each bundle holds only the clients its handler uses.
  externalModules: [] as string[],
} as const;

/** The functions' NODE_OPTIONS: stack traces through the (own-sources-only) source map. */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';

/**
 * The same settings as esbuild's own options, as the CDK passes them to the esbuild CLI
 * (`--bundle --platform=node` plus the fields above), for building bundles outside cdk synth:
 * `entryPoints` maps each output path under `outdir` (without extension) to its source. Several
 * entries in one build share esbuild's parsing; without code splitting each output is still a
 * whole bundle of its own, byte for byte what a build of that entry alone writes. The source
 * maps it writes still hold every source: own-source-map.ts cuts them as the CDK does.
 */
export function esbuildOptionsFor(entryPoints: Record<string, string>, outdir: string): BuildOptions {
  return {
    entryPoints,
    outdir,
    // `index.mjs`, as the CDK names an ESM bundle.
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: FUNCTION_BUNDLING.format,
    target: FUNCTION_BUNDLING.target,
    mainFields: [...FUNCTION_BUNDLING.mainFields],
    banner: { js: FUNCTION_BUNDLING.banner },
    minify: FUNCTION_BUNDLING.minify,
    sourcemap: FUNCTION_BUNDLING.sourceMap,
    sourcesContent: FUNCTION_BUNDLING.sourcesContent,
    external: [...FUNCTION_BUNDLING.externalModules],
    logLevel: 'warning',
  };
}

/**
 * What NodejsFunction builds with no `bundling` settings, for a Node.js 24 runtime (the CDK API
 * reference, "interface BundlingOptions" of aws-cdk-lib.aws_lambda_nodejs): `--bundle
 * --platform=node --target=node24`, no format (esbuild's CommonJS), not minified, no source map
 * (and so no NODE_OPTIONS), esbuild's own main fields, and the AWS SDK left to the runtime's
 * copy: `@aws-sdk/*` external, and `@smithy/*` too under the feature flag
 * `@aws-cdk/aws-lambda-nodejs:sdkV3ExcludeSmithyPackages` (`smithyExternal`), which this
 * project's cdk.json sets, as `cdk init` does. Written as `index.js`, as the CDK names it.
 */
export function cdkDefaultEsbuildOptionsFor(entryPoints: Record<string, string>, outdir: string, { smithyExternal }: { smithyExternal: boolean }): BuildOptions {
  return {
    entryPoints,
    outdir,
    bundle: true,
    platform: 'node',
    target: FUNCTION_BUNDLING.target,
    external: ['@aws-sdk/*', ...(smithyExternal ? ['@smithy/*'] : [])],
    logLevel: 'warning',
  };
}
