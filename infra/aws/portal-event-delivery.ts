/**
 * Delivery on AWS: portal events come in on an EventBridge bus; a rule puts
 * those of source `portal.events` on an SQS queue (with a dead-letter queue of its own); the
 * dispatcher consumes it in batches and publishes each event to the topics of the matching
 * subscriptions. Messages SNS cannot deliver after its retries go to the delivery dead-letter
 * queue, named in every SNS subscription's redrive policy; the forwarder sends each on to the
 * dead letters by portal, a fair queue keyed by the portal (SNS sets no group id on a dead letter:
 * docs/decisions/dead-letters-forwarded-by-portal.md), and the recorder consumes that queue and keeps
 * each dead letter for its subscription, where the tenant sees it and sends it again.
 */
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, EventField, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PORTAL_EVENT_SOURCE } from '../../shared/delivery/portal-event';
import { DELIVERY_PARTITIONS_PATTERN } from '../../shared/data/delivery-progress';
import { DEAD_LETTER_FORWARDER, DEAD_LETTER_RECORDER, DISPATCHER } from '../../shared/operations';
import { PORTAL_PARTITIONS_ONLY } from './operation-permissions';
import { allowMessageJoin, allowMessageLogWrites } from './message-log-permissions';
import { RECORDER_READS, RECORDER_WRITES } from './recorder-permissions';
import { ServiceFunction } from './service-function';

export interface PortalEventDeliveryProps {
  readonly eventBusName: string;
  /** The dispatcher's event source's maximum concurrency. */
  readonly dispatcherMaxConcurrency: number;
  readonly table: ITable;
  /** ARN pattern of the service's topics (`<prefix>-*`), which their subscriptions' ARNs match too. */
  readonly topicArnPattern: string;
  /** The service configuration every function reads. */
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
}

/** A batch of 10 events takes at most 10 Queries and, per recipient, a PublishBatch: some milliseconds each. */
const DISPATCHER_TIMEOUT = Duration.seconds(30);
/**
 * Events per invocation: 10, what one PublishBatch takes ("Publishes up to 10 messages to the
 * specified topic in a single batch", SNS API Reference, "PublishBatch"), so ten events of one
 * portal cost one Query and one PublishBatch per recipient. More would save only Queries (one
 * per portal per batch) while each failure or timeout would hold back more events.
 */
export const DISPATCH_BATCH_SIZE = 10;
/**
 * How long Lambda may gather events before it invokes the dispatcher with fewer than 10 ("Lambda
 * parameters for Amazon SQS event source mappings": MaximumBatchingWindowInSeconds, 0 to 300, in
 * whole seconds; 0 by default). 1 s, the least above none: an event waits at most 1 s more, and
 * none while a bulk upload keeps 10 waiting; a portal sending 2 to 10 events a second gets them
 * in one invocation, one Query and one PublishBatch per recipient, instead of up to one each per
 * event. A longer window adds latency to every quiet portal's events for little more: below one
 * event a second, few more would share a batch.
 */
export const DISPATCH_BATCHING_WINDOW = Duration.seconds(1);
/** A batch of 30 dead letters: one read per subscription, then one transaction each. */
const RECORDER_TIMEOUT = Duration.seconds(30);
/**
 * The recorder's batches: 30 dead letters, two batches at a time (the least maximum concurrency
 * Lambda allows). The fair queue tells a portal apart when it holds more than about 10% of the
 * messages in flight and at least 30 of them ("How Amazon SQS fair queues work",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html);
 * when one batch ends and the next is taken, the other batch's 30 are what is in flight: enough.
 * (With 20, the 20 left in flight were never enough, as the local stack showed.) Over 10 records a
 * batch, the event source needs a batching window ("Lambda parameters for Amazon SQS event source
 * mappings", BatchSize, https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html):
 * 1 s, the least, a wait no dead letter (already minutes or hours late) notices.
 */
export const RECORDER_BATCH_SIZE = 30;
const RECORDER_BATCHING_WINDOW = Duration.seconds(1);
/** A batch of 10 dead letters is one SendMessageBatch. */
const FORWARDER_TIMEOUT = Duration.seconds(10);
/**
 * Forwarding batches at a time: the forwarder must drain the delivery dead-letter queue, first in
 * first out, far faster than the recorder drains the fair queue, so a backlog waits where the
 * portals take turns. Five batches of 10 in some tens of milliseconds each is hundreds a second,
 * against the recorder's 40 in some hundreds of milliseconds (docs/scale.md#dead-letters).
 */
