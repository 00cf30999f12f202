/**
 * The scheduled retries of dead letters on AWS (docs/decisions/scheduled-retries-by-a-sweep.md):
 * a function run every minute by an EventBridge rule, which does the work that is due in the
 * table's retry-due partitions (shared/dead-letters/sweep.ts). Its role may read and claim that
 * work, publish to the service's topics, and in the portals' partitions read records and dead
 * letters and write only the attributes of a retry, its ledger and a disabling.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { RETRY_SWEEPER } from '../../shared/operations';
import { PORTAL_PARTITIONS_ONLY, RETRY_DUE_PARTITIONS_ONLY } from './operation-permissions';
import { SWEEPER_DUE_WORK, SWEEPER_DUE_WORK_PUTS, SWEEPER_READS, SWEEPER_WRITES } from './recorder-permissions';
import { allowMessageJoin, allowMessageLogWrites } from './message-log-permissions';
import { ServiceFunction } from './service-function';

export interface DeadLetterRetriesProps {
  readonly table: ITable;
  /** ARN pattern of the service's topics (`<prefix>-*`). */
  readonly topicArnPattern: string;
  /** The service configuration every function reads (DELIVERY_RETRY_SCHEDULE and DISABLE_FAILING_AFTER with it). */
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
}

/**
 * A sweep stops taking new work 15 s before its end (functions/retryDeadLetters.ts); a minute
 * and a half leave it more than a minute of work, and runs that overlap share the work through
 * their claims.
 */
const SWEEPER_TIMEOUT = Duration.seconds(90);

/** How often the sweep runs: the shortest rate EventBridge schedules, so a retry runs at most about a minute late. */
export const SWEEP_EVERY = Duration.minutes(1);

/**
 * What becomes of a run that failed. EventBridge invokes the sweep asynchronously (its target's
 * retryAttempts are EventBridge's own, for an invocation Lambda did not accept); a run that
 * returns an error Lambda starts twice more, a minute then two minutes later, and then drops
 * ("How Lambda handles errors and retries with asynchronous invocation",
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html). Nothing is
 * lost: the work stays due in the table for the next run.
 */
export const SWEEP_FAILED_RUN =
  'Lambda starts a failed run twice more, then drops it; the work stays due in the table for the next runs, so ' +
  'scheduled retries, failing notices and disablings wait until a run succeeds';

export class DeadLetterRetries extends Construct {
  readonly sweeper: ServiceFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: DeadLetterRetriesProps) {
    super(scope, id);
    this.sweeper = new ServiceFunction(this, RETRY_SWEEPER.handler, {
      entry: RETRY_SWEEPER.entry,
      name: RETRY_SWEEPER.handler,
      description: 'Publishes dead letters again on their schedule, tells a portal of a failing subscription, disables one failing too long.',
      timeout: SWEEPER_TIMEOUT,
      environment: props.environment,
      logRetention: props.logRetention,
    });
    const { tableArn } = props.table;
    this.sweeper.allow(SWEEPER_DUE_WORK.actions.filter((action) => action === 'dynamodb:Query'), [tableArn], RETRY_DUE_PARTITIONS_ONLY);
    this.sweeper.allow(SWEEPER_DUE_WORK.actions.filter((action) => action !== 'dynamodb:Query'), [tableArn], {
      ...RETRY_DUE_PARTITIONS_ONLY,
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...SWEEPER_DUE_WORK.attributes] },
    });
    // A retry sent puts its `settle` work.
    this.sweeper.allow(SWEEPER_DUE_WORK_PUTS.actions, [tableArn], {
      ...RETRY_DUE_PARTITIONS_ONLY,
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...SWEEPER_DUE_WORK_PUTS.attributes] },
    });
    this.sweeper.allow(SWEEPER_READS.actions, [tableArn], PORTAL_PARTITIONS_ONLY);
    this.sweeper.allow(SWEEPER_WRITES.actions, [tableArn], {
      ...PORTAL_PARTITIONS_ONLY,
      'ForAllValues:StringLike': { 'dynamodb:Attributes': [...SWEEPER_WRITES.attributes] },
    });
    this.sweeper.allow(['sns:Publish'], [props.topicArnPattern]);
    // Retries and notices are logged as every message is.
    allowMessageLogWrites(this.sweeper, tableArn, { retries: true });
    // The message a retried dead letter came from reads `retried` in the log.
    allowMessageJoin(this.sweeper, tableArn);

    this.schedule = new Rule(this, 'Schedule', {
      description: `Runs ${RETRY_SWEEPER.handler} every minute.`,
      schedule: Schedule.rate(SWEEP_EVERY),
      // A missed run is made up by the next one a minute later: the work waits in the table.
      targets: [new LambdaFunction(this.sweeper.function, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
    });
  }
}
