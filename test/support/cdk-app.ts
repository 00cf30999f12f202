/**
 * The CDK app as the suites synthesize it: the same stack `cdk synth` builds, with the feature
 * flags of cdk.json (an App made in a test does not read cdk.json by itself), into a fresh
 * directory so each suite reads its own bundles.
 */
import { jest } from '@jest/globals';
import { App, type Stack } from 'aws-cdk-lib';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/aws/service-function';
import { addWebhookSubscriptions } from '../../infra/aws/webhook-subscriptions-app';
import type { WebhookSubscriptionsStack } from '../../infra/aws/webhook-subscriptions-stack';

/** The context block of cdk.json: the feature flags `cdk synth` runs with. */
export const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8'),
).context;

/** What an operator must pass (`-c jwtIssuer=... -c jwtAudience=...`). */
export const REQUIRED_CONTEXT = {
  jwtIssuer: 'https://auth.example.test/oauth2',
  jwtAudience: 'webhooks-api',
} as const;

export interface SynthOptions {
  /** Context keys as `-c key=value` would give them; REQUIRED_CONTEXT unless overridden. */
  context?: Record<string, unknown>;
  /** false: skip esbuild (for tests that read only the template); default true. */
  bundle?: boolean;
}

/** A new App holding the service's stack, as infra/aws/app.ts builds it. */
export function serviceApp({ context = REQUIRED_CONTEXT, bundle = true }: SynthOptions = {}): {
  app: App;
  stack: WebhookSubscriptionsStack;
} {
  const app = new App({
    outdir: mkdtempSync(join(tmpdir(), 'cdk-out-')),
    context: {
      ...CDK_JSON_CONTEXT,
      // What `cdk synth` passes: the metadata SAM reads (aws:asset:path, aws:cdk:path).
      'aws:cdk:enable-asset-metadata': true,
      'aws:cdk:enable-path-metadata': true,
      ...context,
      // The CDK's own switch for which stacks get their assets bundled; [] = none.
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
    },
  });
  const reports: string[] = [];
  validationReports.set(app, reports);
  // The functions' assets are bundled as the stack is built, the report written at synth.
  const stack = quietly(reports, () => addWebhookSubscriptions(app));
  const synth = app.synth.bind(app);
  app.synth = (options) => quietly(reports, () => synth(options));
  return { app, stack };
}

/** The validation reports (the stack's warnings) each app's synths wrote, for a test to assert. */
const validationReports = new WeakMap<App, string[]>();

/** What the CDK printed as its validation report (warnings, with where each was made) at the app's synths. */
export function validationReportsOf(app: App): readonly string[] {
  return validationReports.get(app) ?? [];
}

/**
 * The suites' CDK apps keep what the CDK writes to the terminal: its "Bundling asset ..." line per
 * function (written to stderr whatever the settings) and its validation report (console.error,
 * which jest prints with a stack trace), kept in `reports` for validationReportsOf. A suite
 * asserts a warning it expects instead of printing it among the PASS lines; anything else shows.
 */
function quietly<T>(reports: string[], act: () => T): T {
  // What they were before, called for everything else.
  const writeThrough = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
  const errorThrough = console.error.bind(console);
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) =>
    String(chunk).startsWith('Bundling asset ') ? true : writeThrough(chunk, ...rest)) as typeof process.stderr.write);
  const consoleError = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (text.includes('A copy of this report can be found in')) reports.push(text);
    else errorThrough(...args);
  });
  try {
    return act();
  } finally {
    consoleError.mockRestore();
    stderr.mockRestore();
  }
}

/** The logical id CloudFormation knows a construct's resource by. */
export function logicalIdOf(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as never);
}