export const FORWARDER_CONCURRENCY = 5;
/** Where a portal event carries its portal: each message's group in the fair events queue. */
export const PORTAL_GROUP_PATH = '$.detail.portalId';
/** Tries of an event before it is set aside in the events dead-letter queue. */
export const EVENT_MAX_RECEIVE_COUNT = 5;
/** Dead letters are kept as long as SQS allows, for an operator to look at and redrive. */
const DEAD_LETTER_RETENTION = Duration.days(14);

export class PortalEventDelivery extends Construct {
  readonly bus: EventBus;
  readonly eventsQueue: Queue;
  readonly eventsDeadLetterQueue: Queue;
  readonly deliveryDeadLetterQueue: Queue;
  /** The fair queue keyed by portal the forwarder sends each dead letter to, and the recorder consumes. */
  readonly deadLettersByPortal: Queue;
  readonly dispatcher: ServiceFunction;
  /** Sends each message of the delivery dead-letter queue on to the dead letters by portal (shared/dead-letters/forwarding.ts). */
  readonly forwarder: ServiceFunction;
  /** Keeps each message of the delivery dead-letter queue for its subscription (shared/dead-letters/). */
  readonly recorder: ServiceFunction;

  constructor(scope: Construct, id: string, props: PortalEventDeliveryProps) {
    super(scope, id);
    const queueDefaults = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true } as const;

    this.bus = new EventBus(this, 'Bus', { eventBusName: props.eventBusName });
    this.eventsDeadLetterQueue = new Queue(this, 'EventsDeadLetters', {
      ...queueDefaults,
      retentionPeriod: DEAD_LETTER_RETENTION,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.eventsQueue = new Queue(this, 'Events', {
      ...queueDefaults,
      // AWS's advice for a Lambda event source: at least six times the function's timeout, so a
      // batch still being worked on is not handed out again.
      visibilityTimeout: Duration.seconds(DISPATCHER_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.eventsDeadLetterQueue, maxReceiveCount: EVENT_MAX_RECEIVE_COUNT },
    });
    const rule = new Rule(this, 'PortalEventsToQueue', {
      eventBus: this.bus,
      description: `Portal events (source ${PORTAL_EVENT_SOURCE}) to the dispatcher's queue.`,
      eventPattern: { source: [PORTAL_EVENT_SOURCE] },
      targets: [
        new SqsQueue(this.eventsQueue, {
          deadLetterQueue: this.eventsDeadLetterQueue,
          // The portal as each message's group makes the standard queue a fair queue keyed by portal
          // (docs/decisions/fair-queue-by-portal.md): EventBridge sets MessageGroupId on "an Amazon SQS
          // fair or FIFO queue" target (EventBridge API Reference, "SqsParameters",
          // https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_SqsParameters.html), and a
          // target parameter may be a JSON path into the event ("Event bus targets in Amazon
          // EventBridge", dynamic path parameters,
          // https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-targets.html).
          messageGroupId: EventField.fromPath(PORTAL_GROUP_PATH),
        }),
      ],
    });
    // The target above allows EventBridge sending for this rule; these Deny statements refuse
    // every other sender, whatever its IAM policies allow: a message put here by hand would be
    // published from a tenant's topic, signed by SNS (docs/security.md, "Forged service notices").
    for (const statement of eventsQueuePolicy(this.eventsQueue.queueArn, rule.ruleArn, Stack.of(this).formatArn(ACCOUNT_ROOT))) {
      this.eventsQueue.addToResourcePolicy(statement);
    }

    this.deliveryDeadLetterQueue = new Queue(this, 'DeliveryDeadLetters', {
      ...queueDefaults,
      // Six times the forwarder's timeout, as for the events queue.
      visibilityTimeout: Duration.seconds(FORWARDER_TIMEOUT.toSeconds() * 6),
      retentionPeriod: DEAD_LETTER_RETENTION,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.deliveryDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is a dead-letter queue: every SNS subscription's redrive policy names it (set at run time by " +
        'the create function, so CloudFormation cannot see it).',
    });
    // SNS sends here for the service's own topics, and no one else may: a message put here by
    // hand would be kept for a tenant and replayed from its own topic, signed by SNS. The Deny
    // statements bind every principal of the account whatever its IAM policies allow. SNS's
    // redrive to a dead-letter queue is made by the service principal sns.amazonaws.com with the
    // topic as aws:SourceArn ("Configuring an Amazon SNS dead-letter queue for a subscription", SNS
    // Developer Guide); aws:PrincipalServiceName is present only on a service principal's own
    // requests and aws:SourceArn only on a service's request made for a resource, so a role of the
    // account lacks both, and an absent key makes a `...Not...` operator match: denied (IAM User
    // Guide, "AWS global condition context keys", "Condition operators").
    for (const statement of deliveryDeadLetterQueuePolicy(this.deliveryDeadLetterQueue.queueArn, props.topicArnPattern)) {
      this.deliveryDeadLetterQueue.addToResourcePolicy(statement);
    }

    this.dispatcher = new ServiceFunction(this, DISPATCHER.handler, {
      entry: DISPATCHER.entry,
      name: DISPATCHER.handler,
      description: 'Publishes each portal event to the topics of the subscriptions that chose it.',
      timeout: DISPATCHER_TIMEOUT,
      environment: props.environment,
      logRetention: props.logRetention,
    });
    // The portals' records, never the idempotency records (which hold answers) nor others' progress.
    this.dispatcher.allow(['dynamodb:Query'], [props.table.tableArn], PORTAL_PARTITIONS_ONLY);
    // Which recipients an event reached (shared/data/delivery-progress.ts), in those records' partitions only.
    this.dispatcher.allow(['dynamodb:GetItem', 'dynamodb:UpdateItem'], [props.table.tableArn], {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [DELIVERY_PARTITIONS_PATTERN] },
    });
    // PublishBatch too: "The PublishBatch API uses the same Publish API action for IAM policies"
    // (SNS Developer Guide, "Amazon SNS message batching").
    this.dispatcher.allow(['sns:Publish'], [props.topicArnPattern]);
    // What it published, with its body (shared/data/messages.ts).
    allowMessageLogWrites(this.dispatcher, props.table.tableArn);
    // Grants the function receive/delete/change-visibility on this queue only.
    this.dispatcher.function.addEventSource(
      new SqsEventSource(this.eventsQueue, {
        batchSize: DISPATCH_BATCH_SIZE,
        maxBatchingWindow: DISPATCH_BATCHING_WINDOW,
        reportBatchItemFailures: true,
        // Below SNS's publish quota and leaving the API its share of Lambda concurrency; enough
        // batches in flight for the fair queue to tell a flooding portal (docs/scale.md#fair-delivery).
        maxConcurrency: props.dispatcherMaxConcurrency,
      }),
    );

    this.deadLettersByPortal = new Queue(this, 'DeadLettersByPortal', {
      ...queueDefaults,
      // Six times the recorder's timeout, as for the events queue.
      visibilityTimeout: Duration.seconds(RECORDER_TIMEOUT.toSeconds() * 6),
      retentionPeriod: DEAD_LETTER_RETENTION,
      // A dead letter is SNS's notification of a message of up to 256 KB, JSON-escaped: it may
      // exceed 256 KB; SQS takes up to 1 MiB ("Amazon SQS message quotas").
      maxMessageSizeBytes: 1_048_576,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.deadLettersByPortal).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue holds dead letters already: a dead letter the recorder fails on stays, tried again, until it is ' +
        'kept, and the operator alarm on the age of its oldest message watches it (as for the delivery dead-letter queue).',
    });

