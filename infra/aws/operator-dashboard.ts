/**
 * The operator's CloudWatch dashboard (docs/operations.md#dashboard): the flow of portal events
 * through the service each minute (received, published, delivered, failed), what waits for a
 * person or for the retry sweep (dead letters, queue age, due work), the subscriptions the sweep
 * disabled, and each function's errors and p99 duration.
 *
 * Every figure is one AWS already publishes (EventBridge's, SQS's, SNS's and Lambda's metrics),
 * except the retry sweep's: those come from metric filters on the sweep's log group, which read
 * the one JSON line a sweep with work writes (functions/retryDeadLetters.ts), so no function's code
 * or bundle changes for them. They are service-level metrics in a namespace of the stack's own,
 * with no dimension: never one metric per portal or subscription.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  PeriodOverride,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ServiceFunction } from './service-function';

/** One minute: SQS, SNS and Lambda send CloudWatch their metrics at that resolution. */
export const DASHBOARD_PERIOD = Duration.minutes(1);

/**
 * What a sweep's line counts (shared/dead-letters/sweep.ts), as the metrics the filters make of it.
 * A count is in the line only when some piece of work ended that way.
 */
export const SWEEP_METRICS = {
  /** Due retries of a dead letter the sweep published again. */
  retried: 'RetriesPublished',
  /** Due work (a retry, a notice, a disabling) that failed; it stays due for a later sweep. */
  failed: 'DueWorkFailed',
  /** Subscriptions the sweep disabled for failing too long. */
  disabled: 'SubscriptionsDisabled',
} as const;
/** Runs that ran out of time with work still due: more is due than one run a minute does. */
export const SWEEP_UNFINISHED_METRIC = 'SweepsUnfinished';
/** The message of the sweep's line (functions/retryDeadLetters.ts). */
export const SWEEP_LOG_MESSAGE = 'retry sweep';

export interface OperatorDashboardProps {
  /** Prefix of the subscriptions' topic names: SNS's per-topic metrics are summed over it. */
  readonly topicPrefix: string;
  /** The queue EventBridge puts portal events on. */
  readonly eventsQueue: IQueue;
  readonly eventsDeadLetterQueue: IQueue;
  readonly deliveryDeadLetterQueue: IQueue;
  /** The same dead letters keyed by portal, for the recorder. */
  readonly deadLettersByPortal: IQueue;
  /** The retry sweep, whose log group the metric filters read. */
  readonly sweeper: ServiceFunction;
  /** Every function of the stack, each with its errors and p99 duration: the API's, then the others. */
  readonly apiFunctions: readonly ServiceFunction[];
  readonly otherFunctions: readonly ServiceFunction[];
}

export class OperatorDashboard extends Construct {
  readonly dashboard: Dashboard;
  /** Namespace of the metrics the stack makes from its logs. */
  readonly namespace: string;
  /** The metric filters on the sweep's log group, by the metric each makes. */
  readonly sweepFilters: ReadonlyMap<string, MetricFilter>;

  constructor(scope: Construct, id: string, props: OperatorDashboardProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.namespace = `WebhookSubscriptions/${stack.stackName}`;
    this.sweepFilters = sweepMetricFilters(this, props.sweeper.logGroup, this.namespace);
    const period = DASHBOARD_PERIOD;

    const sweepMetric = (metricName: string, label: string): IMetric =>
      // Runs with nothing to count write no line (or a line without that count): no datapoint, shown as 0.
      // The id names the metric: ids are shared by all the series of a graph.
      new MathExpression({
        expression: `FILL(${metricName[0]!.toLowerCase()}${metricName.slice(1)}, 0)`,
        usingMetrics: { [`${metricName[0]!.toLowerCase()}${metricName.slice(1)}`]: new Metric({ namespace: this.namespace, metricName, statistic: 'Sum', period }) },
        label,
        period,
      });

    const topics = (metricName: string, label: string) => topicSum(props.topicPrefix, metricName, label, period);
    const queue = (q: IQueue, label: string) => ({
      visible: q.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period, label }),
      age: q.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period, label }),
    });
    const events = queue(props.eventsQueue, 'events queue');
    const eventsDead = queue(props.eventsDeadLetterQueue, 'events dead-letter queue');
    const deliveryDead = queue(props.deliveryDeadLetterQueue, 'delivery dead-letter queue');
    const byPortal = queue(props.deadLettersByPortal, 'dead letters by portal');
    const errors = (fns: readonly ServiceFunction[]) => fns.map((fn) => fn.function.metricErrors({ statistic: 'Sum', period, label: fn.name }));
    const p99 = (fns: readonly ServiceFunction[]) => fns.map((fn) => fn.function.metricDuration({ statistic: 'p99', period, label: fn.name }));

    const height = 6;
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${stack.stackName}-operations`,
      defaultInterval: Duration.hours(3),
      periodOverride: PeriodOverride.INHERIT,
      widgets: [
        [
          new TextWidget({
            markdown:
              `# ${stack.stackName}: webhook delivery\n` +
              'Per minute unless said. How to read each graph, what is normal and what to act on: docs/operations.md, "Dashboard". ' +
              'The alarms (output OperatorAlarmTopicArn) tell you when to look.',
            width: 24,
            height: 2,
          }),
        ],
        [
          new GraphWidget({
            title: 'Portal events received',
            // EventBridge's rule puts every portal event on the events queue: what it sent there.
            left: [props.eventsQueue.metricNumberOfMessagesSent({ statistic: 'Sum', period, label: 'events received' })],
            width: 8,
            height,
          }),
          new GraphWidget({
            title: 'Messages published to the topics',
            left: [topics('NumberOfMessagesPublished', 'messages published')],
            width: 8,
            height,
          }),
          new GraphWidget({
            title: 'Deliveries succeeded and failed',
            left: [topics('NumberOfNotificationsDelivered', 'delivered')],
            right: [topics('NumberOfNotificationsFailed', 'failed (after SNS retries)')],
            width: 8,
            height,
          }),
        ],
        [
          new GraphWidget({
            title: 'Dead letters waiting',
            left: [eventsDead.visible, deliveryDead.visible, byPortal.visible],
            width: 6,
            height,
          }),
          new GraphWidget({
            title: 'Queue age: oldest message (seconds)',
            left: [events.age, deliveryDead.age, byPortal.age],
            width: 6,
            height,
          }),
          new GraphWidget({
            title: 'Retries due: the retry sweep',
            left: [sweepMetric(SWEEP_METRICS.retried, 'retries published'), sweepMetric(SWEEP_METRICS.failed, 'due work failed (stays due)')],
            right: [sweepMetric(SWEEP_UNFINISHED_METRIC, 'runs out of time')],
            width: 6,
            height,
          }),
          new GraphWidget({
            title: 'Subscriptions disabled',
            left: [sweepMetric(SWEEP_METRICS.disabled, 'disabled by the sweep')],
            width: 6,
            height,
          }),
        ],
        [
          // Seven functions: a line each in the legend.
          new GraphWidget({ title: 'Errors: delivery and scheduled functions', left: errors(props.otherFunctions), width: 12, height: 7 }),
          new GraphWidget({ title: 'Duration p99: delivery and scheduled functions (ms)', left: p99(props.otherFunctions), width: 12, height: 7 }),
        ],
        [
          // Taller: a legend line for each operation (16 of them).
          new GraphWidget({ title: 'Errors: API operations', left: errors(props.apiFunctions), width: 12, height: 11 }),
          new GraphWidget({ title: 'Duration p99: API operations (ms)', left: p99(props.apiFunctions), width: 12, height: 11 }),
        ],
      ],
    });
  }
}

