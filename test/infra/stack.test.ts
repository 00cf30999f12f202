/**
 * The CloudFormation template `cdk synth` produces, checked against the operations table and
 * the deployment settings: table, functions, routes and their authorization, stage, least-privilege IAM,
 * cdk-nag's AWS Solutions rules, and what goes into each function's bundle.
 */
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { spawn, spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_SETTINGS } from '../../infra/aws/deployment-settings';
import { esbuildOptionsFor } from '../../infra/aws/function-bundling';
import { ownSourceMap, type SourceMapV3 } from '../../infra/aws/own-source-map';
import { PROJECT_ROOT } from '../../infra/aws/service-function';
import { OPERATION_PERMISSIONS, RATE_LIMIT_PERMISSIONS, REPLAY_DUE_WORK } from '../../infra/aws/operation-permissions';
import { MANAGEMENT_ACTIONS } from '../../shared/subscriptions/topic-policy';
import { STACK_NAME } from '../../infra/aws/webhook-subscriptions-app';
import type { WebhookSubscriptionsStack } from '../../infra/aws/webhook-subscriptions-stack';
import { loadConfig } from '../../shared/config';
import { API_PREFIXES, ATTEMPTS_RECORDER, DEAD_LETTER_RECORDER, DISPATCHER, OPERATIONS, RECONCILER, RETRY_SWEEPER } from '../../shared/operations';
import { EXPIRY_ATTRIBUTE, TABLE_KEYS } from '../../shared/subscriptions/table';
import { logicalIdOf, REQUIRED_CONTEXT, serviceApp } from '../support/cdk-app';
import { httpEvent } from '../support/http-events';

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation JSON */
type Resources = Record<string, { Type: string; Properties: any; Metadata?: any; DeletionPolicy?: string }>;

let stack: WebhookSubscriptionsStack;
let template: Template;
let resources: Resources;
let assemblyDirectory: string;

beforeAll(() => {
  const synthesized = serviceApp();
  stack = synthesized.stack;
  assemblyDirectory = synthesized.app.synth().directory;
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
}, 120_000);

const tableId = () => logicalIdOf(stack, stack.table);
const functionIdOf = (op: (typeof OPERATIONS)[number]) => logicalIdOf(stack, stack.functions.get(op.id)!.function);
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);

describe('the subscriptions table', () => {
  it('is keyed portalId/sk (strings), on demand, with point-in-time recovery, kept on delete and replace', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      },
    });
  });

  it("expires idempotency records by TTL, on the persistence layer's expiry attribute", () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: EXPIRY_ATTRIBUTE, Enabled: true },
    });
  });
});

describe('the functions', () => {
  it('are one per operation, the dispatcher, the dead-letter recorder, the attempts consumer, the reconciler and the retry sweep', () => {
    template.resourceCountIs('AWS::Lambda::Function', OPERATIONS.length + 5);
  });

  describe.each(OPERATIONS.map((op) => [op.handler, op] as const))('%s', (_handler, op) => {
    it('runs on Node.js 24, arm64, from its own bundle, with the service configuration', () => {
      const fn = resources[functionIdOf(op)]!;

      expect(fn.Metadata).toMatchObject({ SamResourceId: op.handler, 'aws:asset:is-bundled': true });
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Timeout: 10,
        MemorySize: 256,
      });
      expect(fn.Properties.Environment.Variables).toEqual({
        TABLE_NAME: { Ref: tableId() },
        TOPIC_PREFIX: stack.topicPrefix,
        MAX_SUBSCRIPTIONS_PER_PORTAL: String(DEFAULT_SETTINGS.maxSubscriptionsPerPortal),
        PORTAL_CLAIM: DEFAULT_SETTINGS.portalClaim,
        EVENT_KINDS: DEFAULT_SETTINGS.eventKinds.join(','),
        DELIVERY_RETRY_SCHEDULE: DEFAULT_SETTINGS.deliveryRetrySchedule,
        DISABLE_FAILING_AFTER: DEFAULT_SETTINGS.disableFailingAfter,
        // Only create and confirm subscribe endpoints, and name their dead-letter queue when they do.
        ...((op.id === 'createSubscriptionRoute' || op.id === 'confirmSubscriptionRoute') && {
          DELIVERY_DEAD_LETTER_QUEUE_ARN: { 'Fn::GetAtt': [logicalIdOf(stack, stack.delivery.deliveryDeadLetterQueue), 'Arn'] },
        }),
        // Only create makes topics, and gives each the access policy naming the publishers and delivery status logging.
        ...(op.id === 'createSubscriptionRoute' && { TOPIC_PUBLISHER_ARNS: publishersVariable(), TOPIC_MANAGER_ARNS: managersVariable(), ...deliveryStatusVariables() }),
        // The routes that make SNS send hold each portal to its limit; confirm, the endpoint to its confirmation requests.
        ...(op.limitedPerPortal && {
          PORTAL_SEND_BURST: String(DEFAULT_SETTINGS.portalSendBurst),
          PORTAL_SEND_RATE_PER_MINUTE: String(DEFAULT_SETTINGS.portalSendRatePerMinute),
        }),
        ...(op.id === 'confirmSubscriptionRoute' && { CONFIRMATION_REQUESTS_PER_DAY: String(DEFAULT_SETTINGS.confirmationRequestsPerDay) }),
      });
    });

    it('logs to its own log group, kept for a month', () => {
      const logGroupId = resources[functionIdOf(op)]!.Properties.LoggingConfig.LogGroup.Ref;

      expect(resources[logGroupId]).toMatchObject({ Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30 } });
    });

    it("logs in Lambda's JSON format, application and system lines from INFO up (the logger reads the level Lambda gives it)", () => {
      expect(resources[functionIdOf(op)]!.Properties.LoggingConfig).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'INFO' });
    });

    it('may call exactly the actions of its operation, on the table and the service topics only', () => {
      const roleId = resources[functionIdOf(op)]!.Properties.Role['Fn::GetAtt'][0];
      const statements = policyStatementsOf(roleId);
      const logGroupId = resources[functionIdOf(op)]!.Properties.LoggingConfig.LogGroup.Ref;
      const expected = OPERATION_PERMISSIONS[op.id];

      expect(resources[roleId]!.Properties.ManagedPolicyArns).toBeUndefined();
      expect(actionsOn(statements, { 'Fn::GetAtt': [logGroupId, 'Arn'] })).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      const idempotencyRecords: readonly string[] = [
        ...(('idempotencyRecords' in expected && expected.idempotencyRecords) || []),
        // The portal's rate limit item, in a statement of its own.
        ...(op.limitedPerPortal ? RATE_LIMIT_PERMISSIONS : []),
        // Replay ends the schedule of what it sends: it deletes the due retry, in a statement of its own.
        ...(op.id === 'replayDeadLettersRoute' ? REPLAY_DUE_WORK : []),
      ];
      expect(actionsOn(statements, { 'Fn::GetAtt': [tableId(), 'Arn'] })).toEqual([...expected.table, ...idempotencyRecords].sort());
      expect(actionsOn(statements, topicArnPattern(stack.topicPrefix))).toEqual([...expected.topics].sort());
      // Only create names the delivery status logging role in the topics it makes.
      const passRole = op.id === 'createSubscriptionRoute' ? ['iam:PassRole'] : [];
      expect(actionsOn(statements, loggingRoleArn())).toEqual(passRole);
      // Nothing else: every statement is one of the four above.
      const granted = statements.flatMap((statement) => [statement.Action].flat());
      expect(granted.sort()).toEqual(
        ['logs:CreateLogStream', 'logs:PutLogEvents', ...expected.table, ...idempotencyRecords, ...expected.topics, ...passRole].sort(),
      );
    });
  });

  it('get an environment the functions accept at cold start, meaning what it says', () => {
    const deadLetterQueueArn = 'arn:aws:sqs:eu-west-1:123456789012:delivery-dead-letters';
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      const deployed = fn.Properties.Environment.Variables;
      // CloudFormation fills in the references; these are values of the same shape.
      const publishers = ['arn:aws:iam::123456789012:role/Dispatcher-1A2B', 'arn:aws:iam::123456789012:role/Test-3C4D'];
      const loggingRole = 'arn:aws:iam::123456789012:role/SnsDeliveryStatusLogging-5E6F';
      const managers = ['arn:aws:iam::123456789012:role/Create-7A8B', 'arn:aws:iam::123456789012:role/Reconciler-9C0D'];
      const variables = {
        ...deployed,
        TABLE_NAME: 'subscriptions',
        ...(deployed.DELIVERY_DEAD_LETTER_QUEUE_ARN && { DELIVERY_DEAD_LETTER_QUEUE_ARN: deadLetterQueueArn }),
        ...(deployed.TOPIC_PUBLISHER_ARNS && { TOPIC_PUBLISHER_ARNS: publishers.join(',') }),
        ...(deployed.TOPIC_MANAGER_ARNS && { TOPIC_MANAGER_ARNS: managers.join(',') }),
        ...(deployed.DELIVERY_STATUS_ROLE_ARN && { DELIVERY_STATUS_ROLE_ARN: loggingRole }),
      };

      expect(loadConfig(variables)).toEqual({
        tableName: 'subscriptions',
        topicPrefix: stack.topicPrefix,
        maxSubscriptionsPerPortal: 10,
        portalClaim: 'portal_id',
        eventKinds: loadConfig({ TABLE_NAME: 'x' }).eventKinds,
        deliveryDeadLetterQueueArn: deployed.DELIVERY_DEAD_LETTER_QUEUE_ARN ? deadLetterQueueArn : undefined,
        reconcileGraceMinutes: 15,
        topicPublisherArns: deployed.TOPIC_PUBLISHER_ARNS ? publishers : [],
        topicManagerArns: deployed.TOPIC_MANAGER_ARNS ? managers : [],
        allowedEndpointAccounts: [],
        // On AWS no loopback host can be a receiver: the stack never turns it on.
        allowLoopbackEndpoints: false,
        deliveryStatusRoleArn: deployed.DELIVERY_STATUS_ROLE_ARN ? loggingRole : undefined,
        deliveryStatusSuccessSampleRate: 100,
        attemptKeepDays: 7,
        maxAttemptsPerSubscription: 1000,
        portalSendLimit: { burst: DEFAULT_SETTINGS.portalSendBurst, ratePerMinute: DEFAULT_SETTINGS.portalSendRatePerMinute },
        confirmationRequestsPerDay: DEFAULT_SETTINGS.confirmationRequestsPerDay,
        confirmationRequestIntervalMs: 300_000,
        deliveryRetryScheduleMs: [300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
        disableFailingAfterMs: 5 * 86_400_000,
      });
    }
  });
});

