/**
 * The whole service on one machine: DynamoDB Local, the SNS emulator, a local
 * OAuth token endpoint, the gateway emulation invoking the operations' handlers, and an
 * EventBridge stand-in whose rule feeds the dispatcher handler, all on 127.0.0.1.
 * `npm start` (start.ts) runs it with the ports and directories of the environment; the tests
 * run it in memory on free ports.
 *
 * The handlers run in this process and read their configuration when they are imported, so
 * the environment is set (local endpoints, dummy credentials, table name) before they are.
 */
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { portalClaim as portalClaimSetting } from '../../shared/settings';
import { DEFAULT_EVENT_BUS_NAME } from '../../shared/delivery/portal-event';
import { API_PREFIXES, ATTEMPTS_RECORDER, DEAD_LETTER_RECORDER, DISPATCHER, RETRY_SWEEPER } from '../../shared/operations';
import { logSubscriptionEventOf } from '../../shared/attempts/delivery-status-record';
import { ADMIN_PATH, adminSiteRoutes, OPENAPI_PATH } from './admin-site';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb/dynamodb-local';
import { type EventBus, startEventBus } from './events/event-bus';
import { EventQueue } from './events/event-queue';
import { freePort } from './free-port';
import { type Gateway, startGateway } from './gateway/gateway';
import { lambdaContext } from './gateway/event';
import {
  LOCAL_ACCOUNT_ID,
  LOCAL_DELIVERY_STATUS_ROLE_ARN,
  LOCAL_SERVICE_ACCESS_KEY_ID,
  LOCAL_SERVICE_ROLE_ARN,
  localDeliveryDeadLetterQueueArn,
} from '../aws/local-account';
import { createJwtAuthorizer } from './gateway/jwt-authorizer';
import { DEFAULT_CLIENTS_FILE, loadOAuthClients } from './auth/clients';
import { createOAuthServer } from './auth/token-endpoint';
import { loadAttemptsRecorder, loadDeadLetterRecorder, loadDispatcher, loadOperationHandlers, loadRetrySweeper, type LogSubscriptionHandler } from './operation-handlers';
import { startRetrySweeps, type RetrySweeps } from './retry-sweeps';
import { generateSigningKey, keySetOf, loadOrCreateSigningKey } from './auth/signing-key';
import {
  type DeadLetter,
  deadLetterQueueMessageOf,
  type DeliveryStatusLogEvent,
  type SnsEmulator,
  startSnsEmulator,
} from './sns/emulator';
import { ensureSubscriptionTable } from './dynamodb/subscription-table';
import type { LocalStack, LocalStackOptions } from './local-stack-options';
import { ensurePortFree, HOST, PortInUseError } from './local-ports';

export type { LocalStack, LocalStackOptions, ServiceEndpoints } from './local-stack-options';
export { DEFAULT_PORTS, type LocalStackPart, PortInUseError } from './local-ports';

export const DEFAULT_DATA_DIR = '.data';
export const DEFAULT_TABLE_NAME = 'webhook-subscriptions';
/** The `aud` of local tokens, the audience the gateway's authorizer accepts. */
export const DEFAULT_AUDIENCE = 'webhooks-api';
/** How long an event the dispatcher failed on waits before it is tried again (1 s: local time is compressed). */
const LOCAL_EVENT_RETRY_DELAY_MS = 1_000;
/** The dispatcher's timeout, as on AWS (infra/aws/portal-event-delivery.ts). */
const DISPATCHER_TIMEOUT_MS = 30_000;
/** The dead-letter recorder's, likewise. */
const RECORDER_TIMEOUT_MS = 30_000;
/** The retry sweep's, likewise (infra/aws/dead-letter-retries.ts). */
const SWEEPER_TIMEOUT_MS = 60_000;
/** How often the retry sweep runs: every minute on AWS; locally, where time is compressed, every 2 s. */
const LOCAL_RETRY_SWEEP_INTERVAL_MS = 2_000;
/**
 * Credentials the handlers sign with locally; the emulators accept any, and the SNS emulator
 * takes the access key id for the principal (the topics' access policy lets only this one publish).
 */
export const LOCAL_CREDENTIALS = { accessKeyId: LOCAL_SERVICE_ACCESS_KEY_ID, secretAccessKey: 'local' } as const;