/**
 * The sum of an SNS metric over the stack's topics: SNS publishes NumberOfMessagesPublished,
 * NumberOfNotificationsDelivered and NumberOfNotificationsFailed per TopicName only ("Monitoring
 * Amazon SNS topics using CloudWatch", https://docs.aws.amazon.com/sns/latest/dg/sns-monitoring-using-cloudwatch.html),
 * and there is one topic per subscription. The unquoted TopicName=<prefix> is a partial match: the
 * prefix's tokens, consecutive, as a composite token of the topic's name; the hash in the prefix
 * (stackTopicPrefix) keeps other stacks' topics out. A search returns at most 500 time series
 * ("CloudWatch search expression syntax",
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/search-expression-syntax.html).
 */
export function topicSum(topicPrefix: string, metricName: string, label: string, period: Duration): MathExpression {
  const seconds = period.toSeconds();
  return new MathExpression({
    expression: `FILL(SUM(SEARCH('{AWS/SNS,TopicName} MetricName="${metricName}" TopicName=${topicPrefix}', 'Sum', ${seconds})), 0)`,
    usingMetrics: {},
    label,
    period,
  });
}

/**
 * The sweep's line is Lambda JSON log format's (the logger's JSON object as it is, service-function.ts):
 * `{"message":"retry sweep","counts":{...},"unfinished":...}`. A filter's value taken from a field
 * needs that field matched by its pattern (CDK's MetricFilterProps.metricValue), and a line lacks
 * the counts that are 0, so each count has its own filter, matching it as a number above 0
 * ("Filter pattern syntax for metric filters", JSON numeric comparisons,
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html). No
 * default value: DefaultValue is what a filter emits for every log event it does not match
 * (AWS::Logs::MetricFilter MetricTransformation), here every other line of the sweep's, so a
 * minute without a count has no datapoint and the dashboard shows it as 0 (FILL).
 */
function sweepMetricFilters(scope: Construct, logGroup: ILogGroup, namespace: string): ReadonlyMap<string, MetricFilter> {
  const isSweepLine = FilterPattern.stringValue('$.message', '=', SWEEP_LOG_MESSAGE);
  const filters = new Map<string, MetricFilter>();
  for (const [count, metricName] of Object.entries(SWEEP_METRICS)) {
    filters.set(
      metricName,
      new MetricFilter(scope, `${metricName}Filter`, {
        logGroup,
        filterPattern: FilterPattern.all(isSweepLine, FilterPattern.numberValue(`$.counts.${count}`, '>', 0)),
        metricNamespace: namespace,
        metricName,
        metricValue: `$.counts.${count}`,
      }),
    );
  }
  filters.set(
    SWEEP_UNFINISHED_METRIC,
    new MetricFilter(scope, `${SWEEP_UNFINISHED_METRIC}Filter`, {
      logGroup,
      filterPattern: FilterPattern.all(isSweepLine, FilterPattern.booleanValue('$.unfinished', true)),
      metricNamespace: namespace,
      metricName: SWEEP_UNFINISHED_METRIC,
      metricValue: '1',
    }),
  );
  return filters;
}
