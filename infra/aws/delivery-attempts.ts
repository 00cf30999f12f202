/**
 * Delivery attempts on AWS (docs/decisions/attempts-from-sns-logs.md): the role SNS assumes to
 * write each topic's delivery status logs, and the consumer that keeps every attempt for its tenant.
 *
 * SNS writes to log groups it creates itself, one per topic and outcome
 * (`sns/<region>/<account>/<topic>` and `.../Failure`), on the first delivery it logs, so no
 * subscription filter can be put on them when the topic is made. One account-level subscription
 * filter policy (CloudWatch Logs PutAccountPolicy, type SUBSCRIPTION_FILTER_POLICY) reaches every
 * log group, those made later included; its filter pattern lets through only delivery status
 * records of the service's topics, and its selection criteria leave out the consumer's own log
 * group (CloudWatch Logs User Guide, "Log recursion prevention").
 */
import { ArnFormat, Aws, Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnAccountPolicy, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ATTEMPTS_RECORDER } from '../../shared/operations';
import { NOT_PORTAL_PARTITIONS } from './operation-permissions';
import { ATTEMPTS_RECORDER_READS, ATTEMPTS_RECORDER_WRITES } from './recorder-permissions';
import { allowMessageJoin } from './message-log-permissions';
import { ServiceFunction } from './service-function';

export interface DeliveryAttemptsProps {
  readonly table: ITable;
  readonly topicPrefix: string;
  /** ARN pattern of the service's topics (`<prefix>-*`). */
  readonly topicArnPattern: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
}

/** A batch of a log group's records: one read, then a transaction per 40 attempts. */
const CONSUMER_TIMEOUT = Duration.seconds(30);

/**
 * What becomes of a batch the consumer failed on. No queue feeds it: CloudWatch Logs invokes it
 * asynchronously, and for an asynchronous invocation that returns an error Lambda runs it twice
 * more (a minute, then two minutes later), then discards the event unless an on-failure
 * destination or a dead-letter queue is configured ("How Lambda handles errors and retries with
 * asynchronous invocation", https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html).
 * Neither is configured here (nor any retry setting: Lambda's defaults hold).
 */
export const ATTEMPTS_FAILED_BATCH =
  'no queue feeds it: CloudWatch Logs invoked it asynchronously, so Lambda runs the same batch twice more (1, then ' +
  '2 minutes later) and then discards it (no on-failure destination or dead-letter queue is configured): the ' +
  'delivery attempts of a batch that fails all 3 times are not kept';

export class DeliveryAttempts extends Construct {
  /** The role SNS assumes to write the delivery status logs of the service's topics. */
  readonly loggingRole: Role;
  readonly consumer: ServiceFunction;
  readonly subscriptionPolicy: CfnAccountPolicy;

  constructor(scope: Construct, id: string, props: DeliveryAttemptsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // SNS's log group names: sns/<region>/<account>/<topic name>[/Failure]; `*` matches the "/Failure".
    const logGroupsOfTopics = stack.formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: `sns/${Aws.REGION}/${Aws.ACCOUNT_ID}/${props.topicPrefix}-*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.loggingRole = new Role(this, 'SnsDeliveryStatusLogging', {
      // Only SNS, only for this account's topics of the prefix (the confused-deputy conditions).
      assumedBy: new ServicePrincipal('sns.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        ArnLike: { 'aws:SourceArn': props.topicArnPattern },
      }),
      description: `SNS writes the delivery status logs of the ${props.topicPrefix}-* topics, and nothing else.`,
      inlinePolicies: {
        DeliveryStatusLogs: new PolicyDocument({
          statements: [
            // What SNS does with the role: create the topic's log groups and streams, and write to them.
            new PolicyStatement({
              actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [logGroupsOfTopics, `${logGroupsOfTopics}:log-stream:*`],
            }),
          ],
        }),
      },
    });

    this.consumer = new ServiceFunction(this, ATTEMPTS_RECORDER.handler, {
      entry: ATTEMPTS_RECORDER.entry,
      name: ATTEMPTS_RECORDER.handler,
      description: "Keeps each delivery attempt SNS logged for a subscription's topic, in the portal that owns it.",
      timeout: CONSUMER_TIMEOUT,
      environment: props.environment,
      logRetention: props.logRetention,
    });
    const portalsOnly = { 'dynamodb:LeadingKeys': [...NOT_PORTAL_PARTITIONS] };
    this.consumer.allow(ATTEMPTS_RECORDER_READS.actions, [props.table.tableArn], { 'ForAllValues:StringNotLike': portalsOnly });
    for (const { actions, attributes } of ATTEMPTS_RECORDER_WRITES) {
      this.consumer.allow(actions, [props.table.tableArn], {
        'ForAllValues:StringNotLike': portalsOnly,
        'ForAllValues:StringLike': { 'dynamodb:Attributes': attributes },
      });
    }
    // Which message of the log a record is, so whose (shared/data/messages.ts): no topic tag, which another principal could remove.
    allowMessageJoin(this.consumer, props.table.tableArn);
    // CloudWatch Logs invokes it for log groups of this account only.
    this.consumer.function.addPermission('InvokedByCloudWatchLogs', {
      principal: new ServicePrincipal('logs.amazonaws.com'),
      sourceAccount: Aws.ACCOUNT_ID,
      sourceArn: stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
    });

    this.subscriptionPolicy = new CfnAccountPolicy(this, 'DeliveryStatusSubscription', {
      policyName: `${props.topicPrefix}-delivery-attempts`,
      policyType: 'SUBSCRIPTION_FILTER_POLICY',
      scope: 'ALL',
      policyDocument: stack.toJsonString({
        DestinationArn: this.consumer.function.functionArn,
        // Delivery status records of the service's topics only: every other log event of the account stays out.
        FilterPattern: `{ $.notification.topicArn = "arn:*:sns:*:*:${props.topicPrefix}-*" }`,
        Distribution: 'Random',
      }),
      // Its own logs never feed it (they name topics too, in other fields, but never mind the pattern).
      selectionCriteria: `LogGroupName NOT IN ["${this.consumer.logGroup.logGroupName}"]`,
    });
    this.subscriptionPolicy.node.addDependency(this.consumer.function);
  }
}