describe('the retry sweep', () => {
  it('runs every minute, from an EventBridge rule, with no retry of a missed run (the next one does its work)', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [{ Arn: { 'Fn::GetAtt': [logicalIdOf(stack, stack.retries.sweeper.function), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } }],
    });
  });

  it('takes the deployment\'s schedule and disabling time, as every function does', () => {
    const { stack: custom } = serviceApp({ bundle: false, context: { ...REQUIRED_CONTEXT, deliveryRetrySchedule: '1m,1h', disableFailingAfter: '2d' } });
    const variables = Template.fromStack(custom).toJSON().Resources[logicalIdOf(custom, custom.retries.sweeper.function)].Properties.Environment.Variables;
    expect(variables).toMatchObject({ DELIVERY_RETRY_SCHEDULE: '1m,1h', DISABLE_FAILING_AFTER: '2d' });
    expect(() => serviceApp({ context: { ...REQUIRED_CONTEXT, deliveryRetrySchedule: '5m,soon' }, bundle: false })).toThrow(/deliveryRetrySchedule must be a comma-separated list/);
  });
});

describe('delivery status logging', () => {
  it('is given to every topic the service makes: by create and the reconciler, with the role and the success sample rate (default 100)', () => {
    const making = [stack.functions.get('createSubscriptionRoute')!, stack.reconciliation.reconciler];
    for (const fn of making) {
      expect(resources[logicalIdOf(stack, fn.function)]!.Properties.Environment.Variables).toMatchObject(deliveryStatusVariables());
    }
    const naming = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment.Variables.DELIVERY_STATUS_ROLE_ARN !== undefined);
    expect(naming.map(([id]) => id).sort()).toEqual(making.map((fn) => logicalIdOf(stack, fn.function)).sort());
  });

  it('takes its success sample rate from the deployment settings, and refuses one SNS would not take', () => {
    const { stack: sampled } = serviceApp({ context: { ...REQUIRED_CONTEXT, deliveryStatusSuccessSampleRate: '10' }, bundle: false });
    const create = Template.fromStack(sampled).toJSON().Resources[logicalIdOf(sampled, sampled.functions.get('createSubscriptionRoute')!.function)];
    expect(create.Properties.Environment.Variables.DELIVERY_STATUS_SUCCESS_SAMPLE_RATE).toBe('10');
    expect(() => serviceApp({ context: { ...REQUIRED_CONTEXT, deliveryStatusSuccessSampleRate: '101' }, bundle: false })).toThrow(
      /deliveryStatusSuccessSampleRate must be a whole percentage from 0 to 100/,
    );
  });

  it("uses a role only SNS may assume, for this account's topics of the prefix, allowed only to write their log groups", () => {
    const role = resources[logicalIdOf(stack, stack.attempts.loggingRole)]!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'sns.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnLike: { 'aws:SourceArn': topicArnPattern(stack.topicPrefix) } },
      },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const statements = role.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
    expect(statements).toHaveLength(1);
    expect([statements[0].Action].flat().sort()).toEqual(['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents']);
    const logGroups = JSON.stringify(statements[0].Resource);
    expect(logGroups).toContain(':log-group:sns/');
    expect(logGroups).toContain(`/${stack.topicPrefix}-*`);
    expect(logGroups).not.toMatch(/log-group:\*/);
    // No other role or policy of the stack may be assumed by SNS or names the logs of SNS.
    const assumedBySns = ofType('AWS::IAM::Role').filter(([, other]) => JSON.stringify(other.Properties.AssumeRolePolicyDocument).includes('sns.amazonaws.com'));
    expect(assumedBySns.map(([id]) => id)).toEqual([logicalIdOf(stack, stack.attempts.loggingRole)]);
  });

  it('may be passed to SNS only, by the two functions that name it', () => {
    const passing = ofType('AWS::IAM::Policy').flatMap(([, policy]) =>
      policy.Properties.PolicyDocument.Statement.filter((statement: any) => [statement.Action].flat().includes('iam:PassRole')).map((statement: any) => ({
        roles: policy.Properties.Roles,
        statement,
      })),
    );
    expect(passing.map(({ roles }) => roles[0].Ref).sort()).toEqual(
      [stack.functions.get('createSubscriptionRoute')!.role, stack.reconciliation.reconciler.role].map((role) => logicalIdOf(stack, role)).sort(),
    );
    for (const { statement } of passing) {
      expect(statement).toMatchObject({ Resource: loggingRoleArn(), Condition: { StringEquals: { 'iam:PassedToService': 'sns.amazonaws.com' } } });
    }
  });

  it("feeds every service topic's delivery status log to the attempts consumer by one account-level subscription filter, never the consumer's own logs", () => {
    const policies = ofType('AWS::Logs::AccountPolicy');
    expect(policies).toHaveLength(1);
    const [, policy] = policies[0]!;
    expect(policy.Properties).toMatchObject({ PolicyType: 'SUBSCRIPTION_FILTER_POLICY', Scope: 'ALL' });
    const document = JSON.stringify(policy.Properties.PolicyDocument);
    expect(document).toContain(logicalIdOf(stack, stack.attempts.consumer.function));
    expect(document).toContain('$.notification.topicArn');
    expect(document).toContain(`:${stack.topicPrefix}-*`);
    expect(JSON.stringify(policy.Properties.SelectionCriteria)).toContain(logicalIdOf(stack, stack.attempts.consumer.logGroup));
    const permissions = ofType('AWS::Lambda::Permission').filter(([, permission]) => permission.Properties.Principal === 'logs.amazonaws.com');
    expect(permissions).toHaveLength(1);
    expect(permissions[0]![1].Properties).toMatchObject({
      FunctionName: { 'Fn::GetAtt': [logicalIdOf(stack, stack.attempts.consumer.function), 'Arn'] },
      SourceAccount: { Ref: 'AWS::AccountId' },
    });
  });
});

