/**
 * The operator's dashboard as the template declares it (infra/aws/operator-dashboard.ts): one
 * CloudWatch dashboard, in the outputs, whose widgets name every figure issue 43 asks for (events
 * received, messages published, deliveries succeeded and failed, dead letters waiting, retries due,
 * subscriptions disabled, queue age, each function's errors and p99 duration), laid out on the
 * 24-column grid without overlapping; and the metric filters on the retry sweep's log group that
 * make the two figures AWS does not publish, at service level (no dimension). Synthesized without bundling.
 */
import { UNKNOWN_RECORDS_METRIC } from '../../../infra/aws/operator-alarms';
import { DASHBOARD_PERIOD, SWEEP_LOG_MESSAGE, SWEEP_METRICS, SWEEP_UNFINISHED_METRIC } from '../../../infra/aws/operator-dashboard';
import { PROJECT_ROOT, type ServiceFunction } from '../../../infra/aws/service-function';
import { STACK_NAME } from '../../../infra/aws/webhook-subscriptions-app';
import { logicalIdOf } from '../../support/cdk-app';
import { type DashboardWidget, dashboardWidgets, seriesOf } from '../../support/dashboard-body';
import { ofType, stack, template } from '../../support/synthesized-stack';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation and dashboard JSON */

const idOf = (construct: { node: { defaultChild?: unknown } }) => logicalIdOf(stack, construct);
const dashboards = () => ofType('AWS::CloudWatch::Dashboard');
const widgets = (): DashboardWidget[] => dashboardWidgets(dashboards()[0]![1].Properties.DashboardBody);
const graphs = () => widgets().filter((widget) => widget.type === 'metric');
const graph = (title: RegExp) => {
  const found = graphs().filter((widget) => title.test(widget.properties.title));
  expect(found).toHaveLength(1);
  return found[0]!;
};
/** The metric rows of a graph: [namespace, name, dimension, value, options]. */
const rows = (widget: DashboardWidget): any[][] => widget.properties.metrics;
const hasMetric = (widget: DashboardWidget, namespace: string, name: string, dimensionValue: string, stat: string) =>
  rows(widget).some((row) => row[0] === namespace && row[1] === name && row[3] === dimensionValue && row[row.length - 1].stat === stat);
const queueName = (queue: { node: { defaultChild?: unknown } }) => `<${idOf(queue)}.QueueName>`;
const allFunctions = (): ServiceFunction[] => [
  ...stack.functions.values(),
  stack.delivery.dispatcher,
  stack.delivery.forwarder,
  stack.delivery.recorder,
  stack.attempts.consumer,
  stack.retries.sweeper,
  stack.reconciliation.reconciler,
  stack.recoveries.worker,
];
const namespace = () => `WebhookSubscriptions/${STACK_NAME}`;

