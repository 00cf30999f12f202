/**
 * What tells the operator that something needs a person (docs/operations.md): CloudWatch alarms
 * on the portal-events dead-letter queue, on the age of the oldest message in the delivery
 * dead-letter queue, on the errors of each consumer (of a queue or of the delivery status logs),
 * and on the errors and the missed runs of each scheduled job, all notifying one SNS topic for
 * operators (output OperatorAlarmTopicArn), optionally with e-mail subscriptions.
 */
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IAlarmAction, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { UNKNOWN_MESSAGE_DROPPED } from '../../shared/attempts/message-join';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ServiceFunction } from './service-function';

/** A function invoked with batches of work: a queue's consumer, or the delivery status logs'. */
export interface AlarmedConsumer {
  readonly consumer: ServiceFunction;
  /** What becomes of the batch of an invocation that failed, as the alarm's description says it. */
  readonly failedBatch: string;
}

/** A function an EventBridge rule runs on a schedule. */
export interface AlarmedJob {
  readonly job: ServiceFunction;
  /** The rule's rate: a missed run is a period of this length with no invocation. */
  readonly every: Duration;
  /** What becomes of a run that failed, as the alarm's description says it. */
  readonly failedRun: string;
}

export interface OperatorAlarmsProps {
  /** Portal events the dispatcher failed on 5 times (or EventBridge could not put on its queue). */
  readonly portalEventsDeadLetterQueue: IQueue;
  /** Messages SNS could not deliver, which the dead-letter forwarder should take within seconds. */
  readonly deliveryDeadLetterQueue: IQueue;
  /** The same messages keyed by portal, which the dead-letter recorder should take within seconds. */
  readonly deadLettersByPortal: IQueue;
  /** The functions that consume a queue or the delivery status logs: each gets an alarm on its errors. */
  readonly consumers: readonly AlarmedConsumer[];
  /** The functions run on a schedule: each gets an alarm on its errors and one on its missed runs. */
  readonly jobs: readonly AlarmedJob[];
  /** Addresses subscribed to the topic by e-mail (each confirms the link SNS sends it). */
  readonly operatorEmails: readonly string[];
  /** The attempts consumer, whose line of records dropped for naming no message the service published becomes a metric. */
  readonly attemptsConsumer: ServiceFunction;
}

/** The metric of delivery status records dropped for naming no message the service published to their topic. */
export const UNKNOWN_RECORDS_METRIC = 'UnknownDeliveryStatusRecords';

/**
 * CloudWatch gets SQS's metrics once a minute, and Lambda's invocation metrics are counted per
 * minute ("Available CloudWatch metrics for Amazon SQS"; "Types of metrics for Lambda functions",
 * https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html): a 5-minute period
 * tells the operator within minutes, and keeps an intermittent fault from flipping the alarm
 * between ALARM and OK (each flip a notification) every other minute.
 */
const PERIOD = Duration.minutes(5);

/**
 * A healthy forwarder, and recorder, takes a dead letter within seconds; one that failed on it gets
 * it again after the queue's visibility timeout. Ten minutes lets a couple of such retries pass,
 * and is far inside the 14 days the queues keep them.
 */
export const DELIVERY_DEAD_LETTER_MAX_AGE = Duration.minutes(10);

/** A job has missed its runs when this many of its periods in a row had no invocation. */
export const MISSED_RUNS = 2;

export class OperatorAlarms extends Construct {
  /** Where every alarm and every return to OK is published. */
  readonly topic: Topic;
  readonly portalEventsDeadLetters: Alarm;
  readonly deliveryDeadLettersWaiting: Alarm;
  readonly deadLettersByPortalWaiting: Alarm;
  /** The errors alarm of each consumer, by the consumer's handler name. */
  readonly consumerErrors: ReadonlyMap<string, Alarm>;
  /** The errors alarm of each scheduled job, by its handler name. */
  readonly jobErrors: ReadonlyMap<string, Alarm>;
  /** The alarm on each scheduled job's missed runs, by its handler name. */
  readonly missedRuns: ReadonlyMap<string, Alarm>;
  /** Delivery status records naming no message the service published: forged, or of a message not logged. */
  readonly unknownDeliveryStatusRecords: Alarm;

