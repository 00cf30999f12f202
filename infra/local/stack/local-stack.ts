/**
 * The whole service on one machine: DynamoDB Local, the SNS emulator, a local
 * OAuth token endpoint, the gateway emulation invoking the operations' handlers, and an
 * EventBridge stand-in whose rule feeds the dispatcher handler, all on 127.0.0.1.
 * `npm start` (infra/local/start.ts) runs it with the ports and directories of the environment; the tests
 * run it in memory on free ports.
 *
 * The handlers run in this process and read their configuration when they are imported, so
 * the environment is set (local endpoints, dummy credentials, table name:
 * service-environment.ts) before they are. The API, with its token endpoint and the admin site,
 * is api.ts; SNS's dead letters and delivery records go to their consumers through
 * delivery-records.ts; the retry sweep runs on a timer (../schedules/retry-sweeps.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_EVENT_BUS_NAME } from '../../../shared/delivery/portal-event';
import { API_PREFIXES, ATTEMPTS_RECORDER, DEAD_LETTER_FORWARDER, DEAD_LETTER_RECORDER, DISPATCHER, RECOVERY_WORKER, RETRY_SWEEPER } from '../../../shared/operations';
import { LOCAL_ACCOUNT_ID, localDeadLettersByPortalQueueUrl, localDeliveryDeadLetterQueueArn, localRecoveryQueueUrl } from '../../aws/local-account';
import { ADMIN_PATH, OPENAPI_PATH } from '../admin/admin-site';
import { DEFAULT_CLIENTS_FILE, loadOAuthClients } from '../auth/clients';
import { generateSigningKey, loadOrCreateSigningKey } from '../auth/signing-key';
import { type DynamoDbLocal, startDynamoDbLocal } from '../dynamodb/dynamodb-local';
import { ensureSubscriptionTable } from '../dynamodb/subscription-table';
import { type EventBus, startEventBus } from '../events/event-bus';
import { EventQueue } from '../events/event-queue';
import { lambdaContext } from '../gateway/event';
import { loadAttemptsRecorder, loadDeadLetterForwarder, loadDeadLetterRecorder, loadDispatcher, loadOperationHandlers, loadRecoveryWorker, loadRetrySweeper } from '../operation-handlers';
import { type SqsStandIn, startSqsStandIn } from '../events/sqs-stand-in';
import { resumeRunningRecoveries } from '../schedules/recovery-resume';
import { startRetrySweeps, type RetrySweeps } from '../schedules/retry-sweeps';
import { type SnsEmulator, startSnsEmulator } from '../sns/emulator';
import { type Api, startApi } from './api';
import { deliveryRecords } from './delivery-records';
import type { LocalStack, LocalStackOptions } from './options';
import { ensurePortFree } from './ports';
import { deleteSharedTable, LOCAL_CREDENTIALS, useLocalServices } from './service-environment';

export type { LocalStack, LocalStackOptions, ServiceEndpoints } from './options';
export { DEFAULT_PORTS, type LocalStackPart, PortInUseError } from './ports';
export { DEFAULT_TABLE_NAME, LOCAL_CREDENTIALS } from './service-environment';

export const DEFAULT_DATA_DIR = '.data';
/** The `aud` of local tokens, the audience the gateway's authorizer accepts. */
export const DEFAULT_AUDIENCE = 'webhooks-api';
/** How long an event the dispatcher failed on waits before it is tried again (1 s: local time is compressed). */
const LOCAL_EVENT_RETRY_DELAY_MS = 1_000;
/**
 * Batches of events the dispatcher works on at once: five, as Lambda starts on a standard queue
 * ("Configuring scaling behavior for SQS event source mappings",
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html). Fifty messages in
 * flight let the fair queue tell a flooding portal (30 of them, over 10%: fair-selection.ts).
 */
const LOCAL_DISPATCH_CONCURRENCY = 5;
/** The dispatcher's timeout, as on AWS (infra/aws/portal-event-delivery.ts). */
const DISPATCHER_TIMEOUT_MS = 30_000;
/** The dead-letter recorder's, likewise. */
const RECORDER_TIMEOUT_MS = 30_000;
/** The dead-letter forwarder's, likewise. */
const FORWARDER_TIMEOUT_MS = 10_000;
/**
 * The recorder's batches and how many at a time, as its event source on AWS takes them
 * (infra/aws/portal-event-delivery.ts): while one batch is taken, the other's 30 are in flight, enough for the fair queue to tell a portal
 * flooding dead letters (30 of them, over 10%: fair-selection.ts).
 */