describe('the operator dashboard', () => {
  it('is one dashboard, named after the stack, in the outputs as OperatorDashboardName', () => {
    expect(dashboards()).toHaveLength(1);
    const [id, dashboard] = dashboards()[0]!;
    expect(dashboard.Properties.DashboardName).toBe(`${STACK_NAME}-operations`);
    template.hasOutput('OperatorDashboardName', { Value: { Ref: id } });
  });

  it('lays its widgets on the 24-column grid, none over another, each graph with a title of its own', () => {
    const all = widgets();
    for (const widget of all) expect(widget.x + widget.width).toBeLessThanOrEqual(24);
    for (const [i, a] of all.entries()) {
      for (const b of all.slice(i + 1)) {
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        expect({ a: a.properties.title ?? 'text', b: b.properties.title ?? 'text', apart }).toEqual(expect.objectContaining({ apart: true }));
      }
    }
    const titles = graphs().map((widget) => widget.properties.title);
    expect(new Set(titles).size).toBe(titles.length);
    // Every series per minute: the figures are "per minute", and the graphs all read alike.
    for (const widget of graphs()) for (const row of rows(widget)) expect(row[row.length - 1].period).toBe(DASHBOARD_PERIOD.toSeconds());
  });

  it('shows the portal events received: what the EventBridge rule put on the events queue', () => {
    expect(hasMetric(graph(/events received/i), 'AWS/SQS', 'NumberOfMessagesSent', queueName(stack.delivery.eventsQueue), 'Sum')).toBe(true);
  });

  it("sums SNS's per-topic published, delivered and failed over the stack's topics, and no other", () => {
    const search = (metricName: string) =>
      `FILL(SUM(SEARCH('{AWS/SNS,TopicName} MetricName="${metricName}" TopicName=${stack.topicPrefix}', 'Sum', 60)), 0)`;
    expect(stack.topicPrefix).toMatch(new RegExp(`^${STACK_NAME}-[0-9a-f]{8}$`));
    expect(seriesOf(graph(/published/i)).map((series) => series.reads)).toEqual([search('NumberOfMessagesPublished')]);
    expect(seriesOf(graph(/deliveries/i))).toEqual([
      { label: 'delivered', reads: search('NumberOfNotificationsDelivered'), axis: 'left' },
      { label: expect.stringMatching(/^failed/), reads: search('NumberOfNotificationsFailed'), axis: 'right' },
    ]);
  });

  it('shows the dead letters waiting in both dead-letter queues, and the age of the oldest message of the events queue and the delivery dead letters', () => {
    const waiting = graph(/dead letters waiting/i);
    for (const queue of [stack.delivery.eventsDeadLetterQueue, stack.delivery.deliveryDeadLetterQueue]) {
      expect(hasMetric(waiting, 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', queueName(queue), 'Maximum')).toBe(true);
    }
    const age = graph(/queue age/i);
    for (const queue of [stack.delivery.eventsQueue, stack.delivery.deliveryDeadLetterQueue]) {
      expect(hasMetric(age, 'AWS/SQS', 'ApproximateAgeOfOldestMessage', queueName(queue), 'Maximum')).toBe(true);
    }
  });

  it("shows the retries due and the subscriptions disabled from the sweep's metric filters, each minute without one as 0", () => {
    const reads = (title: RegExp) => seriesOf(graph(title)).map((series) => series.reads);
    expect(reads(/retries due/i)).toEqual([
      `FILL(${namespace()} ${SWEEP_METRICS.retried}, 0)`,
      `FILL(${namespace()} ${SWEEP_METRICS.failed}, 0)`,
      `FILL(${namespace()} ${SWEEP_UNFINISHED_METRIC}, 0)`,
    ]);
    expect(reads(/subscriptions disabled/i)).toEqual([`FILL(${namespace()} ${SWEEP_METRICS.disabled}, 0)`]);
    for (const widget of [graph(/retries due/i), graph(/subscriptions disabled/i)]) {
      for (const row of rows(widget).filter((one) => one[0] === namespace())) {
        // Namespace, name, options: no dimension, so one metric for the whole service.
        expect(row).toHaveLength(3);
        expect(row[2]).toEqual(expect.objectContaining({ stat: 'Sum', visible: false }));
      }
    }
  });

  it("shows every function's errors (sum) and p99 duration, each by its handler's name", () => {
    const errors = graphs().filter((widget) => /^Errors/.test(widget.properties.title));
    const durations = graphs().filter((widget) => /^Duration p99/.test(widget.properties.title));
    for (const fn of allFunctions()) {
      const name = `<${idOf(fn.function)}>`;
      expect({ fn: fn.name, errors: errors.some((widget) => hasMetric(widget, 'AWS/Lambda', 'Errors', name, 'Sum')) }).toEqual({ fn: fn.name, errors: true });
      expect({ fn: fn.name, p99: durations.some((widget) => hasMetric(widget, 'AWS/Lambda', 'Duration', name, 'p99')) }).toEqual({ fn: fn.name, p99: true });
    }
    const labels = [...errors, ...durations].flatMap((widget) => seriesOf(widget).map((series) => series.label));
    expect(new Set(labels)).toEqual(new Set(allFunctions().map((fn) => fn.name)));
  });
});

describe("the retry sweep's metric filters", () => {
  // The sweep's own (the operator alarms' filter of the attempts consumer is alarms.ts's).
  const filters = () => ofType('AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties).filter((filter) => filter.MetricTransformations[0].MetricName !== UNKNOWN_RECORDS_METRIC);

  it("read the sweep's own log group only, one metric each, in the stack's namespace and with no dimension", () => {
    expect(filters()).toHaveLength(Object.keys(SWEEP_METRICS).length + 1);
    for (const filter of filters()) {
      expect(filter.LogGroupName).toEqual({ Ref: idOf(stack.retries.sweeper.logGroup) });
      expect(filter.MetricTransformations).toHaveLength(1);
      expect(filter.MetricTransformations[0].MetricNamespace).toBe(namespace());
      expect(filter.MetricTransformations[0].Dimensions).toBeUndefined();
      // A default value would be emitted for every other line of the log group.
      expect(filter.MetricTransformations[0].DefaultValue).toBeUndefined();
    }
  });

  it("take each count of the sweep's line as a number, only from the lines that have it", () => {
    for (const [count, metricName] of Object.entries(SWEEP_METRICS)) {
      expect(filters()).toContainEqual(
        expect.objectContaining({
          FilterPattern: `{ ($.message = "${SWEEP_LOG_MESSAGE}") && ($.counts.${count} > 0) }`,
          MetricTransformations: [expect.objectContaining({ MetricName: metricName, MetricValue: `$.counts.${count}` })],
        }),
      );
    }
    expect(filters()).toContainEqual(
      expect.objectContaining({
        FilterPattern: `{ ($.message = "${SWEEP_LOG_MESSAGE}") && ($.unfinished IS TRUE) }`,
        MetricTransformations: [expect.objectContaining({ MetricName: SWEEP_UNFINISHED_METRIC, MetricValue: '1' })],
      }),
    );
  });

  it('match the line the sweep writes (functions/retryDeadLetters.ts)', () => {
    // The message and field names the filters read, as the handler writes them.
    const handler = readFileSync(join(PROJECT_ROOT, 'functions', 'retryDeadLetters.ts'), 'utf8');
    expect(handler).toContain(`logger.info('${SWEEP_LOG_MESSAGE}', { counts: outcome.counts, unfinished: outcome.unfinished })`);
  });
});
