/**
 * The CloudFormation template `cdk synth` produces, checked against the operations table and
 * the deployment settings: table, functions, the retry sweep's schedule, routes and their
 * authorization, stage, and cdk-nag's AWS Solutions rules. Who may do what is in
 * stack-iam.ts, what goes into each function's bundle in ../stack.bundles.test.ts; the
 * synthesized stack and the readings of its template they share are test/support/synthesized-stack.ts.
 */
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEFAULT_SETTINGS } from '../../../infra/aws/deployment-settings';
import { OPERATION_PERMISSIONS, RATE_LIMIT_PERMISSIONS, RECOVERY_RUNNING_WRITES, REPLAY_DUE_WORK } from '../../../infra/aws/operation-permissions';
import { STACK_NAME } from '../../../infra/aws/webhook-subscriptions-app';
import { loadConfig } from '../../../shared/config';
import { API_PREFIXES, OPERATIONS } from '../../../shared/operations';
import { EXPIRY_ATTRIBUTE, TABLE_KEYS } from '../../../shared/data/table';
import { logicalIdOf, REQUIRED_CONTEXT, serviceApp } from '../../support/cdk-app';
import {
  actionsOn,
  deliveryStatusVariables,
  functionIdOf,
  loggingRoleArn,
  managersVariable,
  ofType,
  policyStatementsOf,
  publishersVariable,
  resources,
  stack,
  tableId,
  template,
  topicArnPattern,
} from '../../support/synthesized-stack';


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
  it('are one per operation, the dispatcher, the dead-letter forwarder and recorder, the attempts consumer, the reconciler, the retry sweep and the recovery worker', () => {
    template.resourceCountIs('AWS::Lambda::Function', OPERATIONS.length + 7);
  });

  describe.each(OPERATIONS.map((op) => [op.handler, op] as const))('%s', (_handler, op) => {
    it('runs on Node.js 24, arm64, with the service configuration', () => {
      const fn = resources[functionIdOf(op)]!;

      expect(fn.Metadata).toMatchObject({ SamResourceId: op.handler });
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
        MESSAGE_KEEP_DAYS: String(DEFAULT_SETTINGS.messageKeepDays),
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
        // The others, each by the budget the operations table names.
        ...(op.portalBudget === 'change' && {
          PORTAL_CHANGE_BURST: String(DEFAULT_SETTINGS.portalChangeBurst),
          PORTAL_CHANGE_RATE_PER_MINUTE: String(DEFAULT_SETTINGS.portalChangeRatePerMinute),
        }),
        ...(op.portalBudget === 'read' && {
          PORTAL_READ_BURST: String(DEFAULT_SETTINGS.portalReadBurst),
          PORTAL_READ_RATE_PER_MINUTE: String(DEFAULT_SETTINGS.portalReadRatePerMinute),
        }),
        ...(op.id === 'confirmSubscriptionRoute' && { CONFIRMATION_REQUESTS_PER_DAY: String(DEFAULT_SETTINGS.confirmationRequestsPerDay) }),
        // Only recover starts recoveries: it queues their first jobs.
        ...(op.id === 'recoverMessagesRoute' && { RECOVERY_QUEUE_URL: { Ref: logicalIdOf(stack, stack.recoveries.queue) } }),
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
        ...(op.limitedPerPortal || op.portalBudget ? RATE_LIMIT_PERMISSIONS : []),
        // Replay ends the schedule of what it sends: it deletes the due retry, in a statement of its own.
        ...(op.id === 'replayDeadLettersRoute' ? REPLAY_DUE_WORK : []),
        // The operations that publish log what they publish, in a statement of their own.
        ...('logsMessages' in expected ? ['dynamodb:BatchWriteItem'] : []),
        // Recover puts a recovery's running entry (and removes it when the job could not be queued), in a statement of its own.
        ...(op.id === 'recoverMessagesRoute' ? RECOVERY_RUNNING_WRITES.actions : []),
      ];
      expect(actionsOn(statements, { 'Fn::GetAtt': [tableId(), 'Arn'] })).toEqual([...expected.table, ...idempotencyRecords].sort());
      expect(actionsOn(statements, topicArnPattern(stack.topicPrefix))).toEqual([...expected.topics].sort());
      // Only create names the delivery status logging role in the topics it makes.
      const passRole = op.id === 'createSubscriptionRoute' ? ['iam:PassRole'] : [];
      expect(actionsOn(statements, loggingRoleArn())).toEqual(passRole);
      // Nothing else: every statement is one of the four above.
      const granted = statements.flatMap((statement) => [statement.Action].flat());
      expect(granted.sort()).toEqual(
        ['logs:CreateLogStream', 'logs:PutLogEvents', ...expected.table, ...idempotencyRecords, ...expected.topics, ...passRole, ...(op.id === 'recoverMessagesRoute' ? ['sqs:SendMessage'] : [])].sort(),
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
      const recoveryQueueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/RecoveryJobs-1A2B';
      const byPortalQueueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/DeadLettersByPortal-3C4D';
      const variables = {
        ...deployed,
        TABLE_NAME: 'subscriptions',
        ...(deployed.DELIVERY_DEAD_LETTER_QUEUE_ARN && { DELIVERY_DEAD_LETTER_QUEUE_ARN: deadLetterQueueArn }),
        ...(deployed.TOPIC_PUBLISHER_ARNS && { TOPIC_PUBLISHER_ARNS: publishers.join(',') }),
        ...(deployed.TOPIC_MANAGER_ARNS && { TOPIC_MANAGER_ARNS: managers.join(',') }),
        ...(deployed.DELIVERY_STATUS_ROLE_ARN && { DELIVERY_STATUS_ROLE_ARN: loggingRole }),
        ...(deployed.RECOVERY_QUEUE_URL && { RECOVERY_QUEUE_URL: recoveryQueueUrl }),
        ...(deployed.DEAD_LETTERS_BY_PORTAL_QUEUE_URL && { DEAD_LETTERS_BY_PORTAL_QUEUE_URL: byPortalQueueUrl }),
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
        deliveryStatusLogRetentionDays: 30,
        maxAttemptsPerSubscription: 1000,
        messageKeepDays: 30,
        recoverySendsPerSecond: 10,
        recoveryQueueUrl: deployed.RECOVERY_QUEUE_URL ? recoveryQueueUrl : undefined,
        deadLettersByPortalQueueUrl: deployed.DEAD_LETTERS_BY_PORTAL_QUEUE_URL ? byPortalQueueUrl : undefined,
        portalSendLimit: { burst: DEFAULT_SETTINGS.portalSendBurst, ratePerMinute: DEFAULT_SETTINGS.portalSendRatePerMinute },
        portalChangeLimit: { burst: DEFAULT_SETTINGS.portalChangeBurst, ratePerMinute: DEFAULT_SETTINGS.portalChangeRatePerMinute },
        portalReadLimit: { burst: DEFAULT_SETTINGS.portalReadBurst, ratePerMinute: DEFAULT_SETTINGS.portalReadRatePerMinute },
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

describe('the HTTP API', () => {
  it('has exactly one route per operation and path prefix', () => {
    const routeKeys = ofType('AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties.RouteKey);

    expect(routeKeys.sort()).toEqual(OPERATIONS.flatMap((op) => op.paths.map((path) => `${op.method} ${path}`)).sort());
    expect(routeKeys).toHaveLength(32);
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
        [`${STACK_NAME}/Retries/retryDeadLetters/Role`, wildcardId],
        [`${STACK_NAME}/Recoveries/runRecoveries/Role`, wildcardId],
        // SNS names the log groups after each topic, made at run time.
        ...['', ':log-stream:*'].map((suffix) => [
          `${STACK_NAME}/Attempts/SnsDeliveryStatusLogging`,
          `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:sns/<AWS::Region>/<AWS::AccountId>/${stack.topicPrefix}-*${suffix}]`,
        ]),
        // The reconciler gives the topics' delivery status log groups (made by SNS at run time) their retention.
        [`${STACK_NAME}/Reconciliation/reconcileTopics/Role`, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:*]'],
        [
          `${STACK_NAME}/Reconciliation/reconcileTopics/Role`,
          `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:sns/<AWS::Region>/<AWS::AccountId>/${stack.topicPrefix}-*]`,
        ],
        // ListTopics and ListSubscriptions have no resource type in IAM.
        [`${STACK_NAME}/Reconciliation/reconcileTopics/Role`, 'AwsSolutions-IAM5[Resource::*]'],
        // A dead-letter queue needs no dead-letter queue; cdk-nag cannot see the redrive policies SNS holds.
        [`${STACK_NAME}/Delivery/DeliveryDeadLetters`, 'AwsSolutions-SQS3'],
        // Nor does the queue the same dead letters are forwarded to.
        [`${STACK_NAME}/Delivery/DeadLettersByPortal`, 'AwsSolutions-SQS3'],
      ].sort(),
    );
    for (const { id, reason } of acknowledgments) {
      const why = id.includes('Resource::*]')
        ? /no resource type in IAM.{40,}/
        : id.includes('IAM5')
          ? /created at run time.{40,}/
          : /redrive policy.{20,}|holds dead letters already.{40,}age of its oldest message/;
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