describe('who may publish to the topics', () => {
  it('is named to the functions that create topics (create, the reconciler): the dispatcher and the operations granted sns:Publish', () => {
    const publishing = OPERATIONS.filter((op) => (OPERATION_PERMISSIONS[op.id].topics as readonly string[]).includes('sns:Publish'));
    expect(publishing.map((op) => op.id)).toEqual(['testSubscriptionRoute', 'replayDeadLettersRoute']);
    const creating = [stack.functions.get('createSubscriptionRoute')!, stack.reconciliation.reconciler];
    for (const fn of creating) {
      expect(resources[logicalIdOf(stack, fn.function)]!.Properties.Environment.Variables.TOPIC_PUBLISHER_ARNS).toEqual(publishersVariable());
    }
    // No other function makes topics, so none other names them.
    const naming = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment.Variables.TOPIC_PUBLISHER_ARNS !== undefined);
    expect(naming.map(([id]) => id).sort()).toEqual(creating.map((fn) => logicalIdOf(stack, fn.function)).sort());
  });

  it('names exactly the roles that are granted sns:Publish', () => {
    const [, arns] = publishersVariable()['Fn::Join'];
    const named = arns.map((arn) => arn['Fn::GetAtt'][0]).sort();
    const publishingRoles = ofType('AWS::IAM::Policy')
      .filter(([, policy]) =>
        policy.Properties.PolicyDocument.Statement.some((statement: { Action: string | string[] }) => [statement.Action].flat().includes('sns:Publish')),
      )
      .flatMap(([, policy]) => policy.Properties.Roles.map((role: { Ref: string }) => role.Ref))
      .sort();
    expect(named).toEqual(publishingRoles);
  });
});

describe('who may subscribe to, change and delete the topics', () => {
  it('is named to the functions that create topics: the operations granted any of those actions, and the reconciler', () => {
    const managing = OPERATIONS.filter((op) => (OPERATION_PERMISSIONS[op.id].topics as readonly string[]).some((action) => (MANAGEMENT_ACTIONS as readonly string[]).includes(action)));
    expect(managing.map((op) => op.id).sort()).toEqual(['confirmSubscriptionRoute', 'createSubscriptionRoute', 'deleteSubscriptionRoute']);
    const creating = [stack.functions.get('createSubscriptionRoute')!, stack.reconciliation.reconciler];
    for (const fn of creating) {
      expect(resources[logicalIdOf(stack, fn.function)]!.Properties.Environment.Variables.TOPIC_MANAGER_ARNS).toEqual(managersVariable());
    }
    const naming = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment.Variables.TOPIC_MANAGER_ARNS !== undefined);
    expect(naming.map(([id]) => id).sort()).toEqual(creating.map((fn) => logicalIdOf(stack, fn.function)).sort());
  });

  it('names exactly the roles granted sns:Subscribe, sns:SetTopicAttributes or sns:DeleteTopic on the topics', () => {
    const [, arns] = managersVariable()['Fn::Join'];
    const named = arns.map((arn) => arn['Fn::GetAtt'][0]).sort();
    const managingRoles = ofType('AWS::IAM::Policy')
      .filter(([, policy]) =>
        policy.Properties.PolicyDocument.Statement.some((statement: { Action: string | string[] }) =>
          [statement.Action].flat().some((action) => (MANAGEMENT_ACTIONS as readonly string[]).includes(action)),
        ),
      )
      .flatMap(([, policy]) => policy.Properties.Roles.map((role: { Ref: string }) => role.Ref))
      .sort();
    expect(named).toEqual([...new Set(managingRoles)].sort());
  });
});