/** How many free ports the API tries when each found free is taken before it is bound. */
const FREE_PORT_ATTEMPTS = 3;

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
  let gateway: Gateway | undefined;
  let events: EventBus | undefined;
  let eventQueue: EventQueue | undefined;
  let deadLetterQueue: EventQueue | undefined;
  let retrySweeps: RetrySweeps | undefined;
  let tableName: string | undefined;
  // SNS may give up on a delivery (one resumed from the last stop) before the recorder is loaded.
  const deadLettersBeforeRecorder: DeadLetter[] = [];
  const toDeadLetterQueue = (letter: DeadLetter) => {
    if (!deadLetterQueue) {
      deadLettersBeforeRecorder.push(letter);
      return;
    }
    const { body, attributes } = deadLetterQueueMessageOf(letter);
    if (!deadLetterQueue.send(body, attributes)) log(`[dead letters] queue full or closed: ${letter.messageId} not recorded`);
  };
  // SNS's delivery status records, handed to the attempts consumer as CloudWatch Logs hands them to
  // it on AWS: a subscription event of the record's log group, one after the other.
  let attemptsRecorder: LogSubscriptionHandler | undefined;
  const statusesBeforeRecorder: DeliveryStatusLogEvent[] = [];
  let attemptsHandedOver: Promise<void> = Promise.resolve();
  // Records that arrive while the consumer works wait and go together, one subscription event per
  // log group, as CloudWatch Logs batches them: a burst of deliveries is not a burst of invocations.
  const waitingStatuses: DeliveryStatusLogEvent[] = [];
  const handOverWaiting = async (recorder: LogSubscriptionHandler) => {
    const byGroup = new Map<string, DeliveryStatusLogEvent[]>();
    for (const logEvent of waitingStatuses.splice(0)) byGroup.set(logEvent.logGroup, [...(byGroup.get(logEvent.logGroup) ?? []), logEvent]);
    for (const [logGroup, logEvents] of byGroup) {
      try {
        const event = logSubscriptionEventOf(LOCAL_ACCOUNT_ID, logGroup, logEvents[0]!.logStream, logEvents.map((logEvent) => logEvent.event));
        await recorder(event, lambdaContext(ATTEMPTS_RECORDER.handler, region, RECORDER_TIMEOUT_MS, 256, randomUUID()));
      } catch (error) {
        log(`[attempts] ${logEvents.length} delivery status record(s) of ${logGroup} not kept: ${String(error)}`);
      }
    }
  };
  const toAttemptsRecorder = (logEvent: DeliveryStatusLogEvent) => {
    if (!attemptsRecorder) {
      statusesBeforeRecorder.push(logEvent);
      return;
    }
    const recorder = attemptsRecorder;
    waitingStatuses.push(logEvent);
    if (waitingStatuses.length === 1) attemptsHandedOver = attemptsHandedOver.then(() => handOverWaiting(recorder));
  };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.all([gateway?.close(), events?.close(), retrySweeps?.close()]);
      await eventQueue?.close();
      // SNS first: its deliveries cut short are kept, and none is given up on into a closed queue.
      await sns?.close();
      await attemptsHandedOver;
      await deadLetterQueue?.close();
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
        onDeadLetter: toDeadLetterQueue,
        onDeliveryStatus: toAttemptsRecorder,
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
      context: () => lambdaContext(DISPATCHER.handler, region, DISPATCHER_TIMEOUT_MS, 256, randomUUID()),
      visibilityDelayMs: options.eventRetryDelayMs ?? LOCAL_EVENT_RETRY_DELAY_MS,
      stateFile: dataDir && join(dataDir, 'event-queue.json'),
      log: (line) => log(`[events] ${line}`),
    });
    deadLetterQueue = new EventQueue({
      queueArn: localDeliveryDeadLetterQueueArn(region),
      region,
      handler: await loadDeadLetterRecorder(),
      context: () => lambdaContext(DEAD_LETTER_RECORDER.handler, region, RECORDER_TIMEOUT_MS, 256, randomUUID()),
      visibilityDelayMs: options.eventRetryDelayMs ?? LOCAL_EVENT_RETRY_DELAY_MS,
      stateFile: dataDir && join(dataDir, 'dead-letter-queue.json'),
      // As on AWS, where the delivery dead-letter queue has no redrive of its own: a dead letter the
      // recorder fails on stays, tried again, until it is kept (the operator's age alarm watches it).
      maxReceiveCount: Number.POSITIVE_INFINITY,
      what: 'dead letters',
      senderId: 'AIDASNSDEADLETTERS',
      log: (line) => log(`[dead letters] ${line}`),
    });
    for (const letter of deadLettersBeforeRecorder.splice(0)) toDeadLetterQueue(letter);
    attemptsRecorder = await loadAttemptsRecorder();
    for (const logEvent of statusesBeforeRecorder.splice(0)) toAttemptsRecorder(logEvent);
    retrySweeps = startRetrySweeps({
      handler: await loadRetrySweeper(),
      context: () => lambdaContext(RETRY_SWEEPER.handler, region, SWEEPER_TIMEOUT_MS, 256, randomUUID()),
      intervalMs: options.retrySweepIntervalMs ?? LOCAL_RETRY_SWEEP_INTERVAL_MS,
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
    // Imported once the handlers' environment is set: the request schemas it renders read it.
    const { buildOpenApiDocument } = await import('../../shared/contract/openapi-document');
    const { config } = await import('../../shared/environment');
    // The API's port is fixed before the gateway starts: the issuer URL, which tokens carry,
    // holds it. A free one (port 0) is chosen only now, just before it is bound, and chosen
    // again should another process take it in between.
    let issuer: string;
    let oauth: ReturnType<typeof createOAuthServer>;
    for (let attempt = 1; ; attempt++) {
      const apiPort = options.port === 0 ? await freePort() : options.port;
      issuer = `http://${HOST}:${apiPort}`;
      oauth = createOAuthServer({
        issuer,
        audience,
        portalClaim: process.env.PORTAL_CLAIM?.trim() || portalClaimSetting.default!,
        signingKey,
        clients,
      });
      const openApiDocument = buildOpenApiDocument({ eventKinds: config.eventKinds, tokenUrl: oauth.tokenUrl, serverUrl: issuer });
      try {
        gateway = await startGateway({
          port: apiPort,
          host: HOST,
          handlers,
          authorize: createJwtAuthorizer({ issuer, audience: [audience], keySet: keySetOf(signingKey) }),
          region,
          publicRoutes: { ...oauth.routes, ...adminSiteRoutes(openApiDocument) },
          log: (line) => log(`[gateway] ${line}`),
        });
        break;
      } catch (error) {
        const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
        if (options.port !== 0 || !taken || attempt >= FREE_PORT_ATTEMPTS) throw taken ? new PortInUseError(apiPort, 'api') : error;
      }
    }

    return {
      apiUrl: gateway.url,
      apiBaseUrls: API_PREFIXES.map((prefix) => gateway!.url + prefix),
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

/**
 * Deletes the stack's table from a shared DynamoDB Local, so the next stack of the same suite
 * starts empty, as one in memory of its own would; the server is its owner's to stop.
 */
async function deleteSharedTable(endpoint: string, region: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ region, endpoint, credentials: LOCAL_CREDENTIALS });
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName })).catch((error: Error) => {
      if (error.name !== 'ResourceNotFoundException') throw error;
    });
  } finally {
    client.destroy();
  }
}

