/**
 * The service on AWS: the subscriptions table, one function per operation and
 * an HTTP API with one JWT-authorized route per operation and path prefix, the delivery of
 * portal events (portal-event-delivery.ts), the scheduled reconciler
 * (topic-reconciliation.ts), the operator's alarms (operator-alarms.ts) and dashboard (operator-dashboard.ts). Functions, routes, scopes and permissions all come from the
 * operations table, so none can be missing here.
 */
import { Annotations, Duration, Fn, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, type HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { handlerEntryOf, OPERATIONS, type OperationId } from '../../shared/operations';
import {
  BUCKET_FULL_AT_ATTRIBUTE,
  EXPIRY_ATTRIBUTE,
  idempotencyPartitionOf,
  TABLE_KEYS,
} from '../../shared/data/table';
import { type DeploymentSettings, stackTopicPrefix } from './deployment-settings';
import { topicPrefix as topicPrefixSetting } from '../../shared/settings';
import { MANAGEMENT_ACTIONS } from '../../shared/subscriptions/topic-policy';
import { LOCAL_DELIVERY_STATUS_ROLE_ARN, LOCAL_SERVICE_ROLE_ARN, localDeliveryDeadLetterQueueArn } from './local-account';
import { NOT_PORTAL_PARTITIONS, OPERATION_PERMISSIONS, type OperationPermissions, RATE_LIMIT_PERMISSIONS, REPLAY_DUE_WORK, RETRY_DUE_PARTITIONS_ONLY } from './operation-permissions';
import { RECORDER_DUE_WORK_WRITES } from './recorder-permissions';
import { AdminPageHosting } from './admin-page-hosting';
import { ATTEMPTS_FAILED_BATCH, DeliveryAttempts } from './delivery-attempts';
import { allowMessageJoin, allowMessageLogWrites } from './message-log-permissions';
import { OperatorAlarms } from './operator-alarms';
import { OperatorDashboard } from './operator-dashboard';
import { PortalEventDelivery } from './portal-event-delivery';
import { ServiceFunction } from './service-function';
import { addStackOutputs } from './stack-outputs';
import { allowOnPortalPartitions } from './table-grants';
import { RECONCILER_FAILED_RUN, TopicReconciliation } from './topic-reconciliation';
import { DeadLetterRetries, SWEEP_EVERY, SWEEP_FAILED_RUN } from './dead-letter-retries';
import { MessageRecoveries } from './message-recoveries';

export interface WebhookSubscriptionsStackProps extends StackProps {
  readonly settings: DeploymentSettings;
}

const LOG_RETENTION = RetentionDays.ONE_MONTH;

/** What becomes of the batch of a queue consumer's failed invocation: its messages become visible again. */
const QUEUE_FAILED_BATCH = 'its queue hands the batch out again';

/** One JSON object per request: who called which route, the answer, and why it failed if it did. */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  routeKey: '$context.routeKey',
  method: '$context.httpMethod',
  path: '$context.path',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  tokenSubject: '$context.authorizer.claims.sub',
};

export class WebhookSubscriptionsStack extends Stack {
  readonly table: Table;
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The function of each operation, by operation id. */
  readonly functions: ReadonlyMap<OperationId, ServiceFunction>;
  /** The event bus, queues and dispatcher that deliver portal events. */
  readonly delivery: PortalEventDelivery;
  /** The scheduled reconciler of table and SNS. */
  readonly reconciliation: TopicReconciliation;
  /** The scheduled sweep of dead letters' retries, failing notices and disabling. */
  readonly retries: DeadLetterRetries;
  readonly recoveries: MessageRecoveries;
  /** SNS's delivery status logging role and the consumer keeping every attempt for its tenant. */
  readonly attempts: DeliveryAttempts;
  /** The alarms that tell the operator, and their topic. */
  readonly alarms: OperatorAlarms;
  /** The operator's CloudWatch dashboard, and the metric filters that make the retry sweep's figures. */
  readonly dashboard: OperatorDashboard;
  /** Prefix of the subscriptions' topic names (TOPIC_PREFIX): the operator's, else one unique to the stack. */
  readonly topicPrefix: string;
  /** The admin page's bucket, distribution and CORS, with `adminPage=true`. */
  readonly adminPage: AdminPageHosting | undefined;

