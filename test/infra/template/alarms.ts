/**
 * The operator's alarms as the template declares them: one SNS topic for operators (encrypted
 * with a key CloudWatch may use, TLS only, published to by this stack's alarms only, in the
 * outputs), an alarm on the portal-events dead-letter queue, one on the age of the oldest message
 * in the delivery dead-letter queue, and one on the errors of every function that consumes a
 * queue, each notifying the topic when it fires and when it is OK again. Synthesized without
 * bundling.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DELIVERY_DEAD_LETTER_MAX_AGE } from '../../../infra/aws/operator-alarms';
import { STACK_NAME } from '../../../infra/aws/webhook-subscriptions-app';
import { DEAD_LETTER_RECORDER, DISPATCHER } from '../../../shared/operations';
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

  it('fire when a message has waited in the delivery dead-letter queue longer than the recorder ever needs', () => {
    expect(DELIVERY_DEAD_LETTER_MAX_AGE.toMinutes()).toBeGreaterThanOrEqual(5);
    expect(alarm(stack.alarms.deliveryDeadLettersWaiting)).toMatchObject({
      AlarmName: `${STACK_NAME}-delivery-dead-letters-waiting`,
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(stack.delivery.deliveryDeadLetterQueue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 300,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: DELIVERY_DEAD_LETTER_MAX_AGE.toSeconds(),
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm(stack.alarms.deliveryDeadLettersWaiting).AlarmDescription).toMatch(/recorder[\s\S]*14 days[\s\S]*drain by themselves/);
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

  it('watch the errors of every function that consumes a queue or the delivery status logs, and of no other', () => {
    const consumers = [
      ...ofType('AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties.FunctionName.Ref),
      // CloudWatch Logs invokes it asynchronously: an error past Lambda's retries loses those attempts.
      idOf(stack.attempts.consumer.function),
    ];
    const watched = ofType('AWS::CloudWatch::Alarm')
      .filter(([, a]) => a.Properties.MetricName === 'Errors')
      .map(([, a]) => a.Properties.Dimensions.find((d: any) => d.Name === 'FunctionName').Value.Ref);

    expect(consumers).toContain(idOf(stack.delivery.dispatcher.function));
    expect(consumers).toContain(idOf(stack.delivery.recorder.function));
    expect(watched.sort()).toEqual([...new Set(consumers)].sort());
  });

  it('are those three kinds only, each telling the topic when it fires and when it is OK again, named so the topic takes them', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms).toHaveLength(2 + stack.alarms.consumerErrors.size);
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