describe('IAM', () => {
  it('grants nothing on "*" but the reconciler its two account-wide SNS listings, and uses no managed policies', () => {
    const onEverything: unknown[] = [];
    for (const [id, policy] of ofType('AWS::IAM::Policy')) {
      for (const statement of policy.Properties.PolicyDocument.Statement) {
        if ([statement.Resource].flat().includes('*')) onEverything.push({ roles: policy.Properties.Roles, actions: statement.Action, id });
        expect([statement.Action].flat().some((action: string) => action.endsWith('*'))).toBe(false);
      }
    }
    expect(onEverything).toEqual([
      {
        roles: [{ Ref: logicalIdOf(stack, stack.reconciliation.reconciler.role) }],
        actions: ['sns:ListSubscriptions', 'sns:ListTopics'],
        id: expect.any(String),
      },
    ]);
    for (const [, role] of ofType('AWS::IAM::Role')) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('refuses a grant on "*" at synth', () => {
    const fn = stack.functions.get('listSubscriptionsRoute')!;

    expect(() => fn.allow(['dynamodb:Scan'], ['*'])).toThrow(/not on "\*"/);
  });
});

describe('what each function may do', () => {
  // The whole of each role, written out for review: one line per statement, as
  // `<resource>: <actions>[ when <condition>]`. Everything a function may do is on this page.
  const PORTALS = 'when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*';
  const ATTRIBUTES = 'ForAllValues:StringLike dynamodb:Attributes';
  const EXPECTED: Record<string, string[]> = {
    createSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'table: dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*',
      'table: dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem when ForAllValues:StringEquals dynamodb:LeadingKeys idempotency#createSubscriptionRoute',
      `table: dynamodb:UpdateItem ${PORTALS} and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,bucketFullAt,idempotencyExpiresAt`,
      'service topics: sns:CreateTopic sns:DeleteTopic sns:Subscribe sns:TagResource',
      'delivery status logging role: iam:PassRole when StringEquals iam:PassedToService sns.amazonaws.com',
    ],
    updateSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,events,maxReceivesPerSecond`,
      'service topics: sns:SetSubscriptionAttributes',
    ],
    activateSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,status,disabledReason,disabledAt,failingSince`,
    ],
    listSubscriptions: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:Query ${PORTALS}`,
      `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,subscriptionArn,subscriptionState,subscriptionStateAt`,
      'service topics: sns:GetSubscriptionAttributes',
    ],
    renameSubscription: ['own log group: logs:CreateLogStream logs:PutLogEvents', `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,name`],
    deleteSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:DeleteItem dynamodb:GetItem dynamodb:UpdateItem ${PORTALS}`,
      'service topics: sns:DeleteTopic',
    ],
    testSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:GetItem ${PORTALS}`,
      `table: dynamodb:UpdateItem ${PORTALS} and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,bucketFullAt,idempotencyExpiresAt`,
      'service topics: sns:GetSubscriptionAttributes sns:Publish',
    ],
    listDeadLetters: ['own log group: logs:CreateLogStream logs:PutLogEvents', `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`],
    listAttempts: ['own log group: logs:CreateLogStream logs:PutLogEvents', `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`],
    replayDeadLetters: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem dynamodb:Query dynamodb:UpdateItem ${PORTALS}`,
      'table: dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem when ForAllValues:StringEquals dynamodb:LeadingKeys idempotency#replayDeadLettersRoute',
      'table: dynamodb:DeleteItem when ForAllValues:StringLike dynamodb:LeadingKeys retry-due#* and ForAllValues:StringEquals dynamodb:Attributes portalId,sk',
      `table: dynamodb:UpdateItem ${PORTALS} and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,bucketFullAt,idempotencyExpiresAt`,
      'service topics: sns:GetSubscriptionAttributes sns:Publish',
    ],
    recordDeadLetters: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'table: dynamodb:BatchGetItem dynamodb:GetItem dynamodb:Query when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*',
      'table: dynamodb:DeleteItem dynamodb:PutItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#* and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,configId,eventId,event,occurredAt,failedAt,messageId,message,retries,nextRetryAt,idempotencyExpiresAt',
      'table: dynamodb:UpdateItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#* and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,topicArn,lastDeadLetterAt,deadLettersDropped,failingSince,deadLetters@*',
      'table: dynamodb:PutItem when ForAllValues:StringLike dynamodb:LeadingKeys retry-due#* and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,kind,dueAt,subscriptionPortalId,configId,letterSk,failingSince,idempotencyExpiresAt',
      'delivery dead-letter queue: sqs:ChangeMessageVisibility sqs:DeleteMessage sqs:GetQueueAttributes sqs:GetQueueUrl sqs:ReceiveMessage',
    ],
    confirmSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:GetItem ${PORTALS}`,
      `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,topicArn,subscriptionArn,subscriptionState,subscriptionStateAt,confirmationRequestedAt,confirmationRequestsDay,confirmationRequestsThatDay`,
      `table: dynamodb:UpdateItem ${PORTALS} and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,bucketFullAt,idempotencyExpiresAt`,
      'service topics: sns:GetSubscriptionAttributes sns:Subscribe',
    ],
    dispatchPortalEvents: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:Query ${PORTALS}`,
      'table: dynamodb:GetItem dynamodb:UpdateItem when ForAllValues:StringLike dynamodb:LeadingKeys delivery#*',
      'service topics: sns:Publish',
      'events queue: sqs:ChangeMessageVisibility sqs:DeleteMessage sqs:GetQueueAttributes sqs:GetQueueUrl sqs:ReceiveMessage',
    ],
    reconcileTopics: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'table: dynamodb:Scan',
      `table: dynamodb:GetItem ${PORTALS}`,
      `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,topicArn,subscriptionArn,subscriptionState,subscriptionStateAt,deliveryStatusLogging,topicPolicy`,
      'service topics: sns:CreateTopic sns:DeleteTopic sns:GetSubscriptionAttributes sns:SetSubscriptionAttributes sns:SetTopicAttributes sns:Subscribe sns:TagResource',
      'delivery status logging role: iam:PassRole when StringEquals iam:PassedToService sns.amazonaws.com',
      '*: sns:ListSubscriptions sns:ListTopics',
    ],
    retryDeadLetters: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'table: dynamodb:Query when ForAllValues:StringLike dynamodb:LeadingKeys retry-due#*',
      'table: dynamodb:DeleteItem dynamodb:UpdateItem when ForAllValues:StringLike dynamodb:LeadingKeys retry-due#* and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,claimedUntil,claimedBy',
      `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`,
      `table: dynamodb:DeleteItem dynamodb:PutItem dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} ` +
        'portalId,sk,replayClaimedUntil,replayClaimedBy,nextRetryAt,retries,cancelled,idempotencyExpiresAt,deadLetters@*,status,disabledReason,disabledAt,failingSince,lastDeliveredAt',
      'service topics: sns:Publish',
    ],
    recordDeliveryAttempts: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'table: dynamodb:GetItem dynamodb:Query when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*',
      'table: dynamodb:DeleteItem dynamodb:PutItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#* and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,at,status,statusCode,dwellTimeMs,attempts,messageId,idempotencyExpiresAt',
      'table: dynamodb:UpdateItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#* and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,topicArn,lastDeliveredAt,lastFailedAt,attemptsDelivered@*,attemptsFailed@*,attemptsKept@*',
      'service topics: sns:ListTagsForResource',
    ],
  };

  const allFunctions = () => [
    ...OPERATIONS.map((op) => [op.handler, stack.functions.get(op.id)!] as const),
    [DISPATCHER.handler, stack.delivery.dispatcher] as const,
    [DEAD_LETTER_RECORDER.handler, stack.delivery.recorder] as const,
    [ATTEMPTS_RECORDER.handler, stack.attempts.consumer] as const,
    [RECONCILER.handler, stack.reconciliation.reconciler] as const,
    [RETRY_SWEEPER.handler, stack.retries.sweeper] as const,
  ];

  it('lists every function: the operations, the dispatcher, the dead-letter recorder, the attempts consumer, the reconciler and the retry sweep', () => {
    expect(allFunctions().map(([name]) => name).sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(allFunctions()).toHaveLength(ofType('AWS::Lambda::Function').length);
  });

  it('grants sns:SetSubscriptionAttributes to update (the throttle) and the reconciler (a drifted delivery policy) only', () => {
    const granting = allFunctions()
      .filter(([, fn]) =>
        ofType('AWS::IAM::Policy').some(
          ([, policy]) =>
            JSON.stringify(policy.Properties.Roles).includes(logicalIdOf(stack, fn.role)) &&
            policy.Properties.PolicyDocument.Statement.some((statement: { Action: string | string[] }) =>
              [statement.Action].flat().includes('sns:SetSubscriptionAttributes'),
            ),
        ),
      )
      .map(([name]) => name);
    expect(granting.sort()).toEqual(['reconcileTopics', 'updateSubscription']);
  });

  it.each(Object.keys(EXPECTED))('%s may do exactly what is listed, on what is listed', (name) => {
    const [, fn] = allFunctions().find(([handler]) => handler === name)!;
    const labels = new Map<string, string>([
      [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(stack, fn.logGroup), 'Arn'] }), 'own log group'],
      [JSON.stringify({ 'Fn::GetAtt': [tableId(), 'Arn'] }), 'table'],
      [JSON.stringify(topicArnPattern(stack.topicPrefix)), 'service topics'],
      [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(stack, stack.delivery.eventsQueue), 'Arn'] }), 'events queue'],
      [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(stack, stack.delivery.deliveryDeadLetterQueue), 'Arn'] }), 'delivery dead-letter queue'],
      [JSON.stringify(loggingRoleArn()), 'delivery status logging role'],
      [JSON.stringify('*'), '*'],
    ]);
    const roleId = logicalIdOf(stack, fn.role);

    const granted = policyStatementsOf(roleId).map((statement) => {
      const resource = labels.get(JSON.stringify(statement.Resource)) ?? JSON.stringify(statement.Resource);
      const actions = [statement.Action].flat().sort().join(' ');
      const condition = Object.entries((statement as { Condition?: Record<string, Record<string, string[]>> }).Condition ?? {})
        .flatMap(([operator, keys]) => Object.entries(keys).map(([key, values]) => `${operator} ${key} ${[values].flat().join(',')}`))
        .join(' and ');
      return `${resource}: ${actions}${condition ? ` when ${condition}` : ''}`;
    });

    expect(granted.sort()).toEqual([...EXPECTED[name]!].sort());
    expect(resources[roleId]!.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('the HTTP API', () => {
  it('has exactly one route per operation and path prefix', () => {
    const routeKeys = ofType('AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties.RouteKey);

    expect(routeKeys.sort()).toEqual(OPERATIONS.flatMap((op) => op.paths.map((path) => `${op.method} ${path}`)).sort());
    expect(routeKeys).toHaveLength(22);
    expect(routeKeys).toEqual(expect.arrayContaining(API_PREFIXES.map((prefix) => `POST ${prefix}/confirm`)));
  });

  it('checks tokens with one JWT authorizer: issuer and audience from the context', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: REQUIRED_CONTEXT.jwtIssuer, Audience: [REQUIRED_CONTEXT.jwtAudience] },
    });
  });

  describe.each(OPERATIONS.map((op) => [op.id, op] as const))('%s', (_id, op) => {
    it.each(op.paths.map((path) => [path]))('%s requires a JWT with the scope and reaches the function', (path) => {
      const [, route] = ofType('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === `${op.method} ${path}`)!;
      const [authorizerId] = ofType('AWS::ApiGatewayV2::Authorizer')[0]!;

      expect(route.Properties).toMatchObject({
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: authorizerId },
        AuthorizationScopes: [op.scope],
      });
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref;
      expect(resources[integrationId]!.Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [functionIdOf(op), 'Arn'] },
      });
    });
  });

  it('serves one auto-deployed $default stage, throttled, with JSON access logs', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    const [, stage] = ofType('AWS::ApiGatewayV2::Stage')[0]!;

    expect(stage.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: DEFAULT_SETTINGS.throttlingRateLimit,
        ThrottlingBurstLimit: DEFAULT_SETTINGS.throttlingBurstLimit,
      },
    });
    const logGroupId = stage.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'][0];
    expect(resources[logGroupId]).toMatchObject({ Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30 } });
    expect(JSON.parse(stage.Properties.AccessLogSettings.Format)).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      authorizerError: '$context.authorizer.error',
      integrationError: '$context.integrationErrorMessage',
    });
  });

  it('outputs the API URL and the table name', () => {
    template.hasOutput('ApiUrl', { Value: { 'Fn::Join': ['', Match.arrayWith(['https://'])] } });
    template.hasOutput('TableName', { Value: { Ref: tableId() } });
  });
});

