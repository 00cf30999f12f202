/**
 * Recoveries on AWS (docs/decisions/recoveries-in-the-background.md): the queue of recovery jobs, a
 * fair queue keyed by portal (POST /recover and the worker send with the portal as MessageGroupId),
 * and the worker that consumes it a job at a time, a slice of at most a minute each, with a maximum
 * concurrency so recoveries never take more than their share of Lambda's concurrency. Its role may
 * read a recovery, its subscription and the message log, write only a recovery's progress and state
 * in the portals' partitions and its running entry's removal, log the messages it publishes, publish
 * to the service's topics and queue its next slices.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RECOVERY_ATTRIBUTES } from '../../shared/data/recoveries';
import { TABLE_KEYS } from '../../shared/data/table';
import { RECOVERY_WORKER } from '../../shared/operations';
import { allowMessageLogWrites } from './message-log-permissions';
import { PORTAL_PARTITIONS_ONLY, RECOVERY_RUNNING_WRITES, RUNNING_RECOVERIES_ONLY } from './operation-permissions';
import { ServiceFunction } from './service-function';

export interface MessageRecoveriesProps {
  readonly table: ITable;
  readonly topicArnPattern: string;
  /** The service configuration every function reads (MESSAGE_KEEP_DAYS with it). */
  readonly environment: Readonly<Record<string, string>>;
  readonly recoverySendsPerSecond: number;
  readonly logRetention: RetentionDays;
}

/** A slice sends for at most a minute (functions/runRecoveries.ts) and keeps 10 s for its last writes. */
export const RECOVERY_WORKER_TIMEOUT = Duration.seconds(120);
/** Slices worked at once, of as many portals (one recovery of a portal at a time): docs/scale.md, "Recoveries". */
export const RECOVERY_WORKER_CONCURRENCY = 5;
/** A job the worker failed on this often goes to the dead-letter queue; the worker gives a recovery up after 5 failed slices itself. */
const RECOVERY_MAX_RECEIVE_COUNT = 10;

/** The worker's reads: a recovery and its subscription (GetItem), the window of the log (Query), the next batch's bodies (BatchGetItem). */
export const RECOVERY_WORKER_READS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'] as const;
/** The worker's writes of a recovery: its lease, cursor, counts and state (UpdateItem, alone or in the transaction that ends it). */
export const RECOVERY_WORKER_WRITES = { actions: ['dynamodb:UpdateItem'], attributes: [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...RECOVERY_ATTRIBUTES] } as const;
/** The worker's use of the running recoveries' partition: its portal's oldest (Query), an ended one's entry removed (DeleteItem). */
export const RECOVERY_WORKER_RUNNING = { query: ['dynamodb:Query'], actions: ['dynamodb:DeleteItem'], attributes: [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey] } as const;

export class MessageRecoveries extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;

  constructor(scope: Construct, id: string, props: MessageRecoveriesProps) {
    super(scope, id);
    const queueDefaults = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true } as const;
    this.deadLetterQueue = new Queue(this, 'RecoveryJobsDeadLetters', { ...queueDefaults, retentionPeriod: Duration.days(14), removalPolicy: RemovalPolicy.RETAIN });
    this.queue = new Queue(this, 'RecoveryJobs', {
      ...queueDefaults,
      // Six times the worker's timeout, AWS's advice for a Lambda event source.
      visibilityTimeout: Duration.seconds(RECOVERY_WORKER_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: RECOVERY_MAX_RECEIVE_COUNT },
    });
    this.worker = new ServiceFunction(this, RECOVERY_WORKER.handler, {
      entry: RECOVERY_WORKER.entry,
      name: RECOVERY_WORKER.handler,
      description: 'Sends the events of a recovery (POST /recover) again, paced, a slice at a time.',
      timeout: RECOVERY_WORKER_TIMEOUT,
      environment: { ...props.environment, RECOVERY_QUEUE_URL: this.queue.queueUrl, RECOVERY_SENDS_PER_SECOND: String(props.recoverySendsPerSecond) },
      logRetention: props.logRetention,
    });
    // One job an invocation: a job is a slice of up to a minute. Maximum concurrency: "Configuring
    // maximum concurrency for Amazon SQS event sources",
    // https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html#events-sqs-max-concurrency
    this.worker.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: RECOVERY_WORKER_CONCURRENCY }));
    const { tableArn } = props.table;
    this.worker.allow(RECOVERY_WORKER_READS, [tableArn], PORTAL_PARTITIONS_ONLY);
    this.worker.allow(RECOVERY_WORKER_WRITES.actions, [tableArn], {
      ...PORTAL_PARTITIONS_ONLY,
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...RECOVERY_WORKER_WRITES.attributes] },
    });
    this.worker.allow(RECOVERY_WORKER_RUNNING.query, [tableArn], RUNNING_RECOVERIES_ONLY);
    this.worker.allow(RECOVERY_WORKER_RUNNING.actions, [tableArn], {
      'ForAllValues:StringEquals': { ...RUNNING_RECOVERIES_ONLY['ForAllValues:StringEquals'], 'dynamodb:Attributes': [...RECOVERY_WORKER_RUNNING.attributes] },
    });
    this.worker.allow(['sns:Publish'], [props.topicArnPattern]);
    allowMessageLogWrites(this.worker, tableArn);
    // Its next slices, and a job waiting its turn.
    this.worker.allow(['sqs:SendMessage'], [this.queue.queueArn]);
    this.table = props.table;
  }

  private readonly table: ITable;

  /** What POST /recover needs to start one: the queue's URL, its SendMessage, the running entry's put and removal. */
  startedBy(recover: ServiceFunction): void {
    recover.function.addEnvironment('RECOVERY_QUEUE_URL', this.queue.queueUrl);
    recover.allow(['sqs:SendMessage'], [this.queue.queueArn]);
    recover.allow(RECOVERY_RUNNING_WRITES.actions, [this.table.tableArn], {
      'ForAllValues:StringEquals': { ...RUNNING_RECOVERIES_ONLY['ForAllValues:StringEquals'], 'dynamodb:Attributes': [...RECOVERY_RUNNING_WRITES.attributes] },
    });
  }
}
