/**
 * How every function's bundle is built: the one set of esbuild settings that the CDK stack
 * (service-function.ts) deploys and that `npm run bench` (test/bench/) builds and measures, so
 * the benchmark can never measure a bundle other than the one deployed. Plain data, without
 * CDK imports, so the benchmark can read it without loading aws-cdk-lib.
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
  // Stack traces point at the TypeScript source (with NODE_OPTIONS=--enable-source-maps). The
  // map names the source lines only; the sources' text stays out of the deployed package.
  sourceMap: true,
  sourcesContent: false,
  // Bundle the AWS SDK instead of using the runtime's copy: the version is the one tested, and
  // each bundle holds only the clients its handler uses.
  externalModules: [] as string[],
} as const;

/**
 * The same settings as esbuild's own options, as the CDK passes them to the esbuild CLI
 * (`--bundle --platform=node` plus the fields above), for building bundles outside cdk synth:
 * `entryPoints` maps each output path under `outdir` (without extension) to its source. Several
 * entries in one build share esbuild's parsing; without code splitting each output is still a
 * whole bundle of its own, byte for byte what a build of that entry alone writes.
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