  constructor(scope: Construct, id: string, props: OperatorAlarmsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Readable in the notification's subject, and what the topic policy below matches.
    const alarmNamePrefix = `${stack.stackName}-`;

    // CloudWatch can publish to an encrypted topic only with a customer managed key whose policy
    // lets cloudwatch.amazonaws.com use it; the AWS managed alias/aws/sns cannot be changed to
    // ("Enable compatibility between event sources from AWS services and encrypted topics",
    // https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html#compatibility-with-aws-services).
    const key = new Key(this, 'TopicKey', {
      description: `Encrypts the operator alarm topic of ${stack.stackName}.`,
      enableKeyRotation: true,
      // Nothing stays encrypted under it: SNS keeps no messages once delivered.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    // As the SNS page writes it. Who may publish to the topic is held by the topic policy below,
    // and this key encrypts nothing else.
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );

    this.topic = new Topic(this, 'Topic', {
      displayName: `${stack.stackName} operator alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // The topic's policy replaces SNS's default one, so CloudWatch needs its own statement: for
    // this stack's alarms in this account only ("Why didn't I receive an SNS notification for my
    // CloudWatch alarm trigger?", https://repost.aws/knowledge-center/cloudwatch-receive-sns-for-alarm-trigger).
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: `${alarmNamePrefix}*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    for (const address of props.operatorEmails) this.topic.addSubscription(new EmailSubscription(address));
    const notify = new SnsAction(this.topic);

    // Nothing consumes this queue: whatever is in it waits for a person. The count stays at 1 or
    // more until the operator redrives or purges, so the alarm stays in ALARM as long as there is
    // something to look at, and says OK when the queue is empty again. An idle queue stops sending
    // metrics after some hours: missing data means no messages.
    this.portalEventsDeadLetters = watch(this, 'PortalEventsDeadLetters', notify, {
      alarmName: `${alarmNamePrefix}portal-events-dead-letters`,
      alarmDescription:
        'Portal events are in the events dead-letter queue (output EventsDeadLetterQueueUrl): the dispatcher failed on ' +
        'each 5 times (or EventBridge could not queue it), so some activated subscriptions did not get them. Read the ' +
        'dispatcher\'s log lines "publish failed" or "portal event not dispatched" for the cause, fix it, then redrive ' +
        'the queue to its source (the retry publishes only to the recipients not yet reached). Kept 14 days. ' +
        'See docs/operations.md.',
      metric: props.portalEventsDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    // SNS sends each dead letter as a new message, so its age counts from when it failed
    // ("Available CloudWatch metrics for Amazon SQS",
    // https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html).
    // The same page: a message received 3 times and not deleted no longer counts towards the
    // age, so a recorder that takes every message and fails on it shows in its errors alarm
    // instead; this one sees a recorder that does not take them at all. Empty queue: no data.
    this.deliveryDeadLettersWaiting = watch(this, 'DeliveryDeadLettersWaiting', notify, {
      alarmName: `${alarmNamePrefix}delivery-dead-letters-waiting`,
      alarmDescription:
        `A message has waited more than ${DELIVERY_DEAD_LETTER_MAX_AGE.toMinutes()} minutes in the delivery dead-letter ` +
        'queue (output DeliveryDeadLetterQueueUrl): the dead-letter forwarder is not sending dead letters on to the ' +
        'recorder, so tenants cannot see or replay them. Read the forwarder\'s logs and its errors alarm, and check its ' +
        'queue trigger is enabled. The messages wait in the queue up to 14 days; once the forwarder works they drain by ' +
        'themselves. See docs/operations.md.',
      metric: props.deliveryDeadLetterQueue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }),
      threshold: DELIVERY_DEAD_LETTER_MAX_AGE.toSeconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    // The forwarder sends each as a new message: its age here counts from when it was forwarded.
    this.deadLettersByPortalWaiting = watch(this, 'DeadLettersByPortalWaiting', notify, {
      alarmName: `${alarmNamePrefix}dead-letters-by-portal-waiting`,
      alarmDescription:
        `A message has waited more than ${DELIVERY_DEAD_LETTER_MAX_AGE.toMinutes()} minutes in the dead letters by ` +
        'portal (output DeadLettersByPortalQueueUrl): the dead-letter recorder is not storing dead letters, so tenants ' +
        'cannot see or replay them. Read the recorder\'s logs and its errors alarm, and check its queue trigger is ' +
        'enabled. The messages wait in the queue up to 14 days; once the recorder works they drain by themselves. ' +
        'See docs/operations.md.',
      metric: props.deadLettersByPortal.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }),
      threshold: DELIVERY_DEAD_LETTER_MAX_AGE.toSeconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    // Errors counts invocations that failed as a whole (an exception out of the handler, a
    // timeout, a start that refused its configuration), read as a Sum ("Types of metrics for
    // Lambda functions"). Records a queue consumer reports failed one by one are retried by their
    // queue and are no error. No invocations: no data, which is no error.
    const consumerErrors = new Map<string, Alarm>();
    for (const { consumer, failedBatch } of props.consumers) {
      consumerErrors.set(
        consumer.name,
        watch(this, `${consumer.name}Errors`, notify, {
          alarmName: `${alarmNamePrefix}${consumer.name}-errors`,
          alarmDescription:
            `${consumer.name} failed whole invocations (exceptions, timeouts or a failed start) in the last ` +
            `${PERIOD.toMinutes()} minutes; ${failedBatch}. Read its log group for the error ` +
            '(ERROR lines, "Task timed out"), fix the cause or the configuration, and watch the alarm return to OK. ' +
            'See docs/operations.md.',
          metric: consumer.function.metricErrors({ period: PERIOD, statistic: 'Sum' }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        }),
      );
    }
    this.consumerErrors = consumerErrors;

    const jobErrors = new Map<string, Alarm>();
    const missedRuns = new Map<string, Alarm>();
    for (const { job, every, failedRun } of props.jobs) {
      const period = checkedJobPeriod(job.name, every);
      // Over 5 minutes, or over the job's period when that is longer: a job failing on every run
      // then has an error in every period and stays in ALARM, where a 5-minute window would flip
      // to OK and back between its runs (two notifications a run).
      const errorsPeriod = Duration.seconds(Math.max(PERIOD.toSeconds(), period.toSeconds()));
      jobErrors.set(
        job.name,
        watch(this, `${job.name}Errors`, notify, {
          alarmName: `${alarmNamePrefix}${job.name}-errors`,
          alarmDescription:
            `${job.name} (run every ${describe(period)}) failed whole runs (exceptions, timeouts or a failed start) in ` +
            `the last ${describe(errorsPeriod)}; ${failedRun}. Read its log group for the error (ERROR lines, ` +
            '"Task timed out"), fix the cause or the configuration; the alarm returns to OK after a period without ' +
            'errors. See docs/operations.md.',
          metric: job.function.metricErrors({ period: errorsPeriod, statistic: 'Sum' }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        }),
      );

      // Invocations counts every run that started, failed ones included, and none that was
      // throttled ("Types of metrics for Lambda functions",
      // https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html); Lambda sends
      // no data point for a period without one, so here missing data is the very thing to see.
      // Two periods in a row, not one: EventBridge's start times wander by some seconds, and one
      // run falling just past a period's end leaves that period empty and the next with two.
      const missed = new Alarm(this, `${job.name}MissedRuns`, {
        alarmName: `${alarmNamePrefix}${job.name}-missed-runs`,
        alarmDescription:
          `${job.name} has not started for ${MISSED_RUNS} of its periods in a row (${MISSED_RUNS} x ` +
          `${describe(period)}): its schedule rule is disabled or deleted, EventBridge may not invoke it, or it is ` +
          'throttled (reserved concurrency 0). Check the rule is enabled and targets the function, and the ' +
          "function's Throttles metric; the alarm returns to OK once it runs again. See docs/operations.md.",
        metric: job.function.metricInvocations({ period, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: MISSED_RUNS,
        datapointsToAlarm: MISSED_RUNS,
        treatMissingData: TreatMissingData.BREACHING,
      });
      missed.addAlarmAction(notify);
      missed.addOkAction(notify);
      missedRuns.set(job.name, missed);
    }
    this.jobErrors = jobErrors;
    this.missedRuns = missedRuns;

    // The consumer's line `{"message": "...dropped...", "count": n}` (functions/recordDeliveryAttempts.ts)
    // as a metric of the stack's namespace, the count taken from the line as a number
    // ("Filter pattern syntax for metric filters",
    // https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html); no line, no datapoint.
    const namespace = `WebhookSubscriptions/${stack.stackName}`;
    new MetricFilter(this, `${UNKNOWN_RECORDS_METRIC}Filter`, {
      logGroup: props.attemptsConsumer.logGroup,
      filterPattern: FilterPattern.all(FilterPattern.stringValue('$.message', '=', UNKNOWN_MESSAGE_DROPPED), FilterPattern.numberValue('$.count', '>', 0)),
      metricNamespace: namespace,
      metricName: UNKNOWN_RECORDS_METRIC,
      metricValue: '$.count',
    });
    this.unknownDeliveryStatusRecords = watch(this, 'UnknownDeliveryStatusRecords', notify, {
      alarmName: `${alarmNamePrefix}unknown-delivery-status-records`,
      alarmDescription:
        'The attempts consumer dropped delivery status records whose SNS message id is none the service published to ' +
        'their topic: someone wrote forged records into a log group named like one of the service\'s topics, or ' +
        'messages were published but not logged (the publishers\' "message published but not logged" lines). The ' +
        'consumer\'s line names the log group and message ids. Nothing was kept for a tenant. See docs/operations.md.',
      metric: new Metric({ namespace, metricName: UNKNOWN_RECORDS_METRIC, statistic: 'Sum', period: PERIOD }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
  }
}

/**
 * The job's period as an alarm period, refused at synth where CloudWatch would refuse it at
 * deploy: a period is 10, 20, 30 or a multiple of 60 seconds, and the alarm's whole evaluation
 * (period x evaluation periods) is at most 1 day when the period is under an hour, 7 days
 * otherwise (PutMetricAlarm, Period, in the CloudWatch API Reference,
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html; read in
 * https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/cloudwatch/aws.sdk.kotlin.services.cloudwatch.model/-put-metric-alarm-request/period.html).
 * The 10 to 30 s periods need high-resolution metrics, which Lambda's are not, so a whole number
 * of minutes it is: reconcileEveryMinutes' 1 to 1440 all fit (2 x 1440 minutes is 2 days).
 */
export function checkedJobPeriod(name: string, every: Duration): Duration {
  const seconds = every.toSeconds();
  const longest = seconds < 3600 ? 86_400 : 604_800;
  if (!Number.isInteger(seconds) || seconds < 60 || seconds % 60 !== 0 || seconds * MISSED_RUNS > longest) {
    throw new Error(
      `${name} runs every ${seconds} s: its missed-runs alarm needs a whole number of minutes, and ${MISSED_RUNS} periods ` +
        `within ${longest / 86_400} day(s) (CloudWatch's PutMetricAlarm).`,
    );
  }
  return every;
}

/** `1 minute`, `15 minutes`, `1440 minutes`. */
function describe(period: Duration): string {
  const minutes = period.toMinutes();
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** One alarm on one period, no data counted as fine, telling the topic when it fires and when it is OK again. */
function watch(
  scope: Construct,
  id: string,
  notify: IAlarmAction,
  props: Pick<ConstructorParameters<typeof Alarm>[2], 'alarmName' | 'alarmDescription' | 'metric' | 'threshold' | 'comparisonOperator'>,
): Alarm {
  const alarm = new Alarm(scope, id, {
    ...props,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(notify);
  alarm.addOkAction(notify);
  return alarm;
}
