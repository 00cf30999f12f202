/**
 * The service's stack as `cdk synth` makes it (functions bundled, where a suite reads them), for the suites that check its
 * template (test/infra/template.test.ts, stack.bundles.test.ts, sam-invoke.test.ts), and the readings of that template they share: the logical
 * ids of the table and functions, the statements of a role's policies, and the values the
 * template writes for the topics' ARNs and the variables naming the delivery status logging role,
 * the publishers and the managers of the topics.
 *
 * `stack`, `template`, `resources` and `assemblyDirectory` are set by the beforeAll that
 * synthesizeBeforeAll() adds to the calling suite (each suite has its own copy of this module).
 */
import { Template } from 'aws-cdk-lib/assertions';
import { join } from 'node:path';
import type { WebhookSubscriptionsStack } from '../../infra/aws/webhook-subscriptions-stack';
import type { OPERATIONS } from '../../shared/operations';
import { logicalIdOf, serviceApp } from './cdk-app';

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation JSON */
export type Resources = Record<string, { Type: string; Properties: any; Metadata?: any; DeletionPolicy?: string }>;

export let stack: WebhookSubscriptionsStack;
export let template: Template;
export let resources: Resources;
export let assemblyDirectory: string;

/**
 * Synthesizes the app once, before the calling suite's tests; `bundle: false` skips esbuild for
 * a suite that reads no bundle (bundling every function is most of a synth's time).
 */
export function synthesizeBeforeAll({ bundle = true }: { bundle?: boolean } = {}): void {
  beforeAll(() => {
    const synthesized = serviceApp({ bundle });
    stack = synthesized.stack;
    assemblyDirectory = synthesized.app.synth().directory;
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources;
  }, 120_000);
}

export const tableId = () => logicalIdOf(stack, stack.table);
export const functionIdOf = (op: (typeof OPERATIONS)[number]) => logicalIdOf(stack, stack.functions.get(op.id)!.function);
export const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** The delivery status logging role's ARN, as the template writes it. */
export function loggingRoleArn() {
  return { 'Fn::GetAtt': [logicalIdOf(stack, stack.attempts.loggingRole), 'Arn'] };
}

/** DELIVERY_STATUS_ROLE_ARN and DELIVERY_STATUS_SUCCESS_SAMPLE_RATE as the template writes them (the default rate). */
export function deliveryStatusVariables() {
  return { DELIVERY_STATUS_ROLE_ARN: loggingRoleArn(), DELIVERY_STATUS_SUCCESS_SAMPLE_RATE: '100' };
}

/** TOPIC_PUBLISHER_ARNS as the template writes it: the dispatcher's role, then the test operation's and replay's. */
export function publishersVariable(): { 'Fn::Join': [string, { 'Fn::GetAtt': [string, string] }[]] } {
  const roleArn = (fn: { role: { node: { defaultChild?: unknown } } }): { 'Fn::GetAtt': [string, string] } => ({
    'Fn::GetAtt': [logicalIdOf(stack, fn.role), 'Arn'],
  });
  return {
    'Fn::Join': [
      ',',
      [
        roleArn(stack.delivery.dispatcher),
        roleArn(stack.retries.sweeper),
        roleArn(stack.recoveries.worker),
        roleArn(stack.functions.get('testSubscriptionRoute')!),
        roleArn(stack.functions.get('replayDeadLettersRoute')!),
        roleArn(stack.functions.get('resendMessageRoute')!),
      ],
    ],
  };
}

export function managersVariable(): { 'Fn::Join': [string, { 'Fn::GetAtt': [string, string] }[]] } {
  const roleArn = (fn: { role: { node: { defaultChild?: unknown } } }): { 'Fn::GetAtt': [string, string] } => ({
    'Fn::GetAtt': [logicalIdOf(stack, fn.role), 'Arn'],
  });
  return {
    'Fn::Join': [
      ',',
      [
        roleArn(stack.functions.get('createSubscriptionRoute')!),
        roleArn(stack.functions.get('deleteSubscriptionRoute')!),
        roleArn(stack.functions.get('confirmSubscriptionRoute')!),
        roleArn(stack.reconciliation.reconciler),
      ],
    ],
  };
}

export function bundleDirectoryOf(functionLogicalId: string): string {
  return join(assemblyDirectory, resources[functionLogicalId]!.Metadata['aws:asset:path']);
}

/** Statements of the policies attached to a role. */
export function policyStatementsOf(roleLogicalId: string): { Action: string | string[]; Resource: unknown }[] {
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleLogicalId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
}

/** The actions granted on exactly this resource, sorted. */
export function actionsOn(statements: { Action: string | string[]; Resource: unknown }[], resource: unknown): string[] {
  return statements
    .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(resource))
    .flatMap((statement) => [statement.Action].flat())
    .sort();
}

/** `arn:<partition>:sns:<region>:<account>:<prefix>-*` as the template writes it. */
export function topicArnPattern(prefix: string) {
  return {
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, ':sns:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${prefix}-*`],
    ],
  };
}