describe('AWS Solutions rules (cdk-nag)', () => {
  it('find nothing that is not acknowledged', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);

    expect(report.violations).toEqual([]);
  });

  it('acknowledge only the per-subscription topic wildcard on the roles that need it, and the delivery dead-letter queue, with reasons', () => {
    const acknowledgments = stack.node
      .findAll()
      .flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
          .map(([id, reason]) => ({ path: construct.node.path, id, reason })),
      );

    const wildcardId = `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sns:<AWS::Region>:<AWS::AccountId>:${stack.topicPrefix}-*]`;
    const acknowledged = acknowledgments.map(({ path, id }) => [path, id.replace(/^annotation::/i, '')]);
    expect(acknowledged.sort()).toEqual(
      [
        ...OPERATIONS.filter((op) => OPERATION_PERMISSIONS[op.id].topics.length > 0).map((op) => [
          `${STACK_NAME}/${op.handler}/Role`,
          wildcardId,
        ]),
        [`${STACK_NAME}/Delivery/dispatchPortalEvents/Role`, wildcardId],
        [`${STACK_NAME}/Reconciliation/reconcileTopics/Role`, wildcardId],
        [`${STACK_NAME}/Attempts/recordDeliveryAttempts/Role`, wildcardId],
        [`${STACK_NAME}/Retries/retryDeadLetters/Role`, wildcardId],
        // SNS names the log groups after each topic, made at run time.
        ...['', ':log-stream:*'].map((suffix) => [
          `${STACK_NAME}/Attempts/SnsDeliveryStatusLogging`,
          `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:sns/<AWS::Region>/<AWS::AccountId>/${stack.topicPrefix}-*${suffix}]`,
        ]),
        // ListTopics and ListSubscriptions have no resource type in IAM.
        [`${STACK_NAME}/Reconciliation/reconcileTopics/Role`, 'AwsSolutions-IAM5[Resource::*]'],
        // A dead-letter queue needs no dead-letter queue; cdk-nag cannot see the redrive policies SNS holds.
        [`${STACK_NAME}/Delivery/DeliveryDeadLetters`, 'AwsSolutions-SQS3'],
      ].sort(),
    );
    for (const { id, reason } of acknowledgments) {
      const why = id.includes('Resource::*]') ? /no resource type in IAM.{40,}/ : id.includes('IAM5') ? /created at run time.{40,}/ : /redrive policy.{20,}/;
      expect(reason).toMatch(why);
    }
  });

  it('leave no error or warning annotations on the stack', () => {
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
  });

  it('stop the synth on a finding nobody acknowledged', () => {
    const { app, stack: unsafe } = serviceApp({ bundle: false });
    unsafe.functions.get('listSubscriptionsRoute')!.role.addToPolicy(new PolicyStatement({ actions: ['dynamodb:Scan'], resources: ['*'] }));

    expect(() => app.synth()).toThrow(/AwsSolutions-IAM5\[Resource::\*\]/);
  });
});

