/**
 * Delivery on AWS: portal events come in on an EventBridge bus; a rule puts
 * those of source `portal.events` on an SQS queue (with a dead-letter queue of its own); the
 * dispatcher consumes it in batches and publishes each event to the topics of the matching
 * subscriptions. Messages SNS cannot deliver after its retries go to the delivery dead-letter
 * queue, named in every SNS subscription's redrive policy; the recorder consumes it and keeps
 * each dead letter for its subscription, where the tenant sees it and sends it again.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PORTAL_EVENT_SOURCE } from '../../shared/delivery/portal-event';
import { DELIVERY_PARTITIONS_PATTERN } from '../../shared/delivery/progress';
import { DEAD_LETTER_RECORDER, DISPATCHER } from '../../shared/operations';
import { IDEMPOTENCY_PARTITIONS_PATTERN } from '../../shared/subscriptions/table';
import { RECORDER_READS, RECORDER_WRITES } from './recorder-permissions';
import { ServiceFunction } from './service-function';

export interface PortalEventDeliveryProps {
  readonly eventBusName: string;
  readonly table: ITable;
  /** ARN pattern of the service's topics (`<prefix>-*`), which their subscriptions' ARNs match too. */
  readonly topicArnPattern: string;
  /** The service configuration every function reads. */
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
}

/** Publishing a batch of 10 events takes 10 Queries and up to 100 Publish calls of some milliseconds each. */
const DISPATCHER_TIMEOUT = Duration.seconds(30);
/** A batch of 10 dead letters: one read per subscription, then one transaction each. */
const RECORDER_TIMEOUT = Duration.seconds(30);
/** Tries of an event before it is set aside in the events dead-letter queue. */
export const EVENT_MAX_RECEIVE_COUNT = 5;
/** Dead letters are kept as long as SQS allows, for an operator to look at and redrive. */
const DEAD_LETTER_RETENTION = Duration.days(14);

export class PortalEventDelivery extends Construct {
  readonly bus: EventBus;
  readonly eventsQueue: Queue;
  readonly eventsDeadLetterQueue: Queue;
  readonly deliveryDeadLetterQueue: Queue;
  readonly dispatcher: ServiceFunction;
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
    new Rule(this, 'PortalEventsToQueue', {
      eventBus: this.bus,
      description: `Portal events (source ${PORTAL_EVENT_SOURCE}) to the dispatcher's queue.`,
      eventPattern: { source: [PORTAL_EVENT_SOURCE] },
      targets: [new SqsQueue(this.eventsQueue, { deadLetterQueue: this.eventsDeadLetterQueue })],
    });

    this.deliveryDeadLetterQueue = new Queue(this, 'DeliveryDeadLetters', {
      ...queueDefaults,
      // Six times the recorder's timeout, as for the events queue.
      visibilityTimeout: Duration.seconds(RECORDER_TIMEOUT.toSeconds() * 6),
      retentionPeriod: DEAD_LETTER_RETENTION,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.deliveryDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is a dead-letter queue: every SNS subscription's redrive policy names it (set at run time by " +
        'the create function, so CloudFormation cannot see it).',
    });
    // SNS sends here for the service's own topics only.
    this.deliveryDeadLetterQueue.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('sns.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.deliveryDeadLetterQueue.queueArn],
        conditions: { ArnLike: { 'aws:SourceArn': props.topicArnPattern } },
      }),
    );

    this.dispatcher = new ServiceFunction(this, DISPATCHER.handler, {
      entry: DISPATCHER.entry,
      name: DISPATCHER.handler,
      description: 'Publishes each portal event to the topics of the subscriptions that chose it.',
      timeout: DISPATCHER_TIMEOUT,
      environment: props.environment,
      logRetention: props.logRetention,
    });
    this.dispatcher.allow(['dynamodb:Query'], [props.table.tableArn]);
    // Which recipients an event reached (shared/delivery/progress.ts), in those records' partitions only.
    this.dispatcher.allow(['dynamodb:GetItem', 'dynamodb:UpdateItem'], [props.table.tableArn], {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [DELIVERY_PARTITIONS_PATTERN] },
    });
    this.dispatcher.allow(['sns:Publish'], [props.topicArnPattern]);
    // Grants the function receive/delete/change-visibility on this queue only.
    this.dispatcher.function.addEventSource(
      new SqsEventSource(this.eventsQueue, { batchSize: 10, reportBatchItemFailures: true }),
    );
  
    this.recorder = new ServiceFunction(this, DEAD_LETTER_RECORDER.handler, {
      entry: DEAD_LETTER_RECORDER.entry,
      name: DEAD_LETTER_RECORDER.handler,
      description: 'Keeps each message SNS could not deliver for its subscription, in the portal that owns it.',
      timeout: RECORDER_TIMEOUT,
      environment: props.environment,
      logRetention: props.logRetention,
    });
    // The portals' partitions only, never the idempotency or delivery records'.
    const portalsOnly = { 'dynamodb:LeadingKeys': [IDEMPOTENCY_PARTITIONS_PATTERN, DELIVERY_PARTITIONS_PATTERN] };
    this.recorder.allow(RECORDER_READS.actions, [props.table.tableArn], { 'ForAllValues:StringNotLike': portalsOnly });
    for (const { actions, attributes } of RECORDER_WRITES) {
      this.recorder.allow(actions, [props.table.tableArn], {
        'ForAllValues:StringNotLike': portalsOnly,
        'ForAllValues:StringLike': { 'dynamodb:Attributes': attributes },
      });
    }
    // A batch's records of one subscription are written one after the other; two batches at a
    // time (the least Lambda allows) keep concurrent writes to one record rare.
    this.recorder.function.addEventSource(
      new SqsEventSource(this.deliveryDeadLetterQueue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 2 }),
    );
  }
}