    this.forwarder = new ServiceFunction(this, DEAD_LETTER_FORWARDER.handler, {
      entry: DEAD_LETTER_FORWARDER.entry,
      name: DEAD_LETTER_FORWARDER.handler,
      description: 'Sends each message SNS could not deliver on to the recorder\'s fair queue, keyed by its portal.',
      timeout: FORWARDER_TIMEOUT,
      environment: { ...props.environment, DEAD_LETTERS_BY_PORTAL_QUEUE_URL: this.deadLettersByPortal.queueUrl },
      logRetention: props.logRetention,
    });
    // SendMessageBatch is authorized as SendMessage ("Amazon SQS API permissions: Actions and resource reference").
    this.forwarder.allow(['sqs:SendMessage'], [this.deadLettersByPortal.queueArn]);
    this.forwarder.function.addEventSource(
      new SqsEventSource(this.deliveryDeadLetterQueue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: FORWARDER_CONCURRENCY }),
    );
    // Only the forwarder sends here: a message put here by hand would be kept for a tenant and
    // replayed from its own topic, signed by SNS (as for the delivery dead-letter queue).
    for (const statement of deadLettersByPortalPolicy(this.deadLettersByPortal.queueArn, this.forwarder.role.roleArn)) {
      this.deadLettersByPortal.addToResourcePolicy(statement);
    }

    this.recorder = new ServiceFunction(this, DEAD_LETTER_RECORDER.handler, {
      entry: DEAD_LETTER_RECORDER.entry,
      name: DEAD_LETTER_RECORDER.handler,
      description: 'Keeps each message SNS could not deliver for its subscription, in the portal that owns it.',
      timeout: RECORDER_TIMEOUT,
      environment: props.environment,
      logRetention: props.logRetention,
    });
    // The portals' partitions only, never the idempotency or delivery records'.
    this.recorder.allow(RECORDER_READS.actions, [props.table.tableArn], PORTAL_PARTITIONS_ONLY);
    for (const { actions, attributes } of RECORDER_WRITES) {
      this.recorder.allow(actions, [props.table.tableArn], {
        ...PORTAL_PARTITIONS_ONLY,
        'ForAllValues:StringLike': { 'dynamodb:Attributes': attributes },
      });
    }
    // The message log shows a dead letter's message dead-lettered (shared/attempts/message-join.ts).
    allowMessageJoin(this.recorder, props.table.tableArn);
    // A batch's records of one subscription are written one after the other; two batches at a
    // time (the least Lambda allows) keep concurrent writes to one record rare.
    this.recorder.function.addEventSource(
      new SqsEventSource(this.deadLettersByPortal, {
        batchSize: RECORDER_BATCH_SIZE,
        maxBatchingWindow: RECORDER_BATCHING_WINDOW,
        reportBatchItemFailures: true,
        maxConcurrency: 2,
      }),
    );
  }
}

