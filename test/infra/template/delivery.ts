/**
 * Delivery on AWS, as the template declares it: the portal-events bus and its
 * rule, the dispatcher's queue with its dead-letter queue, the dispatcher consuming it with
 * partial batch responses and allowed only Query, its delivery records and Publish, the
 * dead-letter recorder consuming the delivery dead-letter queue and allowed only its items, and the
 * delivery dead-letter queue that SNS (for the service's topics only) may send to. Synthesized
 * without bundling.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { EVENT_MAX_RECEIVE_COUNT } from '../../../infra/aws/portal-event-delivery';
import { FIRST_TRY_WINDOW_MS } from '../../../shared/delivery/dispatch';
import { DEFAULT_EVENT_BUS_NAME } from '../../../shared/delivery/portal-event';
import { logicalIdOf } from '../../support/cdk-app';
import { resources, stack, template } from '../../support/synthesized-stack';
import { evaluate, type Request, type Statement } from '../../support/iam-policy';

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation JSON */

const idOf = (construct: { node: { defaultChild?: unknown } }) => logicalIdOf(stack, construct);
const topicPattern = () => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${stack.topicPrefix}-*`]],
});

/** Statements of the policies attached to the role of a function. */
function statementsOfFunction(functionId: string): { Action: string | string[]; Resource: unknown; Effect: string }[] {
  const roleId = resources[functionId]!.Properties.Role['Fn::GetAtt'][0];
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy' && resource.Properties.Roles.some((r: any) => r.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

describe('portal events in', () => {
  it('arrive on a bus of their own, named by default webhooks-portal-events', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.hasResourceProperties('AWS::Events::EventBus', { Name: DEFAULT_EVENT_BUS_NAME });
  });

  it('of source portal.events are sent by a rule on that bus to the dispatcher queue, each in its portal\'s message group (a fair queue), with a dead-letter queue for failed sends', () => {
    // The one rule on the bus; the other rule of the stack is the reconciler's schedule.
    expect(Object.values(template.findResources('AWS::Events::Rule', { Properties: { EventBusName: Match.anyValue() } }))).toHaveLength(1);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: idOf(stack.delivery.bus) },
      EventPattern: { source: ['portal.events'] },
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [idOf(stack.delivery.eventsQueue), 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [idOf(stack.delivery.eventsDeadLetterQueue), 'Arn'] } },
          SqsParameters: { MessageGroupId: '$.detail.portalId' },
        },
      ],
    });
  });

  it('wait in an encrypted queue whose events go to its own dead-letter queue after repeated failures', () => {
    const queue = resources[idOf(stack.delivery.eventsQueue)]!.Properties;
    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [idOf(stack.delivery.eventsDeadLetterQueue), 'Arn'] },
        maxReceiveCount: EVENT_MAX_RECEIVE_COUNT,
      },
    });
    // Six times the dispatcher's timeout, so a batch in progress is not handed out twice.
    const dispatcherTimeout = resources[idOf(stack.delivery.dispatcher.function)]!.Properties.Timeout;
    expect(queue.VisibilityTimeout).toBe(dispatcherTimeout * 6);
    // A message redriven from the dead-letter queue is new to SQS (receive count 1): the dispatcher
    // tells it from a first try by its event's age, so its tries must outlast that window.
    expect((EVENT_MAX_RECEIVE_COUNT - 1) * queue.VisibilityTimeout * 1000).toBeGreaterThan(FIRST_TRY_WINDOW_MS);
  });
});

describe('the events queue', () => {
  it('takes messages from EventBridge sending for the bus\'s rule only: no principal of the account can put a forged event there', () => {
    const queueId = idOf(stack.delivery.eventsQueue);
    const [policy] = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::SQS::QueuePolicy' && resource.Properties.Queues.some((q: any) => q.Ref === queueId),
    );
    const ruleId = Object.keys(template.findResources('AWS::Events::Rule', { Properties: { EventBusName: Match.anyValue() } }))[0]!;
    const ruleArn = 'arn:aws:events:eu-west-1:123456789012:rule/webhooks-portal-events/PortalEventsToQueue';
    // The policy as CloudFormation deploys it in account 123456789012, eu-west-1, the rule's ARN filled in.
    const statements = JSON.parse(
      JSON.stringify(resolvePseudoParameters(policy!.Properties.PolicyDocument.Statement)).replaceAll(JSON.stringify({ 'Fn::GetAtt': [ruleId, 'Arn'] }), JSON.stringify(ruleArn)),
    ) as Statement[];
    const send = (principal: Request['principal'], context: Request['context']) =>
      evaluate(statements, { action: 'sqs:SendMessage', resource: { 'Fn::GetAtt': [queueId, 'Arn'] }, principal, context: { 'aws:SecureTransport': 'true', ...context } });
    const events = (sourceArn: string) => send({ Service: 'events.amazonaws.com' }, { 'aws:PrincipalServiceName': 'events.amazonaws.com', 'aws:SourceArn': sourceArn });

    // An administrator of the account, whose IAM policies allow sqs:* on every queue, putting a forged notice.
    expect(send({ AWS: 'arn:aws:iam::123456789012:role/Admin' }, { 'aws:PrincipalArn': 'arn:aws:iam::123456789012:role/Admin' })).toBe('denied');
    // EventBridge sending for another rule of the account (any rule may name the queue as its target).
    expect(events('arn:aws:events:eu-west-1:123456789012:rule/default/someone-elses-rule')).toBe('denied');
    // SNS, or any other service, sending for a resource of its own.
    expect(send({ Service: 'sns.amazonaws.com' }, { 'aws:PrincipalServiceName': 'sns.amazonaws.com', 'aws:SourceArn': ruleArn })).toBe('denied');
    // The bus's rule: the one sender let through, besides the account's root user (moving the dead letters back).
    expect(events(ruleArn)).toBe('allowed');
    expect(send({ AWS: 'arn:aws:iam::123456789012:root' }, { 'aws:PrincipalArn': 'arn:aws:iam::123456789012:root' })).not.toBe('denied');
  });
});

describe('the dispatcher', () => {
  it('consumes the queue in batches of 10 gathered for up to 1 s, at most dispatcherMaxConcurrency (10) at a time, and reports failed records one by one', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [idOf(stack.delivery.eventsQueue), 'Arn'] },
      FunctionName: { Ref: idOf(stack.delivery.dispatcher.function) },
      // One PublishBatch holds 10 entries: a batch of one portal's events is one call per recipient.
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });

  it('may only Query the table, read and write its delivery records, log its messages, Publish to the service topics, consume its queue and write its logs', () => {
    const statements = statementsOfFunction(idOf(stack.delivery.dispatcher.function));
    const byResource = (resource: unknown) =>
      statements
        .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(resource))
        .flatMap((statement) => [statement.Action].flat())
        .sort();

    expect(byResource({ 'Fn::GetAtt': [idOf(stack.table), 'Arn'] })).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    // The delivery records' partitions only (shared/data/delivery-progress.ts), never a portal's.
    const onTable = statements.filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify({ 'Fn::GetAtt': [idOf(stack.table), 'Arn'] }));
    expect(onTable.find((statement) => [statement.Action].flat().includes('dynamodb:UpdateItem'))).toMatchObject({
      Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['delivery#*'] } },
    });
    expect(byResource(topicPattern())).toEqual(['sns:Publish']);
    expect(byResource({ 'Fn::GetAtt': [idOf(stack.delivery.eventsQueue), 'Arn'] })).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ]);
    const granted = statements.flatMap((statement) => [statement.Action].flat()).sort();
    expect(granted).toEqual(
      [
        'dynamodb:Query',
        // The message log (infra/aws/message-log-permissions.ts).
        'dynamodb:BatchWriteItem',
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'sns:Publish',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ].sort(),
    );
    for (const statement of statements) expect(statement.Effect).toBe('Allow');
  });

  it('runs the dispatcher bundle on Node.js 24 with the service configuration', () => {
    const fn = resources[idOf(stack.delivery.dispatcher.function)]!.Properties;
    expect(fn).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 30 });
    expect(fn.Environment.Variables).toMatchObject({ TABLE_NAME: { Ref: idOf(stack.table) }, EVENT_KINDS: expect.any(String) });
  });
});

describe('the delivery dead-letter queue', () => {
  it('is named in the create function configuration, so every SNS subscription redrives to it', () => {
    const create = resources[idOf(stack.functions.get('createSubscriptionRoute')!.function)]!.Properties;
    expect(create.Environment.Variables.DELIVERY_DEAD_LETTER_QUEUE_ARN).toEqual({
      'Fn::GetAtt': [idOf(stack.delivery.deliveryDeadLetterQueue), 'Arn'],
    });
  });

  it('accepts messages from SNS for the service topics only, over TLS only', () => {
    const queueId = idOf(stack.delivery.deliveryDeadLetterQueue);
    const [policy] = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::SQS::QueuePolicy' && resource.Properties.Queues.some((q: any) => q.Ref === queueId),
    );
    const statements = policy!.Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
        Condition: { ArnLike: { 'aws:SourceArn': topicPattern() } },
      }),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    expect(resources[queueId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  it('refuses a hand-made message from any principal of the account, and SNS sending for a topic not the service\'s', () => {
    const queueId = idOf(stack.delivery.deliveryDeadLetterQueue);
    const [policy] = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::SQS::QueuePolicy' && resource.Properties.Queues.some((q: any) => q.Ref === queueId),
    );
    // The policy as CloudFormation deploys it in account 123456789012, eu-west-1.
    const statements = resolvePseudoParameters(policy!.Properties.PolicyDocument.Statement) as Statement[];
    const topicOf = (name: string) => `arn:aws:sns:eu-west-1:123456789012:${name}`;
    const ownTopic = topicOf(`${stack.topicPrefix}-0190a5b2-6c3d-7e4f-8a9b-0c1d2e3f4a5b`);
    const send = (principal: Request['principal'], context: Request['context']) =>
      evaluate(statements, { action: 'sqs:SendMessage', resource: { 'Fn::GetAtt': [queueId, 'Arn'] }, principal, context: { 'aws:SecureTransport': 'true', ...context } });

    // An administrator of the account, whose IAM policies allow sqs:* on every queue, forging a Notification.
    expect(send({ AWS: 'arn:aws:iam::123456789012:role/Admin' }, { 'aws:PrincipalArn': 'arn:aws:iam::123456789012:role/Admin' })).toBe('denied');
    // SNS redriving for a topic of the account that is not the service's.
    expect(send({ Service: 'sns.amazonaws.com' }, { 'aws:PrincipalServiceName': 'sns.amazonaws.com', 'aws:SourceArn': topicOf('someone-elses-topic') })).toBe('denied');
    // Another service sending for a resource of its own.
    expect(send({ Service: 'events.amazonaws.com' }, { 'aws:PrincipalServiceName': 'events.amazonaws.com', 'aws:SourceArn': 'arn:aws:events:eu-west-1:123456789012:rule/r' })).toBe('denied');
    // SNS redriving an undeliverable message of a subscription's topic: the one sender let through.
    expect(send({ Service: 'sns.amazonaws.com' }, { 'aws:PrincipalServiceName': 'sns.amazonaws.com', 'aws:SourceArn': ownTopic })).toBe('allowed');
  });
});

/** A template value with Fn::Join and the pseudo parameters' Refs filled in, as CloudFormation would in 123456789012, eu-west-1. */
function resolvePseudoParameters(value: unknown): unknown {
  const pseudo: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': 'eu-west-1', 'AWS::AccountId': '123456789012' };
  if (Array.isArray(value)) return value.map(resolvePseudoParameters);
  if (typeof value !== 'object' || value === null) return value;
  const object = value as Record<string, unknown>;
  if (typeof object.Ref === 'string' && pseudo[object.Ref]) return pseudo[object.Ref];
  if (Array.isArray(object['Fn::Join'])) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    const resolved = parts.map(resolvePseudoParameters);
    if (resolved.every((part) => typeof part === 'string')) return resolved.join(separator);
  }
  return Object.fromEntries(Object.entries(object).map(([key, entry]) => [key, resolvePseudoParameters(entry)]));
}

describe('the dead-letter recorder', () => {
  it('consumes the dead letters by portal in batches of 30 within 1 s, two at a time (30 in flight when a batch is chosen, for the fair queue), reporting failed records one by one', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [idOf(stack.delivery.deadLettersByPortal), 'Arn'] },
      FunctionName: { Ref: idOf(stack.delivery.recorder.function) },
      BatchSize: 30,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    // Six times its timeout, so a batch in progress is not handed out twice.
    const recorderTimeout = resources[idOf(stack.delivery.recorder.function)]!.Properties.Timeout;
    expect(resources[idOf(stack.delivery.deadLettersByPortal)]!.Properties.VisibilityTimeout).toBe(recorderTimeout * 6);
    const mappings = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::Lambda::EventSourceMapping' && resource.Properties.FunctionName.Ref === idOf(stack.delivery.recorder.function),
    );
    expect(mappings).toHaveLength(1);
  });

  it('may only read portals\' partitions, write there only dead letters and their counters, put and delete only due work in the sweep\'s partitions, mark a message dead-lettered, consume its queue and write its logs', () => {
    const statements = statementsOfFunction(idOf(stack.delivery.recorder.function)) as any[];
    const table = { 'Fn::GetAtt': [idOf(stack.table), 'Arn'] };
    const portalsOnly = { 'dynamodb:LeadingKeys': ['idempotency#*', 'delivery#*', 'retry-due#*', 'message-id#*', 'recovery#running'] };
    const onTable = statements.filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(table));
    expect(onTable).toEqual([
      { Effect: 'Allow', Action: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'], Resource: table, Condition: { 'ForAllValues:StringNotLike': portalsOnly } },
      {
        Effect: 'Allow',
        Action: ['dynamodb:DeleteItem', 'dynamodb:PutItem'],
        Resource: table,
        Condition: {
          'ForAllValues:StringNotLike': portalsOnly,
          'ForAllValues:StringLike': {
            'dynamodb:Attributes': [
              'portalId', 'sk', 'configId', 'eventId', 'event', 'occurredAt', 'failedAt', 'messageId', 'message', 'retries', 'nextRetryAt', 'retriedAt', 'idempotencyExpiresAt',
            ],
          },
        },
      },
      {
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: table,
        Condition: {
          'ForAllValues:StringNotLike': portalsOnly,
          'ForAllValues:StringLike': { 'dynamodb:Attributes': ['portalId', 'sk', 'lastDeadLetterAt', 'deadLettersDropped', 'failingSince', 'deadLetters@*', 'retryingDeadLetters@*'] },
        },
      },
      // The message log (infra/aws/message-log-permissions.ts): a dead letter's message found by its id, and marked.
      { Effect: 'Allow', Action: 'dynamodb:BatchGetItem', Resource: table, Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['message-id#*'] } } },
      {
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: table,
        Condition: {
          'ForAllValues:StringNotLike': portalsOnly,
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['portalId', 'sk', 'deliveryState', 'lastAttemptAt', 'statusCode', 'attempts'] },
        },
      },
      {
        // The next scheduled retry (or check for disabling) of a dead letter, and the deletion of an
        // evicted one's retry: the sweep's partitions only.
        Effect: 'Allow',
        Action: ['dynamodb:DeleteItem', 'dynamodb:PutItem'],
        Resource: table,
        Condition: {
          'ForAllValues:StringLike': {
            'dynamodb:Attributes': ['portalId', 'sk', 'kind', 'dueAt', 'subscriptionPortalId', 'configId', 'letterSk', 'failingSince', 'idempotencyExpiresAt'],
            'dynamodb:LeadingKeys': ['retry-due#*'],
          },
        },
      },
    ]);
    const queue = { 'Fn::GetAtt': [idOf(stack.delivery.deadLettersByPortal), 'Arn'] };
    const onQueue = statements.filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(queue));
    expect(onQueue.flatMap((statement) => [statement.Action].flat()).sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ]);
    const granted = statements.flatMap((statement) => [statement.Action].flat());
    expect(granted.filter((action) => !action.startsWith('sqs:') && !action.startsWith('dynamodb:')).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    // No SNS at all, and no statement outside the table, its queue and its logs.
    expect(statements.every((statement) => statement.Effect === 'Allow')).toBe(true);
  });

  it('runs the recorder bundle on Node.js 24 with the service configuration', () => {
    const fn = resources[idOf(stack.delivery.recorder.function)]!.Properties;
    expect(fn).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 30 });
    expect(fn.Environment.Variables).toMatchObject({ TABLE_NAME: { Ref: idOf(stack.table) }, TOPIC_PREFIX: expect.any(String) });
  });
});

describe('the test operation', () => {
  it('is routed under both prefixes, with the write scope', () => {
    const routes = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::ApiGatewayV2::Route')
      .filter((route) => route.Properties.RouteKey.endsWith('/test'));
    expect(routes.map((route) => route.Properties.RouteKey).sort()).toEqual([
      'POST /v7/webhooks/public/api/subscriptions/test',
      'POST /webhooks/api/subscriptions/test',
    ]);
    for (const route of routes) expect(route.Properties.AuthorizationScopes).toEqual(['webhooks.config:write']);
  });
});