const RECORDER_BATCH_SIZE = 30;
const RECORDER_CONCURRENCY = 2;
/** The forwarder's batches at a time: a batch is one SendMessageBatch, a few milliseconds. */
const FORWARDER_CONCURRENCY = 2;
/** The queue of dead letters by portal's name: DEAD_LETTERS_BY_PORTAL_QUEUE_URL ends with it. */
const DEAD_LETTERS_BY_PORTAL_QUEUE_NAME = 'webhooks-dead-letters-by-portal';
/**
 * The retry sweep's, as on AWS in proportion to its period (infra/aws/dead-letter-retries.ts: 90 s
 * every minute), so runs overlap by as much and no run holds up the next: 3 s every 2 s, which
 * leaves a run 1 s of work (functions/retryDeadLetters.ts keeps 15 s back, but no less than 1 s).
 */
const SWEEPER_TIMEOUT_PER_PERIOD = 1.5;
/** How often the retry sweep runs: every minute on AWS; locally, where time is compressed, every 2 s. */
const LOCAL_RETRY_SWEEP_INTERVAL_MS = 2_000;
/**
 * The recovery worker's timeout: 2 minutes on AWS (infra/aws/message-recoveries.ts); locally 20 s, so
 * its slices last 10 s (functions/runRecoveries.ts keeps 10 s back) and a stop of `npm start`, which
 * lets the slice in hand finish, is not held up long.
 */
