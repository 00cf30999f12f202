/**
 * The operator's alarms as the template declares them: one SNS topic for operators (encrypted
 * with a key CloudWatch may use, TLS only, published to by this stack's alarms only, in the
 * outputs), an alarm on the portal-events dead-letter queue, one on the age of the oldest message
 * in the delivery dead-letter queue, one on the errors of every function that consumes a queue or
 * the delivery status logs, and two on every scheduled job (its errors, its missed runs), each
 * notifying the topic when it fires and when it is OK again; and docs/operations.md's alarm table
 * against them, both ways. Synthesized without bundling.
 */
import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkedJobPeriod, DELIVERY_DEAD_LETTER_MAX_AGE, MISSED_RUNS, UNKNOWN_RECORDS_METRIC } from '../../../infra/aws/operator-alarms';
import { UNKNOWN_MESSAGE_DROPPED } from '../../../shared/attempts/message-join';
import { PROJECT_ROOT } from '../../../infra/aws/service-function';
import { STACK_NAME } from '../../../infra/aws/webhook-subscriptions-app';
import { ATTEMPTS_RECORDER, DEAD_LETTER_FORWARDER, DEAD_LETTER_RECORDER, DISPATCHER, RECONCILER, RETRY_SWEEPER } from '../../../shared/operations';
import { logicalIdOf, REQUIRED_CONTEXT, serviceApp } from '../../support/cdk-app';
import { resources, stack, template } from '../../support/synthesized-stack';

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation JSON */

const idOf = (construct: { node: { defaultChild?: unknown } }) => logicalIdOf(stack, construct);
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const topicRef = () => ({ Ref: idOf(stack.alarms.topic) });

