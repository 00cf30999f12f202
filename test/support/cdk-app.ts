/**
 * The CDK app as the suites synthesize it: the same stack `cdk synth` builds, with the feature
 * flags of cdk.json (an App made in a test does not read cdk.json by itself), into a fresh
 * directory so each suite reads its own bundles.
 */
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
  return { app, stack: addWebhookSubscriptions(app) };
}

/** The logical id CloudFormation knows a construct's resource by. */
export function logicalIdOf(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as never);
}
