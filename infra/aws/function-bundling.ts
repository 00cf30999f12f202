/**
 * How every function's bundle is built: the one set of esbuild settings that the CDK stack
 * deploys (bundled-code.ts) and that `npm run bench` (test/bench/) builds and measures, so
 * the benchmark can never measure a bundle other than the one deployed; and, for the bench's
 * comparison, the bundle the CDK's NodejsFunction builds when given no settings at all. Without
 * CDK imports, so the benchmark can read it without loading aws-cdk-lib.
 */
import { transformSync, type BuildOptions } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The SDK's credential providers that cannot succeed in a Lambda sandbox, replaced in the
 * bundles by ones that decline at once (unavailable-credential-providers.ts says why).
 */
const UNAVAILABLE_CREDENTIAL_PROVIDERS = fileURLToPath(new URL('./unavailable-credential-providers.ts', import.meta.url));
const ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  [
    '@aws-sdk/credential-provider-ini',
    '@aws-sdk/credential-provider-sso',
    '@aws-sdk/credential-provider-process',
    '@aws-sdk/credential-provider-web-identity',
    '@smithy/credential-provider-imds',
  ].map((name) => [name, UNAVAILABLE_CREDENTIAL_PROVIDERS]),
);

/**
 * The SDK loads the http module only for an http:// endpoint, with `import()`; as CommonJS,
 * esbuild writes that as a require() (what the SDK's own CommonJS build does) rather than
 * keeping an import() of a built-in.
 */
const SUPPORTED = { 'dynamic-import': false } as const;

/** The Lambda runtime's Node.js (nodejs24.x). */
const NODE_TARGET = 'node24';

/**
 * Readable stack traces without `--enable-source-maps` (source-mapped-stack-traces.ts says why),
 * as the bundle's first lines. "use strict" first: esbuild's own directive, after a banner,
 * would no longer make the bundle strict.
 */
const STACK_TRACES_BANNER = `"use strict";${
  transformSync(readFileSync(fileURLToPath(new URL('./source-mapped-stack-traces.ts', import.meta.url)), 'utf8'), {
    loader: 'ts',
    format: 'iife',
    target: NODE_TARGET,
    minify: true,
  }).code
}`;

/** The bundle's module name and file name, as the CDK names a CommonJS bundle (the handler is `index.handler`). */
export const BUNDLE_MODULE = 'index';
export const BUNDLE_FILE = `${BUNDLE_MODULE}.js`;

/**
 * esbuild's options for the functions' bundles: what synth builds each function with
 * (bundled-code.ts) and what the bench builds. `entryPoints` maps each output path under `outdir`
 * (without extension) to its source. Several entries in one build share esbuild's parsing;
 * without code splitting each output is still a whole bundle of its own, byte for byte what a
 * build of that entry alone writes. The source maps it writes still hold every source:
 * own-source-map.ts cuts them, at synth as in the bench.
 */
export function esbuildOptionsFor(entryPoints: Record<string, string>, outdir: string): BuildOptions {
  return {
    entryPoints,
    outdir,
    bundle: true,
    platform: 'node',
    // CommonJS: a built-in module imported from an ES module gets an ES module facade, which
    // reads every export of the built-in as it loads (node:http's pull in undici, node:crypto's
    // the Web Crypto API): 12-18 ms of each cold start here that require() does not spend.
    format: 'cjs',
    target: NODE_TARGET,
    // Prefer packages' ESM builds, so esbuild can drop what a handler does not import.
    mainFields: ['module', 'main'],
    minify: true,
    // Stack traces point at the TypeScript source, through the map beside the bundle, read when a
    // stack trace is first written (source-mapped-stack-traces.ts, the bundle's banner), not at
    // every cold start as `--enable-source-maps` reads it. The map names the source lines only;
    // the sources' text stays out of the deployed package. After esbuild, the map is cut down to
    // our own sources (own-source-map.ts): the SDK's mappings were nine tenths of it.
    sourcemap: true,
    sourcesContent: false,
    banner: { js: STACK_TRACES_BANNER },
    // The AWS SDK is bundled instead of using the runtime's copy: the version is the one tested,
    // and each bundle holds only the clients its handler uses.
    external: [],
    alias: { ...ALIASES },
    supported: { ...SUPPORTED },
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
    target: NODE_TARGET,
    external: ['@aws-sdk/*', ...(smithyExternal ? ['@smithy/*'] : [])],
    logLevel: 'warning',
  };
}