describe('the operator topic', () => {
  it('is in the outputs as OperatorAlarmTopicArn', () => {
    template.hasOutput('OperatorAlarmTopicArn', { Value: topicRef(), Description: Match.stringLikeRegexp('operator alarms') });
  });

  it('is encrypted with a rotating customer managed key that CloudWatch may use (the AWS managed key would refuse it)', () => {
    const topic = resources[idOf(stack.alarms.topic)]!.Properties;
    const keyId = topic.KmsMasterKeyId['Fn::GetAtt'][0];
    const key = resources[keyId]!;

    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual({
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Resource: '*',
    });
  });

  it("takes messages over TLS only, and from CloudWatch only for this stack's alarms in this account", () => {
    const [, policy] = ofType('AWS::SNS::TopicPolicy').find(([, p]) => JSON.stringify(p.Properties.Topics) === JSON.stringify([topicRef()]))!;
    const statements = policy.Properties.PolicyDocument.Statement;

    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const allowed = statements.filter((statement: any) => statement.Effect === 'Allow');
    expect(allowed).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: topicRef(),
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:alarm:${STACK_NAME}-*`]],
            },
          },
        },
      }),
    ]);
  });

  it('has no subscription unless operatorEmails names some', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('the alarms', () => {
  const alarm = (construct: { node: { defaultChild?: unknown } }) => resources[idOf(construct)]!.Properties;

  it('fire on the first portal event in the events dead-letter queue, until the queue is empty again', () => {
    expect(alarm(stack.alarms.portalEventsDeadLetters)).toMatchObject({
      AlarmName: `${STACK_NAME}-portal-events-dead-letters`,
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(stack.delivery.eventsDeadLetterQueue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 300,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm(stack.alarms.portalEventsDeadLetters).AlarmDescription).toMatch(/EventsDeadLetterQueueUrl[\s\S]*redrive/);
  });

  it.each([
    { queue: 'delivery dead-letter queue', name: 'delivery-dead-letters-waiting', of: () => [stack.alarms.deliveryDeadLettersWaiting, stack.delivery.deliveryDeadLetterQueue] as const, says: /forwarder[\s\S]*14 days[\s\S]*drain by themselves/ },
    { queue: 'dead letters by portal', name: 'dead-letters-by-portal-waiting', of: () => [stack.alarms.deadLettersByPortalWaiting, stack.delivery.deadLettersByPortal] as const, says: /DeadLettersByPortalQueueUrl[\s\S]*recorder[\s\S]*14 days[\s\S]*drain by themselves/ },
  ])('fire when a message has waited in the $queue longer than the recorder ever needs', ({ name, of, says }) => {
    const [waiting, queue] = of();
    expect(DELIVERY_DEAD_LETTER_MAX_AGE.toMinutes()).toBeGreaterThanOrEqual(5);
    expect(alarm(waiting)).toMatchObject({
      AlarmName: `${STACK_NAME}-${name}`,
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(queue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 300,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: DELIVERY_DEAD_LETTER_MAX_AGE.toSeconds(),
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm(waiting).AlarmDescription).toMatch(says);
  });

  it('fire on any error of the dispatcher in 5 minutes', () => {
    expect(alarm(stack.alarms.consumerErrors.get(DISPATCHER.handler)!)).toMatchObject({
      AlarmName: `${STACK_NAME}-${DISPATCHER.handler}-errors`,
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(stack.delivery.dispatcher.function) } }],
      Statistic: 'Sum',
      Period: 300,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('fire on any error of the dead-letter recorder in 5 minutes', () => {
    expect(alarm(stack.alarms.consumerErrors.get(DEAD_LETTER_RECORDER.handler)!)).toMatchObject({
      AlarmName: `${STACK_NAME}-${DEAD_LETTER_RECORDER.handler}-errors`,
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(stack.delivery.recorder.function) } }],
      Threshold: 1,
    });
  });

  it('say what becomes of a failed batch: the queue consumers\' queue hands it out again; the attempts consumer, fed by no queue, loses it after Lambda\'s two retries', () => {
    for (const consumer of [DISPATCHER, DEAD_LETTER_FORWARDER, DEAD_LETTER_RECORDER]) {
      expect(alarm(stack.alarms.consumerErrors.get(consumer.handler)!).AlarmDescription).toMatch(/its queue hands the batch out again/);
    }
    const attempts = alarm(stack.alarms.consumerErrors.get(ATTEMPTS_RECORDER.handler)!);
    expect(attempts).toMatchObject({
      AlarmName: `${STACK_NAME}-${ATTEMPTS_RECORDER.handler}-errors`,
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(stack.attempts.consumer.function) } }],
    });
    expect(attempts.AlarmDescription).not.toMatch(/queue hands/);
    expect(attempts.AlarmDescription).toMatch(/no queue feeds it[\s\S]*asynchronously[\s\S]*twice more[\s\S]*discards it/);
    // What that description relies on: no asynchronous invocation settings of its own (Lambda's
    // defaults, two retries), no on-failure destination, no dead-letter queue.
    const consumerId = idOf(stack.attempts.consumer.function);
    const invokeConfigs = ofType('AWS::Lambda::EventInvokeConfig').filter(([, c]) => JSON.stringify(c.Properties.FunctionName) === JSON.stringify({ Ref: consumerId }));
    expect(invokeConfigs).toEqual([]);
    expect(resources[consumerId]!.Properties.DeadLetterConfig).toBeUndefined();
  });

  it('watch the errors of every function that consumes a queue or the delivery status logs or runs on a schedule, and of no other', () => {
    const consumers = [
      ...ofType('AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties.FunctionName.Ref),
      // CloudWatch Logs invokes it asynchronously: an error past Lambda's retries loses those attempts.
      idOf(stack.attempts.consumer.function),
      ...scheduledFunctionIds(),
    ];
    const watched = ofType('AWS::CloudWatch::Alarm')
      .filter(([, a]) => a.Properties.MetricName === 'Errors')
      .map(([, a]) => a.Properties.Dimensions.find((d: any) => d.Name === 'FunctionName').Value.Ref);

    expect(consumers).toContain(idOf(stack.delivery.dispatcher.function));
    expect(consumers).toContain(idOf(stack.delivery.recorder.function));
    expect(watched.sort()).toEqual([...new Set(consumers)].sort());
  });

  it("fires on delivery status records naming no message the service published, counted from the attempts consumer's line", () => {
    expect(alarm(stack.alarms.unknownDeliveryStatusRecords)).toMatchObject({
      AlarmName: `${STACK_NAME}-unknown-delivery-status-records`,
      Namespace: `WebhookSubscriptions/${STACK_NAME}`,
      MetricName: UNKNOWN_RECORDS_METRIC,
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    const [filter] = ofType('AWS::Logs::MetricFilter').filter(([, f]) => f.Properties.MetricTransformations[0].MetricName === UNKNOWN_RECORDS_METRIC);
    expect(filter![1].Properties).toMatchObject({
      LogGroupName: { Ref: idOf(stack.attempts.consumer.logGroup) },
      FilterPattern: `{ ($.message = "${UNKNOWN_MESSAGE_DROPPED}") && ($.count > 0) }`,
      MetricTransformations: [expect.objectContaining({ MetricValue: '$.count', MetricNamespace: `WebhookSubscriptions/${STACK_NAME}` })],
    });
  });

  it('are those five kinds only, each telling the topic when it fires and when it is OK again, named so the topic takes them', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms).toHaveLength(4 + stack.alarms.consumerErrors.size + stack.alarms.jobErrors.size + stack.alarms.missedRuns.size);
    for (const [, { Properties: a }] of alarms) {
      expect({ name: a.AlarmName, actions: a.AlarmActions, ok: a.OKActions, insufficient: a.InsufficientDataActions }).toEqual({
        name: a.AlarmName,
        actions: [topicRef()],
        ok: [topicRef()],
        insufficient: undefined,
      });
      expect(a.AlarmName.startsWith(`${STACK_NAME}-`)).toBe(true);
      // What the notification says to do, and where the operations page is.
      expect(a.AlarmDescription).toMatch(/docs\/operations\.md/);
      expect(a.AlarmDescription.length).toBeLessThanOrEqual(1024);
    }
  });
});

/** The logical ids of the functions an EventBridge rule runs on a schedule. */
function scheduledFunctionIds(): string[] {
  return ofType('AWS::Events::Rule')
    .filter(([, rule]) => rule.Properties.ScheduleExpression !== undefined)
    .flatMap(([, rule]) => rule.Properties.Targets.map((target: any) => target.Arn['Fn::GetAtt'][0]));
}

/** The seconds between two runs of a scheduled function, from its rule's `rate(...)`. */
function scheduleSecondsOf(functionId: string): number {
  const [, rule] = ofType('AWS::Events::Rule').find(([, r]) =>
    (r.Properties.Targets ?? []).some((target: any) => target.Arn['Fn::GetAtt']?.[0] === functionId),
  )!;
  const [, amount, unit] = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(rule.Properties.ScheduleExpression)!;
  return Number(amount) * { minute: 60, minutes: 60, hour: 3600, hours: 3600, day: 86_400, days: 86_400 }[unit!]!;
}

describe('the alarms of the scheduled jobs', () => {
  const alarm = (construct: { node: { defaultChild?: unknown } }) => resources[idOf(construct)]!.Properties;
  const jobs = () => [
    { handler: RETRY_SWEEPER.handler, fn: stack.retries.sweeper.function },
    { handler: RECONCILER.handler, fn: stack.reconciliation.reconciler.function },
  ];

  it('are there for every function a rule runs on a schedule: the retry sweep and the reconciler', () => {
    expect(scheduledFunctionIds().sort()).toEqual(jobs().map(({ fn }) => idOf(fn)).sort());
    expect([...stack.alarms.jobErrors.keys()].sort()).toEqual([RECONCILER.handler, RETRY_SWEEPER.handler].sort());
    expect([...stack.alarms.missedRuns.keys()].sort()).toEqual([RECONCILER.handler, RETRY_SWEEPER.handler].sort());
  });

  it('fire when a run fails, over 5 minutes or the schedule\'s period when longer (so a job failing every run stays in ALARM)', () => {
    for (const { handler, fn } of jobs()) {
      const every = scheduleSecondsOf(idOf(fn));
      expect(alarm(stack.alarms.jobErrors.get(handler)!)).toMatchObject({
        AlarmName: `${STACK_NAME}-${handler}-errors`,
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(fn) } }],
        Statistic: 'Sum',
        Period: Math.max(300, every),
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(alarm(stack.alarms.jobErrors.get(handler)!).AlarmDescription).toMatch(/twice more, then drops it/);
    }
    // The defaults: the sweep every minute, the reconciler every 15.
    expect(scheduleSecondsOf(idOf(stack.retries.sweeper.function))).toBe(60);
    expect(alarm(stack.alarms.jobErrors.get(RECONCILER.handler)!).Period).toBe(900);
  });

  it('fire when a job has not started for two of its periods in a row, no data counting as no run', () => {
    expect(MISSED_RUNS).toBe(2);
    for (const { handler, fn } of jobs()) {
      expect(alarm(stack.alarms.missedRuns.get(handler)!)).toMatchObject({
        AlarmName: `${STACK_NAME}-${handler}-missed-runs`,
        Namespace: 'AWS/Lambda',
        MetricName: 'Invocations',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: idOf(fn) } }],
        Statistic: 'Sum',
        Period: scheduleSecondsOf(idOf(fn)),
        ComparisonOperator: 'LessThanThreshold',
        Threshold: 1,
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
        TreatMissingData: 'breaching',
      });
    }
  });

  it("take every reconcileEveryMinutes CloudWatch takes, and refuse a period it would refuse at deploy", () => {
    for (const minutes of [1, 5, 15, 29, 30, 59, 60, 61, 720, 721, 1440]) {
      expect(checkedJobPeriod('job', Duration.minutes(minutes)).toSeconds()).toBe(minutes * 60);
    }
    // Not whole minutes (10 to 30 s periods need high-resolution metrics, which Lambda's are not).
    for (const seconds of [10, 30, 90]) expect(() => checkedJobPeriod('job', Duration.seconds(seconds))).toThrow(/whole number of minutes/);
    // Over 7 days for two periods of an hour or more.
    expect(() => checkedJobPeriod('job', Duration.days(4))).toThrow(/7 day/);
  });
});

describe("docs/operations.md's alarm table", () => {
  const page = readFileSync(join(PROJECT_ROOT, 'docs/operations.md'), 'utf8');
  /** The rows of the table under "## The alarms", each as its cells. */
  const rows = () => {
    const section = page.split(/^## /m).find((part) => part.startsWith('The alarms\n'));
    if (section === undefined) throw new Error('docs/operations.md has no section "## The alarms".');
    const lines = section.split('\n').filter((line) => line.startsWith('|'));
    expect(lines[0]).toBe('| alarm | fires when | it means | look first at | what to do |');
    return lines.slice(2).map((line) => line.slice(1, -1).split(' | ').map((cell) => cell.trim()));
  };
  /**
   * A row names one alarm, its whole first cell one code span: the name with the default stack
   * name (no placeholder such as `<consumer>`, which would let a row stand for alarms it does not
   * name).
   */
  const nameOf = (cell: string) => {
    const name = /^`([^`]+)`$/.exec(cell)?.[1];
    if (name === undefined || !/^[A-Za-z0-9-]+$/.test(name)) throw new Error(`The alarm cell ${cell} is not one alarm name in backticks.`);
    return name;
  };
  const synthesized = () => ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties.AlarmName as string);

  it('has a row for every alarm of the template, and every row names one of them', () => {
    const documented = rows().map(([cell]) => nameOf(cell!));
    expect(synthesized().every((name) => name.startsWith(`${STACK_NAME}-`))).toBe(true);
    expect(STACK_NAME).toBe('WebhookSubscriptions');
    expect([...documented].sort()).toEqual([...synthesized()].sort());
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('says in each row what fires it, what it means, what to look at first and what to do', () => {
    for (const cells of rows()) {
      expect(cells).toHaveLength(5);
      for (const cell of cells) expect(cell.length).toBeGreaterThan(10);
    }
  });
});

describe('with operatorEmails', () => {
  it('subscribes each address to the topic by e-mail, and cdk-nag still finds nothing', () => {
    const { stack: withEmails } = serviceApp({
      bundle: false,
      context: { ...REQUIRED_CONTEXT, operatorEmails: 'ops@example.com, oncall@example.org' },
    });
    const subscriptions = Object.values(Template.fromStack(withEmails).findResources('AWS::SNS::Subscription'));

    expect(subscriptions.map((s) => [s.Properties.Protocol, s.Properties.Endpoint, s.Properties.TopicArn])).toEqual([
      ['email', 'ops@example.com', { Ref: logicalIdOf(withEmails, withEmails.alarms.topic) }],
      ['email', 'oncall@example.org', { Ref: logicalIdOf(withEmails, withEmails.alarms.topic) }],
    ]);
    expect(new AwsSolutionsChecks().validateScope(withEmails).violations).toEqual([]);
  });
});