describe('the bundles', () => {
  const sizes: Record<string, string> = {};
  afterAll(() => console.log(`Bundle sizes (index.js + index.js.map):\n${JSON.stringify(sizes, null, 2)}`));

  it.each(OPERATIONS.map((op) => [op.handler, op] as const))(
    '%s holds the SNS client exactly when its operation calls SNS, the idempotency code only for create and replay, the body parser only with a body and only its own compiled body validator, no credential provider a Lambda sandbox cannot use, and is CommonJS with a map of our own sources',
    (_handler, op) => {
      const directory = bundleDirectoryOf(functionIdOf(op));
      const code = readFileSync(join(directory, 'index.js'), 'utf8');
      const kib = (file: string) => `${(statSync(join(directory, file)).size / 1024).toFixed(1)} KiB`;
      sizes[op.handler] = `${kib('index.js')} + ${kib('index.js.map')}`;

      const callsSns = OPERATION_PERMISSIONS[op.id].topics.length > 0;
      expect(code.includes('SNSServiceException')).toBe(callsSns);
      expect(code.includes('DynamoDBServiceException')).toBe(true);
      expect(code.includes('IDEMPOTENCY_IN_PROGRESS')).toBe(op.id === 'createSubscriptionRoute' || op.id === 'replayDeadLettersRoute');
      // The JSON body parser only where the operation takes a body (list and delete ignore it).
      const takesBody = !['listSubscriptionsRoute', 'deleteSubscriptionRoute', 'listDeadLettersRoute', 'listAttemptsRoute'].includes(op.id);
      expect(code.includes('request body is not valid JSON')).toBe(takesBody);
      // Only its own body's compiled validator and checks: the event list's rules and catalog
      // check only where the body has events, the protocol's, the name's, the status's and the
      // aliases' only where the body has them.
      const takesEvents = ['createSubscriptionRoute', 'updateSubscriptionRoute'].includes(op.id);
      const addressed = [
        'updateSubscriptionRoute',
        'activateSubscriptionRoute',
        'renameSubscriptionRoute',
        'testSubscriptionRoute',
        'confirmSubscriptionRoute',
        'replayDeadLettersRoute',
      ].includes(op.id);
      expect(code.includes('must list at least one event kind')).toBe(takesEvents);
      expect(code.includes('unknown event kind')).toBe(takesEvents);
      expect(code.includes('names a FIFO queue')).toBe(op.id === 'createSubscriptionRoute');
      expect(code.includes('must be one of https, http')).toBe(op.id === 'createSubscriptionRoute');
      expect(code.includes('must not be empty')).toBe(['createSubscriptionRoute', 'renameSubscriptionRoute'].includes(op.id));
      expect(code.includes('must be 1 (activated)')).toBe(op.id === 'activateSubscriptionRoute');
      expect(code.includes('name different subscriptions')).toBe(addressed);
      // Validators compiled at build time: no schema compiler (ajv's), no schema library, none of
      // the schemas' annotations, in any bundle.
      expect(code.includes('ajv implementation error')).toBe(false);
      expect(code.includes('$ZodType')).toBe(false);
      expect(code.includes('x-error')).toBe(false);
      expect(code.includes('Trimmed of surrounding whitespace')).toBe(false);
      expect(code.includes('BatchProcessor')).toBe(false);
      // The SDK's default chain, less the providers that need profile files, SSO, a credential
      // process, a web identity token or EC2 instance metadata (infra/aws/unavailable-credential-providers.ts).
      expect(code.includes("is not in this function's bundle")).toBe(true);
      for (const marker of ['sso_start_url', 'credential_process', 'AssumeRoleWithWebIdentity', 'GetRoleCredentials', 'SSOOIDC']) {
        expect({ marker, bundled: code.includes(marker) }).toEqual({ marker, bundled: false });
      }
      expect(code.includes('AWS_CONTAINER_CREDENTIALS_FULL_URI')).toBe(true);
      expect(code).toMatch(/^"use strict";/);
      expect(code).toMatch(/module\.exports\s*=\s*\{[^}]*\bhandler\b[^}]*\}/);
      expect(code).toMatch(/sourceMappingURL=index\.js\.map\s*$/);
      expect(statSync(join(directory, 'index.js')).size).toBeLessThan(1024 * 1024);
      // The map holds our own sources only (infra/aws/own-source-map.ts).
      const map = JSON.parse(readFileSync(join(directory, 'index.js.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown };
      expect(map.sources.filter((source) => source.includes('node_modules'))).toEqual([]);
      expect(map.sources.some((source) => source.endsWith(`functions/${op.handler}.ts`))).toBe(true);
      expect(map.sourcesContent).toBeUndefined();
    },
  );

  describe('stack traces, as deployed (no NODE_OPTIONS), name the TypeScript file, line and function of our code as --enable-source-maps does', () => {
    const createId = () => functionIdOf(OPERATIONS.find((op) => op.handler === 'createSubscription')!);

    it.each([
      ['createSubscription', createId],
      ['dispatchPortalEvents', () => logicalIdOf(stack, stack.delivery.dispatcher.function)],
    ])('%s: a cold start without TABLE_NAME, failing in the configuration check', (_name, functionId) => {
      const directory = bundleDirectoryOf(functionId());
      const stackOf = (nodeOptions?: string) => {
        const run = spawnSync(process.execPath, ['--eval', "require('./index.js')"], {
          cwd: directory,
          env: { PATH: process.env.PATH, ...(nodeOptions && { NODE_OPTIONS: nodeOptions }) },
          encoding: 'utf8',
          timeout: 30_000,
        });
        expect(run.status).toBe(1);
        return run.stderr.slice(run.stderr.indexOf('ConfigurationError: ')).split('\n').filter((line) => line.startsWith('    at ')).slice(0, 2);
      };

      // Act
      const deployed = stackOf();
      const nodeMapped = stackOf('--enable-source-maps');

      // Assess
      expect(deployed).toEqual([
        expect.stringMatching(/^ {4}at failOnProblems \(\S*\/shared\/config\.ts:\d+:\d+\)$/),
        expect.stringMatching(/^ {4}at \S.* \(\S*\/shared\/environment\.ts:\d+:\d+\)$/),
      ]);
      expect(deployed).toEqual(nodeMapped);
    });

    it('createSubscription: an invocation whose DynamoDB call fails, through the async frames of our code', async () => {
      const dynamoDb = await refusingDynamoDb();
      try {
        const stackOf = async (nodeOptions?: string) => {
          const logs = await invokeCreate({ AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_ENDPOINT_URL_DYNAMODB: dynamoDb.endpoint, ...(nodeOptions && { NODE_OPTIONS: nodeOptions }) });
          const failure = logs.find((entry) => entry.message === 'dependency failure') as { error?: { stack?: string } } | undefined;
          return failure?.error?.stack?.split('\n').filter((line) => line.startsWith('    at '));
        };

        // Act
        const deployed = await stackOf();
        const nodeMapped = await stackOf('--enable-source-maps');

        // Assess
        // Create's first DynamoDB call is the portal's rate limit (a middleware of the HTTP chain).
        expect(deployed).toContainEqual(expect.stringMatching(/^ {4}at async \S+ \(\S*\/shared\/http\/middleware\/portal-rate-limit\.ts:\d+:\d+\)$/));
        expect(deployed).toEqual(nodeMapped);
      } finally {
        await dynamoDb.close();
      }
    });
  });

  it("the map cut to our own sources maps every position of our code as esbuild's whole map does, and none of a dependency's", async () => {
    // esbuild's own map of createSubscription's bundle, before the cut the stack makes.
    const outdir = mkdtempSync(join(tmpdir(), 'own-source-map-'));
    await build(esbuildOptionsFor({ index: join(PROJECT_ROOT, 'functions/createSubscription.ts') }, outdir));
    const whole = JSON.parse(readFileSync(join(outdir, 'index.js.map'), 'utf8')) as SourceMapV3;
    const own = ownSourceMap(whole);
    const lines = readFileSync(join(outdir, 'index.js'), 'utf8').split('\n');
    type Entry = { originalSource?: string; originalLine?: number; originalColumn?: number; name?: string };
    const [wholeMap, ownMap] = [whole, own].map((map) => new SourceMap(map as unknown as ConstructorParameters<typeof SourceMap>[0]));

    // Act: every third column of the bundle, looked up in both maps.
    const differences: string[] = [];
    let ours = 0;
    lines.forEach((text, line) => {
      for (let column = 0; column < text.length; column += 3) {
        const [before, after] = [wholeMap!.findEntry(line, column) as Entry, ownMap!.findEntry(line, column) as Entry];
        const oursBefore = before.originalSource !== undefined && !before.originalSource.includes('node_modules');
        if (oursBefore) ours++;
        const expected = oursBefore ? [before.originalSource, before.originalLine, before.originalColumn, before.name] : [undefined, undefined, undefined, undefined];
        const actual = [after.originalSource, after.originalLine, after.originalColumn, after.name];
        if (JSON.stringify(actual) !== JSON.stringify(expected) && differences.length < 5) differences.push(`${line}:${column} ${JSON.stringify({ expected, actual })}`);
      }
    });

    // Assess
    expect(differences).toEqual([]);
    expect(ours).toBeGreaterThan(1_000);
    expect(JSON.stringify(own).length).toBeLessThan(JSON.stringify(whole).length / 5);
  });

  it('createSubscription signs with the credentials Lambda gives in its environment, else with container credentials, else fails at once', async () => {
    const dynamoDb = await refusingDynamoDb();
    try {
      const signedWith = async (env: Record<string, string>) => {
        dynamoDb.accessKeys.length = 0;
        const started = Date.now();
        const logs = await invokeCreate({ AWS_ENDPOINT_URL_DYNAMODB: dynamoDb.endpoint, ...env });
        const messages = logs.map((entry) => JSON.stringify(entry)).join('\n');
        return { accessKeys: [...new Set(dynamoDb.accessKeys)], noCredentials: messages.includes('Could not load credentials from any providers'), seconds: (Date.now() - started) / 1000 };
      };

      // Act
      const fromEnvironment = await signedWith({ AWS_ACCESS_KEY_ID: 'ASIAENVIRONMENT', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });
      const fromContainer = await signedWith({ AWS_CONTAINER_CREDENTIALS_FULL_URI: `${dynamoDb.endpoint}/credentials`, AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-token' });
      const fromNothing = await signedWith({});

      // Assess
      expect(fromEnvironment).toMatchObject({ accessKeys: ['ASIAENVIRONMENT'], noCredentials: false });
      expect(fromContainer).toMatchObject({ accessKeys: ['ASIACONTAINER'], noCredentials: false });
      expect(dynamoDb.containerTokens).toEqual(['container-token']);
      // No profile files, process or instance metadata to wait for.
      expect(fromNothing).toMatchObject({ accessKeys: [], noCredentials: true });
      expect(fromNothing.seconds).toBeLessThan(5);
    } finally {
      await dynamoDb.close();
    }
  });

  /** A stand-in for DynamoDB that refuses every request (and records who signed it), and serves container credentials at /credentials. */
  async function refusingDynamoDb() {
    const accessKeys: string[] = [];
    const containerTokens: string[] = [];
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.url === '/credentials') {
          containerTokens.push(String(request.headers.authorization));
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ AccessKeyId: 'ASIACONTAINER', SecretAccessKey: 'secret', Token: 'token', Expiration: new Date(Date.now() + 3_600_000).toISOString() }));
          return;
        }
        const accessKey = /Credential=([^/]+)\//.exec(String(request.headers.authorization))?.[1];
        if (accessKey) accessKeys.push(accessKey);
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ValidationException', message: 'refused by the test' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      accessKeys,
      containerTokens,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  /** Invokes the synthesized createSubscription bundle once, in a process with only `env` (and PATH, TABLE_NAME, AWS_REGION, the publishers create's topics need); answers its log lines. */
  async function invokeCreate(env: Record<string, string>): Promise<Record<string, unknown>[]> {
    const directory = bundleDirectoryOf(functionIdOf(OPERATIONS.find((op) => op.handler === 'createSubscription')!));
    const event = httpEvent('createSubscriptionRoute', {
      portalId: 'bundle-test',
      body: { name: 'n', protocol: 'https', endpoint: 'https://example.com/hooks', events: [DEFAULT_SETTINGS.eventKinds[0]!] },
    });
    const script = [
      "const { handler } = require('./index.js');",
      `handler(${JSON.stringify(event)}, { awsRequestId: 'r', functionName: 'f', invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:f', getRemainingTimeInMillis: () => 10000 })`,
      '  .then(() => process.exit(0));',
    ].join('\n');
    // No developer's ~/.aws files, as in a sandbox.
    const child = spawn(process.execPath, ['--eval', script], {
      cwd: directory,
      env: { PATH: process.env.PATH, TABLE_NAME: 'subscriptions', AWS_REGION: 'us-east-1', TOPIC_PUBLISHER_ARNS: 'arn:aws:iam::000000000000:role/publisher', TOPIC_MANAGER_ARNS: 'arn:aws:iam::000000000000:role/manager', AWS_CONFIG_FILE: '/nonexistent/config', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials', ...env },
    });
    let logs = '';
    child.stdout.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    return logs.split('\n').flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : []));
  }

  it('the reconciler holds the listings, the scan and topic creation, and none of the HTTP chain', () => {
    const directory = bundleDirectoryOf(logicalIdOf(stack, stack.reconciliation.reconciler.function));
    const code = readFileSync(join(directory, 'index.js'), 'utf8');
    sizes.reconcileTopics = `${(statSync(join(directory, 'index.js')).size / 1024).toFixed(1)} KiB`;

    for (const command of ['"ListTopics"', '"ListSubscriptions"', '"Scan"', '"CreateTopic"', '"DeleteTopic"']) {
      expect({ command, bundled: code.includes(command) }).toEqual({ command, bundled: true });
    }
    expect(code.includes('IDEMPOTENCY_IN_PROGRESS')).toBe(false);
    expect(code.includes('request body is not valid JSON')).toBe(false);
    expect(code.includes('BatchProcessor')).toBe(false);
  });

  it('the recorder holds its partial batch response and the transaction, and neither SNS nor the HTTP chain', () => {
    const directory = bundleDirectoryOf(logicalIdOf(stack, stack.delivery.recorder.function));
    const code = readFileSync(join(directory, 'index.js'), 'utf8');
    sizes.recordDeadLetters = `${(statSync(join(directory, 'index.js')).size / 1024).toFixed(1)} KiB`;

    expect(code.includes('batchItemFailures')).toBe(true);
    expect(code.includes('"TransactWriteItems"')).toBe(true);
    expect(code.includes('SNSServiceException')).toBe(false);
    expect(code.includes('IDEMPOTENCY_IN_PROGRESS')).toBe(false);
    expect(code.includes('request body is not valid JSON')).toBe(false);
  });

  it('the dispatcher holds PublishBatch, and neither a batch processor nor the HTTP chain', () => {
    const directory = bundleDirectoryOf(logicalIdOf(stack, stack.delivery.dispatcher.function));
    const code = readFileSync(join(directory, 'index.js'), 'utf8');
    sizes.dispatchPortalEvents = `${(statSync(join(directory, 'index.js')).size / 1024).toFixed(1)} KiB`;

    // It answers the partial batch response itself, having grouped the batch by portal.
    expect(code.includes('BatchProcessor')).toBe(false);
    // Commands keep their operation names through minification.
    expect(code.includes('"PublishBatch"')).toBe(true);
    expect(code.includes('"CreateTopic"')).toBe(false);
    expect(code.includes('IDEMPOTENCY_IN_PROGRESS')).toBe(false);
    expect(code.includes('request body is not valid JSON')).toBe(false);
  });
});