const RECOVERY_WORKER_TIMEOUT_MS = 20_000;
/** Recovery slices worked at once, as the worker's event source's maximum concurrency on AWS. */
const LOCAL_RECOVERY_CONCURRENCY = 2;
/** The recovery queue's name: RECOVERY_QUEUE_URL (localRecoveryQueueUrl) ends with it. */
const RECOVERY_QUEUE_NAME = 'webhooks-recoveries';

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const log = options.log ?? (() => undefined);
  const dataDir = options.inMemory ? undefined : resolve(options.dataDir ?? DEFAULT_DATA_DIR);
  if (options.sharedDynamoDb && dataDir) throw new Error('A shared DynamoDB Local holds the stack in memory only; it takes no data directory.');
  // Read first: a broken clients file should fail before anything is started.
  const clients = loadOAuthClients(options.clientsFile ?? DEFAULT_CLIENTS_FILE);
  const region = process.env.AWS_REGION?.trim() || 'us-east-1';

  const { dynamoDbPort, snsPort, eventsPort } = options;
  const eventBusName = options.eventBusName ?? (process.env.EVENT_BUS_NAME?.trim() || DEFAULT_EVENT_BUS_NAME);
  await Promise.all([
    ensurePortFree(options.port, 'api'),
    ensurePortFree(dynamoDbPort, 'dynamoDb'),
    ensurePortFree(snsPort, 'sns'),
    ensurePortFree(eventsPort, 'events'),
  ]);

  // What has started so far, stopped in reverse: the gateway first, so no request reaches the
  // emulators while they stop.
  let dynamoDb: Pick<DynamoDbLocal, 'endpoint' | 'port' | 'stop'> | undefined;
  let sns: SnsEmulator | undefined;
  let events: EventBus | undefined;
  let eventQueue: EventQueue | undefined;
  let deadLetterQueue: EventQueue | undefined;
  let deadLettersByPortal: EventQueue | undefined;
  let retrySweeps: RetrySweeps | undefined;
  let sqsStandIn: SqsStandIn | undefined;
  let recoveryQueue: EventQueue | undefined;
  let tableName: string | undefined;
  let api: Api | undefined;
  // What SNS records of its deliveries, for the dead-letter recorder and the attempts consumer.
  const records = deliveryRecords({
    attemptsContext: () => lambdaContext(ATTEMPTS_RECORDER.handler, region, RECORDER_TIMEOUT_MS, 256, randomUUID()),
    log,
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.all([api?.gateway.close(), events?.close(), retrySweeps?.close()]);
      await Promise.all([eventQueue?.close(), recoveryQueue?.close()]);
      // SNS first: its deliveries cut short are kept, and none is given up on into a closed queue.
      await sns?.close();
      await records.handedOver();
      // The forwarder's batch in hand goes on to the recorder's queue, which then stops in turn.
      await deadLetterQueue?.close();
      await deadLettersByPortal?.close();
      await sqsStandIn?.close();
      await dynamoDb?.stop();
      if (options.sharedDynamoDb && tableName) await deleteSharedTable(options.sharedDynamoDb.endpoint, region, tableName);
    })();
    return stopping;
  };

  try {
    if (dataDir) mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
    const [dynamoDbStart, snsStart] = await Promise.allSettled([
      options.sharedDynamoDb
        ? Promise.resolve({ ...options.sharedDynamoDb, stop: async () => undefined })
        : startDynamoDbLocal({ port: dynamoDbPort, dataDir: dataDir && join(dataDir, 'dynamodb') }),
      startSnsEmulator({
        port: snsPort,
        region,
        stateFile: dataDir && join(dataDir, 'sns.json'),
        signingDir: dataDir && join(dataDir, 'sns'),
        ...options.snsDelivery,
        onDeadLetter: records.onDeadLetter,
        onDeliveryStatus: records.onDeliveryStatus,
        log: (line) => log(`[sns] ${line}`),
      }),
    ]);
    if (dynamoDbStart.status === 'fulfilled') dynamoDb = dynamoDbStart.value;
    if (snsStart.status === 'fulfilled') sns = snsStart.value;
    if (dynamoDbStart.status === 'rejected') throw dynamoDbStart.reason;
    if (snsStart.status === 'rejected') throw snsStart.reason;
    const services = { dynamoDb: dynamoDb!, sns: sns! };

    const endpoints = { dynamoDb: services.dynamoDb.endpoint, sns: services.sns.endpoint };
    tableName = useLocalServices(region, (await options.handlerEndpoints?.(endpoints)) ?? endpoints);
    // The queues the functions send to (the recovery jobs', the dead letters by portal), set before the handlers read their URLs.
    sqsStandIn = await startSqsStandIn({ accountId: LOCAL_ACCOUNT_ID, log: (line) => log(`[sqs] ${line}`) });
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SQS: sqsStandIn.endpoint,
      RECOVERY_QUEUE_URL: localRecoveryQueueUrl(region),
      DEAD_LETTERS_BY_PORTAL_QUEUE_URL: localDeadLettersByPortalQueueUrl(region),
    });
    const tableClient = new DynamoDBClient({ region, endpoint: endpoints.dynamoDb, credentials: LOCAL_CREDENTIALS });
    try {
      await ensureSubscriptionTable(tableClient, tableName);
    } finally {
      tableClient.destroy();
    }
    const handlers = await loadOperationHandlers();
    const dispatcher = await loadDispatcher();
    eventQueue = new EventQueue({
      queueArn: `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:webhooks-portal-events`,
      region,
      handler: dispatcher,
      maxConcurrency: LOCAL_DISPATCH_CONCURRENCY,
      context: () => lambdaContext(DISPATCHER.handler, region, DISPATCHER_TIMEOUT_MS, 256, randomUUID()),
      visibilityDelayMs: options.eventRetryDelayMs ?? LOCAL_EVENT_RETRY_DELAY_MS,
      stateFile: dataDir && join(dataDir, 'event-queue.json'),
      log: (line) => log(`[events] ${line}`),
    });
    // What SNS gives up on goes to the delivery dead-letter queue, with no group; the forwarder
    // sends each on to the recorder's fair queue with its portal as group, as on AWS.
    deadLettersByPortal = new EventQueue({
      queueArn: `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${DEAD_LETTERS_BY_PORTAL_QUEUE_NAME}`,
      region,
      handler: await loadDeadLetterRecorder(),
      batchSize: RECORDER_BATCH_SIZE,
      maxConcurrency: RECORDER_CONCURRENCY,
      context: () => lambdaContext(DEAD_LETTER_RECORDER.handler, region, RECORDER_TIMEOUT_MS, 256, randomUUID()),
      visibilityDelayMs: options.eventRetryDelayMs ?? LOCAL_EVENT_RETRY_DELAY_MS,
      stateFile: dataDir && join(dataDir, 'dead-letters-by-portal-queue.json'),
      // As on AWS, where neither queue of dead letters has a redrive of its own: a dead letter the
      // recorder fails on stays, tried again, until it is kept (the operator's age alarm watches it).
      maxReceiveCount: Number.POSITIVE_INFINITY,
      what: 'dead letters by portal',
      log: (line) => log(`[dead letters] ${line}`),
    });
    sqsStandIn.route(DEAD_LETTERS_BY_PORTAL_QUEUE_NAME, deadLettersByPortal);
    deadLetterQueue = new EventQueue({
      queueArn: localDeliveryDeadLetterQueueArn(region),
      region,
      handler: await loadDeadLetterForwarder(),
      maxConcurrency: FORWARDER_CONCURRENCY,
      context: () => lambdaContext(DEAD_LETTER_FORWARDER.handler, region, FORWARDER_TIMEOUT_MS, 256, randomUUID()),
      visibilityDelayMs: options.eventRetryDelayMs ?? LOCAL_EVENT_RETRY_DELAY_MS,
      stateFile: dataDir && join(dataDir, 'dead-letter-queue.json'),
      maxReceiveCount: Number.POSITIVE_INFINITY,
      what: 'dead letters',
      senderId: 'AIDASNSDEADLETTERS',
      log: (line) => log(`[dead letters] ${line}`),
    });
    records.sendDeadLettersTo(deadLetterQueue);
    recoveryQueue = new EventQueue({
      queueArn: `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${RECOVERY_QUEUE_NAME}`,
      region,
      handler: await loadRecoveryWorker(),
      batchSize: 1,
      maxConcurrency: LOCAL_RECOVERY_CONCURRENCY,
      context: () => lambdaContext(RECOVERY_WORKER.handler, region, RECOVERY_WORKER_TIMEOUT_MS, 256, randomUUID()),
      visibilityDelayMs: options.eventRetryDelayMs ?? LOCAL_EVENT_RETRY_DELAY_MS,
      stateFile: dataDir && join(dataDir, 'recovery-queue.json'),
      // The worker gives a recovery up itself after failed slices in a row (shared/recoveries/worker.ts).
      maxReceiveCount: Number.POSITIVE_INFINITY,
      what: 'recovery jobs',
      log: (line) => log(`[recoveries] ${line}`),
    });
    sqsStandIn.route(RECOVERY_QUEUE_NAME, recoveryQueue);
    await resumeRunningRecoveries(recoveryQueue, (line) => log(`[recoveries] ${line}`));
    records.sendStatusesTo(await loadAttemptsRecorder());
    const sweepEveryMs = options.retrySweepIntervalMs ?? LOCAL_RETRY_SWEEP_INTERVAL_MS;
    retrySweeps = startRetrySweeps({
      handler: await loadRetrySweeper(),
      context: () => lambdaContext(RETRY_SWEEPER.handler, region, SWEEPER_TIMEOUT_PER_PERIOD * sweepEveryMs, 256, randomUUID()),
      intervalMs: sweepEveryMs,
      log: (line) => log(`[retries] ${line}`),
    });
    events = await startEventBus({
      port: eventsPort,
      busName: eventBusName,
      region,
      accountId: LOCAL_ACCOUNT_ID,
      queue: eventQueue,
      log: (line) => log(`[events] ${line}`),
    });

    const audience = options.audience ?? DEFAULT_AUDIENCE;
    const signingKey =
      options.signingKey ??
      (dataDir ? await loadOrCreateSigningKey(join(dataDir, 'oauth-signing-key.json')) : await generateSigningKey());
    api = await startApi({
      port: options.port,
      audience,
      signingKey,
      clients,
      handlers,
      region,
      log,
      tokenLifetimeSeconds: options.tokenLifetimeSeconds,
      adminFrameAncestors: options.adminFrameAncestors,
    });
    const { gateway, oauth, issuer } = api;

    return {
      apiUrl: gateway.url,
      apiBaseUrls: API_PREFIXES.map((prefix) => gateway.url + prefix),
      tokenUrl: oauth.tokenUrl,
      jwksUrl: oauth.jwksUrl,
      openApiUrl: gateway.url + OPENAPI_PATH,
      adminUrl: gateway.url + ADMIN_PATH,
      issuer,
      audience,
      clients,
      tableName,
      region,
      ...services,
      events,
      eventBusName,
      eventQueue,
      deadLetterQueue,
      deadLettersByPortal,
      dataDir,
      issueToken: (clientId, scopes) => {
        const client = clients.find((candidate) => candidate.clientId === clientId);
        if (!client) throw new Error(`No OAuth client ${clientId}`);
        return oauth.issueToken(client, scopes);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
