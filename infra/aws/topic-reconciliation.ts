/**
 * The reconciler on AWS (docs/reconciliation.md): a function run by an EventBridge rule on a
 * schedule, allowed to list the account's topics and subscriptions, read and update the records
 * and create and delete topics of the service's prefix, and nothing else.
 */
import { ArnFormat, Aws, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { RECONCILER } from '../../shared/operations';
import { RECONCILER_PERMISSIONS } from './operation-permissions';
import { ServiceFunction } from './service-function';
import { allowOnPortalPartitions } from './table-grants';

export interface TopicReconciliationProps {
  readonly table: ITable;
  /** ARN pattern of the service's topics (`<prefix>-*`), which their subscriptions' ARNs match too. */
  readonly topicArnPattern: string;
  /** The topics' name prefix: their delivery status log groups are `sns/<region>/<account>/<prefix>-*`. */
  readonly topicPrefix: string;
  /** The service configuration every function reads, with the reconciler's own. */
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
  /** How often a run starts. */
  readonly everyMinutes: number;
}

/**
 * Listing 100,000 topics and subscriptions takes 2,000 SNS calls at their 30-per-second rate
 * (about 70 s) and the scan some seconds more; 5 minutes leave room for the SDK's retries on
 * throttling and for a run with many repairs. Runs that overlap (a schedule under 5 minutes) are
 * harmless: every change is idempotent or conditional.
 */
const RECONCILER_TIMEOUT = Duration.minutes(5);

/**
 * What becomes of a run that failed: as for any asynchronous invocation (EventBridge's target),
 * Lambda starts it twice more, a minute then two minutes later, and then drops it ("How Lambda
 * handles errors and retries with asynchronous invocation",
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html). Each run
 * reads everything afresh, so the next scheduled one does all a failed one would have.
 */
export const RECONCILER_FAILED_RUN =
  'Lambda starts a failed run twice more, then drops it; each run starts afresh, so orphan topics, lost topics ' +
  'and confirmation states wait for the next run that succeeds';

export class TopicReconciliation extends Construct {
  readonly reconciler: ServiceFunction;
  readonly schedule: Rule;
  /** The schedule's rate. */
  readonly every: Duration;

  constructor(scope: Construct, id: string, props: TopicReconciliationProps) {
    super(scope, id);
    this.reconciler = new ServiceFunction(this, RECONCILER.handler, {
      entry: RECONCILER.entry,
      name: RECONCILER.handler,
      description: 'Deletes old topics without a record; recreates a lost topic with its SNS subscription; stores the confirmation state of each endpoint.',
      timeout: RECONCILER_TIMEOUT,
      environment: props.environment,
      logRetention: props.logRetention,
    });
    this.reconciler.allow(RECONCILER_PERMISSIONS.scan, [props.table.tableArn]);
    allowOnPortalPartitions(this.reconciler, props.table.tableArn, RECONCILER_PERMISSIONS.records, RECONCILER_PERMISSIONS.writtenAttributes);
    this.reconciler.allow(RECONCILER_PERMISSIONS.topics, [props.topicArnPattern]);
    this.reconciler.allowAccountListing(RECONCILER_PERMISSIONS.accountListings);
    // DescribeLogGroups lists the account's log groups (names, retention; never their records); the
    // retention is set on the topics' delivery status log groups only.
    const logGroup = (resourceName: string) => Stack.of(this).formatArn({ service: 'logs', resource: 'log-group', resourceName, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    this.reconciler.allow(RECONCILER_PERMISSIONS.logGroupListing, [logGroup('*')]);
    this.reconciler.allow(RECONCILER_PERMISSIONS.topicLogGroups, [logGroup(`sns/${Aws.REGION}/${Aws.ACCOUNT_ID}/${props.topicPrefix}-*`)]);
    const role = Validations.of(this.reconciler.role);
    role.acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:*]',
      reason:
        "The topics' delivery status log groups are created at run time by SNS, and logs:DescribeLogGroups finds them " +
        'by name prefix, which IAM cannot narrow: it shows names and retention, never a record.',
    });
    role.acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:sns/<AWS::Region>/<AWS::AccountId>/${props.topicPrefix}-*]`,
      reason:
        'SNS names the delivery status log groups after each topic, created at run time: logs:PutRetentionPolicy is held ' +
        `to those of the ${props.topicPrefix}-* topics of this account and region.`,
    });

    this.every = Duration.minutes(props.everyMinutes);
    this.schedule = new Rule(this, 'Schedule', {
      description: `Runs ${RECONCILER.handler} every ${props.everyMinutes} minutes.`,
      schedule: Schedule.rate(this.every),
      // A run that failed is not worth repeating late: the next one starts on schedule anyway.
      targets: [new LambdaFunction(this.reconciler.function, { retryAttempts: 2, maxEventAge: Duration.minutes(10) })],
    });
  }
}