/** The delivery status logging role's ARN, as the template writes it. */
function loggingRoleArn() {
  return { 'Fn::GetAtt': [logicalIdOf(stack, stack.attempts.loggingRole), 'Arn'] };
}

/** DELIVERY_STATUS_ROLE_ARN and DELIVERY_STATUS_SUCCESS_SAMPLE_RATE as the template writes them (the default rate). */
function deliveryStatusVariables() {
  return { DELIVERY_STATUS_ROLE_ARN: loggingRoleArn(), DELIVERY_STATUS_SUCCESS_SAMPLE_RATE: '100' };
}

/** TOPIC_PUBLISHER_ARNS as the template writes it: the dispatcher's role, then the test operation's and replay's. */
function publishersVariable(): { 'Fn::Join': [string, { 'Fn::GetAtt': [string, string] }[]] } {
  const roleArn = (fn: { role: { node: { defaultChild?: unknown } } }): { 'Fn::GetAtt': [string, string] } => ({
    'Fn::GetAtt': [logicalIdOf(stack, fn.role), 'Arn'],
  });
  return {
    'Fn::Join': [
      ',',
      [
        roleArn(stack.delivery.dispatcher),
        roleArn(stack.retries.sweeper),
        roleArn(stack.functions.get('testSubscriptionRoute')!),
        roleArn(stack.functions.get('replayDeadLettersRoute')!),
      ],
    ],
  };
}