/**
 * Points the handlers' SDK clients at the local services, with dummy credentials and no
 * profile, so nothing here can reach an AWS account whatever the developer's shell holds.
 * TABLE_NAME, ALLOW_LOOPBACK_ENDPOINTS (on unless set) and the handlers' other settings keep the
 * values the environment gives them.
 * Returns the table name.
 */
function useLocalServices(region: string, endpoints: { dynamoDb: string; sns: string }): string {
  // A profile would make the SDK skip the credentials of the environment.
  for (const name of ['AWS_PROFILE', 'AWS_DEFAULT_PROFILE', 'AWS_SESSION_TOKEN']) delete process.env[name];
  const tableName = process.env.TABLE_NAME?.trim() || DEFAULT_TABLE_NAME;
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamoDb,
    AWS_ENDPOINT_URL_SNS: endpoints.sns,
    DELIVERY_DEAD_LETTER_QUEUE_ARN: localDeliveryDeadLetterQueueArn(region),
    // The principal the SNS emulator takes LOCAL_CREDENTIALS for: the topics' one publisher.
    TOPIC_PUBLISHER_ARNS: LOCAL_SERVICE_ROLE_ARN,
    TOPIC_MANAGER_ARNS: LOCAL_SERVICE_ROLE_ARN,
    // Receivers on this machine (the reference receiver, a developer's own) are loopback hosts,
    // which the functions refuse by default (as on AWS, where none can be a receiver).
    ALLOW_LOOPBACK_ENDPOINTS: process.env.ALLOW_LOOPBACK_ENDPOINTS?.trim() || 'true',
    // Topics log their deliveries, as deployed (the emulator writes SNS's records; docs/local.md).
    DELIVERY_STATUS_ROLE_ARN: process.env.DELIVERY_STATUS_ROLE_ARN?.trim() || LOCAL_DELIVERY_STATUS_ROLE_ARN,
    // What Lambda sets for an environment started on demand; the logger reports cold starts only then.
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  });
  return tableName;
}
