/**
 * What the functions and floors call during a run: DynamoDB Local, the SNS emulator and the SQS
 * stand-in on free ports of 127.0.0.1, the subscription table, and a counting proxy in front of
 * each (for the counting pass only, never for timings).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb/dynamodb-local';
import { ensureSubscriptionTable } from '../../infra/local/dynamodb/subscription-table';
import type { EventQueue } from '../../infra/local/events/event-queue';
import { startSqsStandIn, type SqsStandIn } from '../../infra/local/events/sqs-stand-in';
import { startSnsEmulator, type SnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import { startCallCounter, type CallCounter } from './call-counter';

/** The environment every function and floor runs with, the services' endpoints aside. */
export const FUNCTION_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  TABLE_NAME: 'webhook-subscriptions-bench',
  TOPIC_PREFIX: 'webhooks-bench',
  // Raised for the run: create and the scaling rows put thousands of records in a portal.
  MAX_SUBSCRIPTIONS_PER_PORTAL: '100000',
  PORTAL_CLAIM: 'portal_id',
  // Raised for the run: each row calls its function thousands of times from one portal. Every
  // call still takes its token (one UpdateItem, the cost a person's call pays), and confirm
  // still takes its turn (one UpdateItem): the run measures the checks, never their refusal.
  PORTAL_SEND_BURST: '100000',
  PORTAL_SEND_RATE_PER_MINUTE: '600000',
  PORTAL_CHANGE_BURST: '100000',
  PORTAL_CHANGE_RATE_PER_MINUTE: '600000',
  PORTAL_READ_BURST: '100000',
  PORTAL_READ_RATE_PER_MINUTE: '600000',
  CONFIRMATION_REQUESTS_PER_DAY: '1000000',
  CONFIRMATION_REQUEST_INTERVAL_SECONDS: '0',
  DELIVERY_DEAD_LETTER_QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:webhooks-bench-dead-letters',
  // The principal the SNS emulator takes the access key id above for: the topics' publisher.
  TOPIC_PUBLISHER_ARNS: 'arn:aws:iam::000000000000:role/bench',
  TOPIC_MANAGER_ARNS: 'arn:aws:iam::000000000000:role/bench',
  // As deployed (service-function.ts): the functions log at INFO; no NODE_OPTIONS, as neither
  // they nor the CDK's default build set any.
  POWERTOOLS_LOG_LEVEL: 'INFO',
};

const BENCH_RECOVERY_QUEUE = 'webhooks-bench-recoveries';
/** The forwarder's queue: it takes every message and keeps none (no recorder consumes it here). */
const BENCH_DEAD_LETTERS_BY_PORTAL_QUEUE = 'webhooks-bench-dead-letters-by-portal';

export interface CallCounters {
  dynamoDb: CallCounter;
  sns: CallCounter;
  sqs: CallCounter;
}

export interface Services {
  dynamoDb: DynamoDbLocal;
  sns: SnsEmulator;
  /** FUNCTION_ENV with the services' endpoints. */
  env: Record<string, string>;
  counters: CallCounters;
  /** For the setup this process does itself (fixtures, page counts). */
  documentClient: DynamoDBDocumentClient;
}

export interface ServiceSet {
  start(): Promise<Services>;
  /** Stops whatever has started, also when starting failed halfway or was interrupted. */
  stop(): Promise<void>;
}

/**
 * `quick`: a smoke run, whose figures mean nothing, starts DynamoDB Local with the development
 * server's JVM (cheaper on a machine running the suites); a full run keeps the JVM's defaults, with
 * which its verdicts were established (docs/decisions/dynamodb-local-start.md).
 */
export function benchServices({ quick }: { quick: boolean }): ServiceSet {
  const started: { dynamoDb?: DynamoDbLocal; sns?: SnsEmulator; sqs?: SqsStandIn; client?: DynamoDBClient; counters?: Partial<CallCounters> } = {};
  return {
    async start() {
      const [dynamoDb, sns] = await Promise.all([startDynamoDbLocal({ devServerJvm: quick }), startSnsEmulator({ deliveryRetries: 0 })]);
      Object.assign(started, { dynamoDb, sns });
      // The fixtures follow the emulator's https:// SubscribeURLs (test/support/local-authority.ts).
      trustAuthorityOf(sns);
      // Recover's queue (SendMessage only) and the forwarder's (SendMessageBatch); nothing consumes
      // them here: the recovery row runs the worker's slices itself.
      const sqs = (started.sqs = await startSqsStandIn({ accountId: '000000000000' }));
      for (const queue of [BENCH_RECOVERY_QUEUE, BENCH_DEAD_LETTERS_BY_PORTAL_QUEUE]) sqs.route(queue, { send: () => true } as unknown as EventQueue);
      const env = {
        ...FUNCTION_ENV,
        AWS_ENDPOINT_URL_DYNAMODB: dynamoDb.endpoint,
        AWS_ENDPOINT_URL_SNS: sns.endpoint,
        AWS_ENDPOINT_URL_SQS: sqs.endpoint,
        RECOVERY_QUEUE_URL: sqs.queueUrl(BENCH_RECOVERY_QUEUE),
        DEAD_LETTERS_BY_PORTAL_QUEUE_URL: sqs.queueUrl(BENCH_DEAD_LETTERS_BY_PORTAL_QUEUE),
      };
      // The in-process setup (fixtures.ts) runs the handlers' sources with the same configuration.
      Object.assign(process.env, env, { POWERTOOLS_LOG_LEVEL: 'SILENT', NODE_OPTIONS: '' });
      started.client = new DynamoDBClient({});
      await ensureSubscriptionTable(started.client, FUNCTION_ENV.TABLE_NAME);
      const documentClient = DynamoDBDocumentClient.from(started.client);
      const counters: Partial<CallCounters> = (started.counters = {});
      [counters.dynamoDb, counters.sns, counters.sqs] = await Promise.all([startCallCounter(dynamoDb.endpoint), startCallCounter(sns.endpoint), startCallCounter(sqs.endpoint)]);
      return { dynamoDb, sns, env, counters: counters as CallCounters, documentClient };
    },
    async stop() {
      // The setup's client holds sockets open.
      started.client?.destroy();
      const { counters } = started;
      await Promise.allSettled([counters?.dynamoDb?.close(), counters?.sns?.close(), counters?.sqs?.close(), started.sns?.close(), started.sqs?.close(), started.dynamoDb?.stop()]);
    },
  };
}