/** SNS service principal, which sends a subscription's undeliverable messages to its dead-letter queue. */
export const SNS_SERVICE_PRINCIPAL = 'sns.amazonaws.com';

/** The delivery dead-letter queue's policy: only SNS, sending for a topic of the service, may put a message there. */
export function deliveryDeadLetterQueuePolicy(queueArn: string, topicArnPattern: string): PolicyStatement[] {
  return [
    new PolicyStatement({
      sid: 'SnsSendsForTheServiceTopics',
      principals: [new ServicePrincipal(SNS_SERVICE_PRINCIPAL)],
      actions: ['sqs:SendMessage'],
      resources: [queueArn],
      conditions: { ArnLike: { 'aws:SourceArn': topicArnPattern } },
    }),
    new PolicyStatement({
      sid: 'NoOneButSnsSends',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['sqs:SendMessage'],
      resources: [queueArn],
      conditions: { StringNotEquals: { 'aws:PrincipalServiceName': SNS_SERVICE_PRINCIPAL } },
    }),
    new PolicyStatement({
      sid: 'NoTopicButTheServicesSends',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['sqs:SendMessage'],
      resources: [queueArn],
      conditions: { ArnNotLike: { 'aws:SourceArn': topicArnPattern } },
    }),
  ];
}

/**
 * The dead letters by portal's policy: no principal but the forwarder's role may send there. An
 * explicit Deny binds every principal of the account whatever its IAM policies allow (IAM User
 * Guide, "Policy evaluation logic"); aws:PrincipalArn of a role's session is the role's ARN ("AWS
 * global condition context keys", https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-principalarn).
 */
export function deadLettersByPortalPolicy(queueArn: string, forwarderRoleArn: string): PolicyStatement[] {
  return [
    new PolicyStatement({
      sid: 'NoOneButTheForwarderSends',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['sqs:SendMessage'],
      resources: [queueArn],
      conditions: { ArnNotEquals: { 'aws:PrincipalArn': forwarderRoleArn } },
    }),
  ];
}

/** EventBridge's service principal, which sends a rule's events to its SQS target. */
export const EVENTS_SERVICE_PRINCIPAL = 'events.amazonaws.com';
/** The account's root user (arn:<partition>:iam::<account>:root). */
const ACCOUNT_ROOT = { service: 'iam', region: '', resource: 'root', arnFormat: ArnFormat.NO_RESOURCE_NAME } as const;

/**
 * The events queue's Deny statements: only EventBridge, sending for the bus's rule, may put a
 * message there, besides the account's root user (left able to move the events dead letters back,
 * docs/operations.md). EventBridge sends to an SQS target as events.amazonaws.com with the rule as
 * aws:SourceArn ("Amazon SQS permissions", EventBridge User Guide,
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html#eb-sqs-permissions);
 * a role of the account carries neither key, and an absent key makes a `...Not...` operator
 * match: denied (IAM User Guide, "Condition operators").
 */
export function eventsQueuePolicy(queueArn: string, ruleArn: string, accountRootArn: string): PolicyStatement[] {
  const notRoot = { 'aws:PrincipalArn': accountRootArn };
  return [
    new PolicyStatement({
      sid: 'NoOneButEventBridgeSends',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['sqs:SendMessage'],
      resources: [queueArn],
      conditions: { StringNotEquals: { 'aws:PrincipalServiceName': EVENTS_SERVICE_PRINCIPAL }, ArnNotEquals: notRoot },
    }),
    new PolicyStatement({
      sid: 'NoRuleButTheBussSends',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['sqs:SendMessage'],
      resources: [queueArn],
      conditions: { ArnNotEquals: { 'aws:SourceArn': ruleArn, ...notRoot } },
    }),
  ];
}
