/**
 * The dead letters' way to the recorder in the template: the forwarder on the delivery dead-letter
 * queue, and the dead letters by portal, the fair queue only the forwarder may send to
 * (docs/decisions/dead-letters-forwarded-by-portal.md). The recorder's side is in delivery.ts.
 */
import { FORWARDER_CONCURRENCY } from '../../../infra/aws/portal-event-delivery';
import { logicalIdOf } from '../../support/cdk-app';
import { evaluate, type Request, type Statement } from '../../support/iam-policy';
import { resources, stack, template } from '../../support/synthesized-stack';

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation JSON */

const idOf = (construct: { node: { defaultChild?: unknown } }) => logicalIdOf(stack, construct);

describe('the dead-letter forwarder', () => {
  it('consumes the delivery dead-letter queue in batches of 10 (one SendMessageBatch), a few at a time, reporting failed records one by one', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [idOf(stack.delivery.deliveryDeadLetterQueue), 'Arn'] },
      FunctionName: { Ref: idOf(stack.delivery.forwarder.function) },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: FORWARDER_CONCURRENCY },
    });
    // More at a time than the recorder, so a flood waits in the fair queue, not before it.
    expect(FORWARDER_CONCURRENCY).toBeGreaterThan(2);
    const fn = resources[idOf(stack.delivery.forwarder.function)]!.Properties;
    expect(resources[idOf(stack.delivery.deliveryDeadLetterQueue)]!.Properties.VisibilityTimeout).toBe(fn.Timeout * 6);
    expect(fn.Environment.Variables.DEAD_LETTERS_BY_PORTAL_QUEUE_URL).toEqual({ Ref: idOf(stack.delivery.deadLettersByPortal) });
    const mappings = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::Lambda::EventSourceMapping' && resource.Properties.FunctionName.Ref === idOf(stack.delivery.forwarder.function),
    );
    expect(mappings).toHaveLength(1);
  });
});

describe('the dead letters by portal', () => {
  it('keep a dead letter 14 days, encrypted, up to 1 MiB (an escaped notification of 256 KB may exceed 256 KB)', () => {
    expect(resources[idOf(stack.delivery.deadLettersByPortal)]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600, MaximumMessageSize: 1_048_576 },
    });
  });

  it("refuse a message from any principal but the forwarder's role, over TLS only", () => {
    const queueId = idOf(stack.delivery.deadLettersByPortal);
    const [policy] = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::SQS::QueuePolicy' && resource.Properties.Queues.some((q: any) => q.Ref === queueId),
    );
    const statements = policy!.Properties.PolicyDocument.Statement as Statement[];
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    // The forwarder's role, as CloudFormation fills in its ARN.
    const forwarderRole = 'arn:aws:iam::123456789012:role/Forwarder-1A2B';
    const deployed = JSON.parse(
      JSON.stringify(statements).replaceAll(JSON.stringify({ 'Fn::GetAtt': [idOf(stack.delivery.forwarder.role), 'Arn'] }), JSON.stringify(forwarderRole)),
    ) as Statement[];
    const send = (principalArn: string, context: Request['context'] = {}) =>
      evaluate(deployed, {
        action: 'sqs:SendMessage',
        resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
        principal: { AWS: principalArn },
        context: { 'aws:SecureTransport': 'true', 'aws:PrincipalArn': principalArn, ...context },
      });
    // An administrator of the account, whose IAM policies allow sqs:* on every queue.
    expect(send('arn:aws:iam::123456789012:role/Admin')).toBe('denied');
    // The recorder, which consumes the queue, and SNS itself.
    expect(send(`arn:aws:iam::123456789012:role/${idOf(stack.delivery.recorder.role)}`)).toBe('denied');
    expect(
      evaluate(deployed, {
        action: 'sqs:SendMessage',
        resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
        principal: { Service: 'sns.amazonaws.com' },
        context: { 'aws:SecureTransport': 'true', 'aws:PrincipalServiceName': 'sns.amazonaws.com' },
      }),
    ).toBe('denied');
    // The forwarder: not denied here; its own IAM policy allows it.
    expect(send(forwarderRole)).toBe('not allowed');
  });
});
