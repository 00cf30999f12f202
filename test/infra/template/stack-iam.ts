/**
 * Who may do what in the template `cdk synth` produces: the delivery status logging role and the
 * functions that name it, who may publish to, subscribe to, change and delete the topics, no
 * grant on "*" but the reconciler's listings, and the whole of each function's role, written out
 * for review. The rest of the template is checked by stack.ts beside it.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { OPERATION_PERMISSIONS } from '../../../infra/aws/operation-permissions';
import { ATTEMPTS_RECORDER, DEAD_LETTER_FORWARDER, DEAD_LETTER_RECORDER, DISPATCHER, OPERATIONS, RECONCILER, RECOVERY_WORKER, RETRY_SWEEPER } from '../../../shared/operations';
import { recoveryGrants } from './recovery-iam';
import { MANAGEMENT_ACTIONS } from '../../../shared/subscriptions/topic-policy';
import { logicalIdOf, REQUIRED_CONTEXT, serviceApp } from '../../support/cdk-app';
import { deliveryStatusVariables, loggingRoleArn, managersVariable, ofType, policyStatementsOf } from '../../support/synthesized-stack';
import { publishersVariable, resources, stack, tableId, topicArnPattern } from '../../support/synthesized-stack';

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation JSON */


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
    expect(publishing.map((op) => op.id)).toEqual(['testSubscriptionRoute', 'replayDeadLettersRoute', 'resendMessageRoute']);
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
  const PORTALS = 'when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,message-id#*,recovery#running';
  const ATTRIBUTES = 'ForAllValues:StringLike dynamodb:Attributes';
  // The message log: what a publisher writes (a message and its owner by message id, in one BatchWriteItem), what the join reads and sets.
  const MESSAGE_LOG_WRITES =
    'table: dynamodb:BatchWriteItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,recovery#running and ForAllValues:StringEquals dynamodb:Attributes ' +
    'portalId,sk,configId,messageId,eventId,event,occurredAt,sentAt,body,deliveryState,attempts,subscriptionPortalId,messageSk,idempotencyExpiresAt';
  // The retry sweep's: a retry's owner names the dead letter it sends again.
  const RETRY_LOG_WRITES = MESSAGE_LOG_WRITES.replace('messageSk,', 'messageSk,retryOf,');
  const MESSAGE_JOIN = [
    'table: dynamodb:BatchGetItem when ForAllValues:StringLike dynamodb:LeadingKeys message-id#*',
    `table: dynamodb:UpdateItem ${PORTALS} and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,deliveryState,lastAttemptAt,statusCode,attempts`,
  ];
  // The portal's rate limit item, which every operation takes a token of.
  const BUCKET = `table: dynamodb:UpdateItem ${PORTALS} and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,bucketFullAt,idempotencyExpiresAt`;
  const EXPECTED: Record<string, string[]> = {
    createSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'table: dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,message-id#*,recovery#running',
      'table: dynamodb:DeleteItem dynamodb:GetItem dynamodb:UpdateItem when ForAllValues:StringEquals dynamodb:LeadingKeys idempotency#createSubscriptionRoute',
      BUCKET,
      'service topics: sns:CreateTopic sns:DeleteTopic sns:Subscribe sns:TagResource',
      'delivery status logging role: iam:PassRole when StringEquals iam:PassedToService sns.amazonaws.com',
    ],
    updateSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,events,maxReceivesPerSecond,filter,protocol`,
      BUCKET,
      'service topics: sns:SetSubscriptionAttributes',
    ],
    activateSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,status,disabledReason,disabledAt,failingSince`,
      BUCKET,
    ],
    listSubscriptions: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:Query ${PORTALS}`,
      `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,subscriptionArn,subscriptionState,subscriptionStateAt`,
      BUCKET,
      'service topics: sns:GetSubscriptionAttributes',
    ],
    renameSubscription: ['own log group: logs:CreateLogStream logs:PutLogEvents', `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,name`, BUCKET],
    deleteSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:GetItem ${PORTALS}`,
      `table: dynamodb:DeleteItem dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,subscriptionCount`,
      BUCKET,
      'service topics: sns:DeleteTopic',
    ],
    testSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:GetItem ${PORTALS}`,
      BUCKET,
      'service topics: sns:GetSubscriptionAttributes sns:Publish',
      MESSAGE_LOG_WRITES,
    ],
    listDeadLetters: ['own log group: logs:CreateLogStream logs:PutLogEvents', `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`, BUCKET],
    listAttempts: ['own log group: logs:CreateLogStream logs:PutLogEvents', `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`, BUCKET],
    listMessages: ['own log group: logs:CreateLogStream logs:PutLogEvents', `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`, BUCKET],
    resendMessage: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`,
      BUCKET,
      'service topics: sns:GetSubscriptionAttributes sns:Publish',
      MESSAGE_LOG_WRITES,
    ],
    // Its one AWS call is its per-portal limit's bucket.
    testFilter: ['own log group: logs:CreateLogStream logs:PutLogEvents', BUCKET],
    replayDeadLetters: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`,
      `table: dynamodb:DeleteItem dynamodb:PutItem dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,replayClaimedUntil,replayClaimedBy,deadLetters@*,retryingDeadLetters@*,retries,cancelled,idempotencyExpiresAt`,
      'table: dynamodb:DeleteItem dynamodb:GetItem dynamodb:UpdateItem when ForAllValues:StringEquals dynamodb:LeadingKeys idempotency#replayDeadLettersRoute',
      'table: dynamodb:DeleteItem when ForAllValues:StringLike dynamodb:LeadingKeys retry-due#* and ForAllValues:StringEquals dynamodb:Attributes portalId,sk',
      BUCKET,
      'service topics: sns:GetSubscriptionAttributes sns:Publish',
      MESSAGE_LOG_WRITES,
    ],
    recordDeadLetters: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'table: dynamodb:BatchGetItem dynamodb:GetItem dynamodb:Query when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,message-id#*,recovery#running',
      'table: dynamodb:DeleteItem dynamodb:PutItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,message-id#*,recovery#running and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,configId,eventId,event,occurredAt,failedAt,messageId,message,retries,nextRetryAt,retriedAt,idempotencyExpiresAt',
      'table: dynamodb:UpdateItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,message-id#*,recovery#running and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,lastDeadLetterAt,deadLettersDropped,failingSince,deadLetters@*,retryingDeadLetters@*',
      'table: dynamodb:DeleteItem dynamodb:PutItem when ForAllValues:StringLike dynamodb:LeadingKeys retry-due#* and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,kind,dueAt,subscriptionPortalId,configId,letterSk,failingSince,idempotencyExpiresAt',
      ...MESSAGE_JOIN,
      'dead letters by portal: sqs:ChangeMessageVisibility sqs:DeleteMessage sqs:GetQueueAttributes sqs:GetQueueUrl sqs:ReceiveMessage',
    ],
    // It sends on what it takes, and nothing else: no table, no topic.
    forwardDeadLetters: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'delivery dead-letter queue: sqs:ChangeMessageVisibility sqs:DeleteMessage sqs:GetQueueAttributes sqs:GetQueueUrl sqs:ReceiveMessage',
      'dead letters by portal: sqs:SendMessage',
    ],
    confirmSubscription: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:GetItem ${PORTALS}`,
      `table: dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} portalId,sk,subscriptionArn,subscriptionState,subscriptionStateAt,confirmationRequestedAt,confirmationRequestsDay,confirmationRequestsThatDay`,
      BUCKET,
      'service topics: sns:GetSubscriptionAttributes sns:Subscribe',
    ],
    dispatchPortalEvents: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      `table: dynamodb:Query ${PORTALS}`,
      'table: dynamodb:GetItem dynamodb:UpdateItem when ForAllValues:StringLike dynamodb:LeadingKeys delivery#*',
      'service topics: sns:Publish',
      MESSAGE_LOG_WRITES,
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
      "the account's log groups: logs:DescribeLogGroups",
      "the topics' delivery status log groups: logs:PutRetentionPolicy",
    ],
    retryDeadLetters: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'table: dynamodb:Query when ForAllValues:StringLike dynamodb:LeadingKeys retry-due#*',
      'table: dynamodb:DeleteItem dynamodb:UpdateItem when ForAllValues:StringLike dynamodb:LeadingKeys retry-due#* and ForAllValues:StringEquals dynamodb:Attributes portalId,sk,claimedUntil,claimedBy',
      'table: dynamodb:PutItem when ForAllValues:StringLike dynamodb:LeadingKeys retry-due#* and ForAllValues:StringEquals dynamodb:Attributes ' +
        'portalId,sk,kind,dueAt,subscriptionPortalId,configId,letterSk,failingSince,idempotencyExpiresAt',
      `table: dynamodb:GetItem dynamodb:Query ${PORTALS}`,
      `table: dynamodb:DeleteItem dynamodb:PutItem dynamodb:UpdateItem ${PORTALS} and ${ATTRIBUTES} ` +
        'portalId,sk,replayClaimedUntil,replayClaimedBy,nextRetryAt,retriedAt,retryMessageId,retries,cancelled,retryingSk,retryingFailedAt,retrySendingUntil,idempotencyExpiresAt,' +
        'deadLetters@*,retryingDeadLetters@*,status,disabledReason,disabledAt,failingSince',
      'service topics: sns:Publish',
      RETRY_LOG_WRITES,
      ...MESSAGE_JOIN,
    ],
    recordDeliveryAttempts: [
      'own log group: logs:CreateLogStream logs:PutLogEvents',
      'table: dynamodb:GetItem dynamodb:Query when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,message-id#*,recovery#running',
      'table: dynamodb:DeleteItem dynamodb:PutItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,message-id#*,recovery#running and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,at,status,statusCode,dwellTimeMs,attempts,messageId,eventId,idempotencyExpiresAt',
      'table: dynamodb:UpdateItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,message-id#*,recovery#running and ' +
        'ForAllValues:StringLike dynamodb:Attributes portalId,sk,lastDeliveredAt,lastFailedAt,lastEventDeliveredAt,attemptsDelivered@*,attemptsFailed@*,attemptsKept@*,deadLetters@*,retryingDeadLetters@*',
      // A dead letter whose scheduled retry was delivered, only while its retry is out.
      'table: dynamodb:DeleteItem when ForAllValues:StringNotLike dynamodb:LeadingKeys idempotency#*,delivery#*,retry-due#*,message-id#*,recovery#running and ForAllValues:StringLike dynamodb:Attributes portalId,sk,retriedAt',
      ...MESSAGE_JOIN,
    ],
    ...recoveryGrants(PORTALS, MESSAGE_LOG_WRITES, BUCKET),
  };

  const allFunctions = () => [
    ...OPERATIONS.map((op) => [op.handler, stack.functions.get(op.id)!] as const),
    [DISPATCHER.handler, stack.delivery.dispatcher] as const,
    [DEAD_LETTER_FORWARDER.handler, stack.delivery.forwarder] as const,
    [DEAD_LETTER_RECORDER.handler, stack.delivery.recorder] as const,
    [ATTEMPTS_RECORDER.handler, stack.attempts.consumer] as const,
    [RECONCILER.handler, stack.reconciliation.reconciler] as const,
    [RETRY_SWEEPER.handler, stack.retries.sweeper] as const,
    [RECOVERY_WORKER.handler, stack.recoveries.worker] as const,
  ];

  it('lists every function: the operations, the dispatcher, the dead-letter forwarder and recorder, the attempts consumer, the reconciler and the retry sweep', () => {
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
      [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(stack, stack.delivery.deadLettersByPortal), 'Arn'] }), 'dead letters by portal'],
      [JSON.stringify(loggingRoleArn()), 'delivery status logging role'],
      [JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(stack, stack.recoveries.queue), 'Arn'] }), 'recovery queue'],
      [JSON.stringify('*'), '*'],
      [JSON.stringify(logGroupArn('*')), "the account's log groups"],
      [JSON.stringify(logGroupArn(['sns/', { Ref: 'AWS::Region' }, '/', { Ref: 'AWS::AccountId' }, `/${stack.topicPrefix}-*`])), "the topics' delivery status log groups"],
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

/** A log group ARN of the stack's account and region, as the template joins it. */
function logGroupArn(name: string | unknown[]) {
  const head = ['arn:', { Ref: 'AWS::Partition' }, ':logs:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':log-group:'];
  const [first, ...rest] = [name].flat();
  return { 'Fn::Join': ['', [...head.slice(0, -1), `:log-group:${String(first)}`, ...rest]] };
}