function managersVariable(): { 'Fn::Join': [string, { 'Fn::GetAtt': [string, string] }[]] } {
  const roleArn = (fn: { role: { node: { defaultChild?: unknown } } }): { 'Fn::GetAtt': [string, string] } => ({
    'Fn::GetAtt': [logicalIdOf(stack, fn.role), 'Arn'],
  });
  return {
    'Fn::Join': [
      ',',
      [
        roleArn(stack.functions.get('createSubscriptionRoute')!),
        roleArn(stack.functions.get('deleteSubscriptionRoute')!),
        roleArn(stack.functions.get('confirmSubscriptionRoute')!),
        roleArn(stack.reconciliation.reconciler),
      ],
    ],
  };
}

function bundleDirectoryOf(functionLogicalId: string): string {
  return join(assemblyDirectory, resources[functionLogicalId]!.Metadata['aws:asset:path']);
}

/** Statements of the policies attached to a role. */
function policyStatementsOf(roleLogicalId: string): { Action: string | string[]; Resource: unknown }[] {
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleLogicalId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
}

/** The actions granted on exactly this resource, sorted. */
function actionsOn(statements: { Action: string | string[]; Resource: unknown }[], resource: unknown): string[] {
  return statements
    .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(resource))
    .flatMap((statement) => [statement.Action].flat())
    .sort();
}

/** `arn:<partition>:sns:<region>:<account>:<prefix>-*` as the template writes it. */
function topicArnPattern(prefix: string) {
  return {
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, ':sns:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${prefix}-*`],
    ],
  };
}
