/**
 * Puts the service into a CDK app: reads the deployment settings from the app's context,
 * adds the stack, and registers cdk-nag's AWS Solutions rules, which run at every synth and
 * stop it on any finding not acknowledged with a reason. infra/aws/app.ts calls this for
 * `cdk synth|deploy`; the tests call it with an App of their own.
 */
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { writeValidators } from '../../shared/contract/write-validators';
import { type ContextKey, deploymentSettingsFrom } from './deployment-settings';
import { WebhookSubscriptionsStack } from './webhook-subscriptions-stack';

/** The CloudFormation stack name, and the name of its template in cdk.out. */
export const STACK_NAME = 'WebhookSubscriptions';

export function addWebhookSubscriptions(app: App): WebhookSubscriptionsStack {
  // The functions' request validators, compiled from the contract's schemas, before esbuild
  // bundles them (the stack's functions bundle as they are constructed).
  writeValidators();
  const settings = deploymentSettingsFrom(
    (key: ContextKey) => app.node.tryGetContext(key),
    Object.keys(app.node.getAllContext()),
  );
  const stack = new WebhookSubscriptionsStack(app, STACK_NAME, {
    settings,
    description:
      'Webhook subscriptions: HTTP API with JWT authorizer, one Lambda function per operation, ' +
      'a portal-event dispatcher and a scheduled reconciler, DynamoDB table, one SNS topic per subscription.',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