  constructor(scope: Construct, id: string, props: WebhookSubscriptionsStackProps) {
    super(scope, id, props);
    const { settings } = props;
    // Locally (a template for sam local invoke) the prefix npm start's records have.
    this.topicPrefix = settings.topicPrefix ?? (settings.localEndpoints ? topicPrefixSetting.default! : stackTopicPrefix(this.stackName));
    const { topicPrefix } = this;

    this.table = new Table(this, 'Subscriptions', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Idempotency records carry their expiry here (epoch seconds); nothing else has it, so
      // nothing else expires. Expired records are ignored before TTL gets round to them.
      timeToLiveAttribute: EXPIRY_ATTRIBUTE,
      // Customers' subscriptions outlive the stack: `cdk destroy` leaves the table in place.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Topics are created at run time, one per subscription, so only their name prefix is known here.
    // A subscription's ARN is its topic's ARN plus ":<id>", so the pattern covers those too.
    const topicArnPattern = this.formatArn({
      service: 'sns',
      resource: `${topicPrefix}-*`,
    });

    const environment: Record<string, string> = {
      TABLE_NAME: this.table.tableName,
      TOPIC_PREFIX: topicPrefix,
      MAX_SUBSCRIPTIONS_PER_PORTAL: String(settings.maxSubscriptionsPerPortal),
      PORTAL_CLAIM: settings.portalClaim,
      EVENT_KINDS: settings.eventKinds.join(','),
      // Read by the recorder (each dead letter's next retry) and the sweep; every function checks them at start.
      DELIVERY_RETRY_SCHEDULE: settings.deliveryRetrySchedule,
      DISABLE_FAILING_AFTER: settings.disableFailingAfter,
      // Read by every function that publishes (the message log, shared/data/messages.ts).
      MESSAGE_KEEP_DAYS: String(settings.messageKeepDays),
      ...(settings.localEndpoints && {
        AWS_ENDPOINT_URL_DYNAMODB: settings.localEndpoints.dynamoDb,
        AWS_ENDPOINT_URL_SNS: settings.localEndpoints.sns,
      }),
    };
    if (settings.localEndpoints) {
      Annotations.of(this).addWarningV2(
        'webhooks:localEndpoints',
        'The functions are pointed at local DynamoDB and SNS endpoints: this template is for sam local invoke only; do not deploy it.',
      );
    }

    this.delivery = new PortalEventDelivery(this, 'Delivery', {
      eventBusName: settings.eventBusName,
      dispatcherMaxConcurrency: settings.dispatcherMaxConcurrency,
      table: this.table,
      topicArnPattern,
      environment,
      logRetention: LOG_RETENTION,
    });
    Validations.of(this.delivery.dispatcher.role).acknowledge(topicWildcardAcknowledgement(topicPrefix));

    const functions = new Map<OperationId, ServiceFunction>();
    for (const operation of OPERATIONS) {
      const fn = new ServiceFunction(this, operation.handler, {
        entry: handlerEntryOf(operation),
        name: operation.handler,
        description: `${operation.method} ${operation.paths[0]} (${operation.id})`,
        // A request makes at most a handful of SDK calls of some milliseconds each; 10 s leaves
        // room for the SDK's retries (shared/aws/client-options.ts) while a dependency that hangs
        // gets a 5xx well before API Gateway's own 30 s limit.
        timeout: Duration.seconds(10),
        environment,
        logRetention: LOG_RETENTION,
      });
      const permissions: OperationPermissions = OPERATION_PERMISSIONS[operation.id];
      const idempotencyRecords = permissions.idempotencyRecords ?? [];
      // Each grant is held to its partitions by their partition keys: the records' to the portals'
      // partitions (and, where the operation writes only some attributes, its writes to those),
      // the idempotency records' to the operation's own.
      allowOnPortalPartitions(fn, this.table.tableArn, permissions.table, permissions.writtenAttributes);
      fn.allow(idempotencyRecords, [this.table.tableArn], {
        'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [idempotencyPartitionOf(operation.id)] },
      });
      // Every route that makes an AWS call is limited per portal. The portal's rate limit item: in
      // the portals' partitions, its key and two attributes only.
      if (operation.limitedPerPortal || operation.portalBudget) {
        fn.allow(RATE_LIMIT_PERMISSIONS, [this.table.tableArn], {
          'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': [...NOT_PORTAL_PARTITIONS] },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, BUCKET_FULL_AT_ATTRIBUTE, EXPIRY_ATTRIBUTE] },
        });
      }
      if (operation.limitedPerPortal) {
        fn.function.addEnvironment('PORTAL_SEND_BURST', String(settings.portalSendBurst));
        fn.function.addEnvironment('PORTAL_SEND_RATE_PER_MINUTE', String(settings.portalSendRatePerMinute));
      }
      if (operation.portalBudget === 'change') {
        fn.function.addEnvironment('PORTAL_CHANGE_BURST', String(settings.portalChangeBurst));
        fn.function.addEnvironment('PORTAL_CHANGE_RATE_PER_MINUTE', String(settings.portalChangeRatePerMinute));
      }
      if (operation.portalBudget === 'read') {
        fn.function.addEnvironment('PORTAL_READ_BURST', String(settings.portalReadBurst));
        fn.function.addEnvironment('PORTAL_READ_RATE_PER_MINUTE', String(settings.portalReadRatePerMinute));
      }
      fn.allow(permissions.topics, [topicArnPattern]);
      if (permissions.logsMessages) allowMessageLogWrites(fn, this.table.tableArn);
      if (permissions.topics.length > 0) Validations.of(fn.role).acknowledge(topicWildcardAcknowledgement(topicPrefix));
      functions.set(operation.id, fn);
    }
    this.functions = functions;
    // Where SNS puts what it cannot deliver (for sam local invoke: the queue the SNS emulator of
    // npm start keeps them under).
    const deadLetterQueueArn = settings.localEndpoints
      ? localDeliveryDeadLetterQueueArn('us-east-1')
      : this.delivery.deliveryDeadLetterQueue.queueArn;
    // Of the operations only create and confirm subscribe endpoints, and name that queue when they do;
    // only they decide whether an endpoint of the stack's own account is allowed.
    functions.get('confirmSubscriptionRoute')!.function.addEnvironment('CONFIRMATION_REQUESTS_PER_DAY', String(settings.confirmationRequestsPerDay));
    for (const id of ['createSubscriptionRoute', 'confirmSubscriptionRoute'] as const) {
      const fn = functions.get(id)!.function;
      fn.addEnvironment('DELIVERY_DEAD_LETTER_QUEUE_ARN', deadLetterQueueArn);
      if (settings.allowedEndpointAccounts.length > 0) fn.addEnvironment('ALLOWED_ENDPOINT_ACCOUNTS', settings.allowedEndpointAccounts.join(','));
    }
    // The only principals each topic's access policy lets publish (shared/subscriptions/topic-policy.ts):
    // the dispatcher and the operations that publish. The functions that create topics name them
    // (for sam local invoke: the principal the SNS emulator takes the local credentials for).
    this.retries = new DeadLetterRetries(this, 'Retries', { table: this.table, topicArnPattern, environment, logRetention: LOG_RETENTION });
    // Recoveries (POST /recover): their jobs' queue and worker; recover stores one and queues its first job.
    const { recoverySendsPerSecond } = settings;
    this.recoveries = new MessageRecoveries(this, 'Recoveries', { table: this.table, topicArnPattern, environment, recoverySendsPerSecond, logRetention: LOG_RETENTION });
    Validations.of(this.recoveries.worker.role).acknowledge(topicWildcardAcknowledgement(topicPrefix));
    this.recoveries.startedBy(functions.get('recoverMessagesRoute')!);
    Validations.of(this.retries.sweeper.role).acknowledge(topicWildcardAcknowledgement(topicPrefix));
    // The recorder writes the sweep's work (due-work.ts), replay removes a dead letter's due retry: there only.
    this.delivery.recorder.allow(RECORDER_DUE_WORK_WRITES.actions, [this.table.tableArn], {
      'ForAllValues:StringLike': { ...RETRY_DUE_PARTITIONS_ONLY['ForAllValues:StringLike'], 'dynamodb:Attributes': [...RECORDER_DUE_WORK_WRITES.attributes] },
    });
    functions.get('replayDeadLettersRoute')!.allow(REPLAY_DUE_WORK, [this.table.tableArn], {
      ...RETRY_DUE_PARTITIONS_ONLY,
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey] },
    });
    const publishers = [
      this.delivery.dispatcher.role.roleArn,
      this.retries.sweeper.role.roleArn,
      this.recoveries.worker.role.roleArn,
      ...OPERATIONS.filter((operation) => (OPERATION_PERMISSIONS[operation.id].topics as readonly string[]).includes('sns:Publish')).map(
        (operation) => functions.get(operation.id)!.role.roleArn,
      ),
    ];
    const topicPublisherArns = settings.localEndpoints ? LOCAL_SERVICE_ROLE_ARN : Fn.join(',', publishers);
    functions.get('createSubscriptionRoute')!.function.addEnvironment('TOPIC_PUBLISHER_ARNS', topicPublisherArns);
    // The only principals (with the account's root user) the same policy lets subscribe and change
    // or delete a topic: the operations IAM grants any of those actions, and the reconciler (its
    // role is added below, once made).
    const managingOperations = OPERATIONS.filter((operation) =>
      (OPERATION_PERMISSIONS[operation.id].topics as readonly string[]).some((action) => (MANAGEMENT_ACTIONS as readonly string[]).includes(action)),
    ).map((operation) => functions.get(operation.id)!.role.roleArn);

    this.attempts = new DeliveryAttempts(this, 'Attempts', {
      table: this.table,
      topicPrefix,
      topicArnPattern,
      environment: { ...environment, ATTEMPT_KEEP_DAYS: String(settings.attemptKeepDays) },
      logRetention: LOG_RETENTION,
    });
    for (const suffix of ['', ':log-stream:*']) {
      Validations.of(this.attempts.loggingRole).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:sns/<AWS::Region>/<AWS::AccountId>/${topicPrefix}-*${suffix}]`,
        reason:
          'SNS names the delivery status log groups after each topic, and the topics are created at run time, one per ' +
          `subscription (sns/<region>/<account>/<topic>[/Failure]): the wildcard is held to the ${topicPrefix}-* topics of this account and region.`,
      });
    }
    // Every topic is made with delivery status logging (shared/subscriptions/delivery-status.ts):
    // by create, and by the reconciler for topics it recreates or that were made before it.
    const deliveryStatus = {
      DELIVERY_STATUS_ROLE_ARN: settings.localEndpoints ? LOCAL_DELIVERY_STATUS_ROLE_ARN : this.attempts.loggingRole.roleArn,
      DELIVERY_STATUS_SUCCESS_SAMPLE_RATE: String(settings.deliveryStatusSuccessSampleRate),
    };
    // Naming the role in a topic attribute passes it to SNS, to SNS only.
    const passLoggingRole = (fn: ServiceFunction) =>
      fn.allow(['iam:PassRole'], [this.attempts.loggingRole.roleArn], { StringEquals: { 'iam:PassedToService': 'sns.amazonaws.com' } });
    const create = functions.get('createSubscriptionRoute')!;
    for (const [name, value] of Object.entries(deliveryStatus)) create.function.addEnvironment(name, value);
    passLoggingRole(create);

    this.reconciliation = new TopicReconciliation(this, 'Reconciliation', {
      table: this.table,
      topicArnPattern,
      topicPrefix,
      // Recreated SNS subscriptions get the redrive policy create gives new ones.
      environment: {
        ...environment,
        RECONCILE_GRACE_MINUTES: String(settings.reconcileGraceMinutes),
        DELIVERY_STATUS_LOG_RETENTION_DAYS: String(settings.deliveryStatusLogRetentionDays),
        // For sam local invoke: the SNS emulator serves the log groups' CloudWatch Logs side too.
        ...(settings.localEndpoints && { AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: settings.localEndpoints.sns }),
        DELIVERY_DEAD_LETTER_QUEUE_ARN: deadLetterQueueArn,
        // Recreated topics get the access policy create gives new ones.
        TOPIC_PUBLISHER_ARNS: topicPublisherArns,
        ...deliveryStatus,
      },
      logRetention: LOG_RETENTION,
      everyMinutes: settings.reconcileEveryMinutes,
    });
    const topicManagerArns = settings.localEndpoints
      ? LOCAL_SERVICE_ROLE_ARN
      : Fn.join(',', [...managingOperations, this.reconciliation.reconciler.role.roleArn]);
    for (const fn of [create.function, this.reconciliation.reconciler.function]) fn.addEnvironment('TOPIC_MANAGER_ARNS', topicManagerArns);
    passLoggingRole(this.reconciliation.reconciler);
    const reconcilerRole = Validations.of(this.reconciliation.reconciler.role);
    reconcilerRole.acknowledge(topicWildcardAcknowledgement(topicPrefix));
    reconcilerRole.acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'sns:ListTopics and sns:ListSubscriptions list the whole account and have no resource type in IAM, so they ' +
        'can only be granted on "*" (a topic name prefix cannot narrow them); the reconciler needs both to find ' +
        'orphan topics and lost subscriptions. Every other action of the role is on the table or the prefix.',
    });

    this.alarms = new OperatorAlarms(this, 'OperatorAlarms', {
      portalEventsDeadLetterQueue: this.delivery.eventsDeadLetterQueue,
      deliveryDeadLetterQueue: this.delivery.deliveryDeadLetterQueue,
      deadLettersByPortal: this.delivery.deadLettersByPortal,
      // Every function that consumes a queue or the delivery status logs, one a line: each gets an alarm on its errors.
      consumers: [
        ...[this.delivery.dispatcher, this.delivery.forwarder, this.delivery.recorder, this.recoveries.worker].map((consumer) => ({ consumer, failedBatch: QUEUE_FAILED_BATCH })),
        { consumer: this.attempts.consumer, failedBatch: ATTEMPTS_FAILED_BATCH },
      ],
      // Every function run on a schedule: each gets an alarm on its errors and one on its missed runs.
      jobs: [
        { job: this.retries.sweeper, every: SWEEP_EVERY, failedRun: SWEEP_FAILED_RUN },
        { job: this.reconciliation.reconciler, every: this.reconciliation.every, failedRun: RECONCILER_FAILED_RUN },
      ],
      operatorEmails: settings.operatorEmails,
      attemptsConsumer: this.attempts.consumer,
    });

    this.dashboard = new OperatorDashboard(this, 'OperatorDashboard', {
      topicPrefix,
      eventsQueue: this.delivery.eventsQueue,
      eventsDeadLetterQueue: this.delivery.eventsDeadLetterQueue,
      deliveryDeadLetterQueue: this.delivery.deliveryDeadLetterQueue,
      deadLettersByPortal: this.delivery.deadLettersByPortal,
      sweeper: this.retries.sweeper,
      apiFunctions: [...functions.values()],
      otherFunctions: [this.delivery.dispatcher, this.delivery.forwarder, this.delivery.recorder, this.attempts.consumer, this.retries.sweeper, this.reconciliation.reconciler, this.recoveries.worker],
    });

    const authorizer = new HttpJwtAuthorizer('JwtAuthorizer', settings.jwtIssuer, {
      jwtAudience: [...settings.jwtAudience],
    });
    this.api = new HttpApi(this, 'Api', {
      // From the operations table, so it names each route's operation however many there are.
      description: `Webhook subscriptions of a portal: ${OPERATIONS.map((operation) => operation.handler.replace(/Subscriptions?$/, '')).join(', ')}.`,
      // The stage is created below, with throttling and access logs.
      createDefaultStage: false,
    });
    for (const operation of OPERATIONS) {
      const integration = new HttpLambdaIntegration(`${operation.handler}Integration`, functions.get(operation.id)!.function);
      for (const path of operation.paths) {
        this.api.addRoutes({
          path,
          methods: [HttpMethod[operation.method]],
          integration,
          authorizer,
          authorizationScopes: [operation.scope],
        });
      }
    }

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: settings.throttlingRateLimit, burstLimit: settings.throttlingBurstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    this.adminPage = settings.adminPage
      ? new AdminPageHosting(this, 'AdminPage', {
          page: settings.adminPage,
          issuer: settings.jwtIssuer,
          portalClaim: settings.portalClaim,
          eventKinds: settings.eventKinds,
          api: this.api,
        })
      : undefined;

    addStackOutputs(this);
  }
}

/** Why the functions that call SNS may do so on every topic of the prefix (cdk-nag AwsSolutions-IAM5). */
function topicWildcardAcknowledgement(topicPrefix: string) {
  return {
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sns:<AWS::Region>:<AWS::AccountId>:${topicPrefix}-*]`,
    reason:
      `Each subscription gets its own SNS topic, named ${topicPrefix}-<configId> and created at run ` +
      'time, so the topics cannot be listed in advance; the wildcard is limited to this prefix in this ' +
      'account and region, and to the SNS actions the function calls.',
  };
}
