/**
 * docs/cost.md's fixed cost at zero traffic counts what the synthesized template holds with the
 * default settings: the KMS keys, the alarms, the dashboards, the metric filters' custom metrics, the schedules (and so their invocations in a month
 * of 30 days), the queue pollers and the log groups with their retention. Synthesized without
 * bundling: only the template matters here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { PROJECT_ROOT } from '../support/npm-start';
import { serviceApp } from '../support/cdk-app';

const page = readFileSync(join(PROJECT_ROOT, 'docs', 'cost.md'), 'utf8');
const idle = page.slice(page.indexOf('## With no traffic: the fixed cost'), page.indexOf('\n## ', page.indexOf('## With no traffic') + 3));
const MINUTES_A_MONTH = 30 * 24 * 60;

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation JSON */
let resources: Record<string, { Type: string; Properties: any }>;

beforeAll(() => {
  resources = Template.fromStack(serviceApp({ bundle: false }).stack).toJSON().Resources;
}, 60_000);

const ofType = (type: string) => Object.values(resources).filter((resource) => resource.Type === type);
/** A count as the page writes it: 43,200. */
const written = (count: number) => count.toLocaleString('en-US');

it('has the section, with its region', () => {
  expect(idle.length).toBeGreaterThan(500);
  expect(idle).toContain('us-east-1');
});

it('counts the KMS keys (rotation on) and the alarms of the template', () => {
  const keys = ofType('AWS::KMS::Key');
  expect(keys.every((key) => key.Properties.EnableKeyRotation === true)).toBe(true);
  expect(idle).toContain(`| ${keys.length} key |`);
  expect(idle).toContain(`| ${ofType('AWS::CloudWatch::Alarm').length} alarms |`);
});

it("counts the schedules' invocations in a month", () => {
  const minutes = ofType('AWS::Events::Rule')
    .map((rule) => /^rate\((\d+) minutes?\)$/.exec(rule.Properties.ScheduleExpression ?? '')?.[1])
    .filter((every) => every !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  expect(minutes).toEqual([1, 15]);
  expect(idle).toContain(`| ${minutes.length} EventBridge rules |`);
  const invocations = minutes.map((every) => MINUTES_A_MONTH / every);
  for (const count of invocations) expect(idle).toContain(`| ${written(count)} invocations |`);
  expect(idle).toContain(`| ${written(invocations.reduce((sum, count) => sum + count, 0))} invocations |`);
});

it('counts the queue pollers and the log groups, with their retention', () => {
  expect(idle).toContain(`| ${ofType('AWS::Lambda::EventSourceMapping').length} event source mappings |`);
  const groups = ofType('AWS::Logs::LogGroup');
  expect(new Set(groups.map((group) => group.Properties.RetentionInDays))).toEqual(new Set([30]));
  expect(idle).toContain(`| ${groups.length} log groups, 30 days kept |`);
});

it('counts the dashboards and the custom metrics of the metric filters', () => {
  const dashboards = ofType('AWS::CloudWatch::Dashboard');
  expect(idle).toContain(`| ${dashboards.length} dashboard |`);
  const metrics = new Set(
    ofType('AWS::Logs::MetricFilter').flatMap((filter) =>
      filter.Properties.MetricTransformations.map((metric: { MetricNamespace: string; MetricName: string }) => `${metric.MetricNamespace}/${metric.MetricName}`),
    ),
  );
  expect(idle).toContain(`| ${metrics.size} custom metrics |`);
});
