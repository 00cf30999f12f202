/**
 * The data the invocations act on, made in this process before any timing, and the events of
 * each function's row (their shapes: events.ts).
 */
import { BatchWriteCommand, GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { newConfigId } from '../../shared/subscriptions/config-id';
import { mapWithConcurrency } from '../../shared/aws/bounded-concurrency';
import { dayCounterOf, dayExpiryOf, DEAD_LETTER_KEEP_DAYS } from '../../shared/data/subscription-record';
import { deadLetterKeyOf, EXPIRY_ATTRIBUTE, MESSAGE_ID_KEY, messageIdPartitionOf } from '../../shared/data/table';
import { logMessages } from '../../shared/data/messages';
import { httpEvent } from '../support/http-events';
import { confirmAsEndpointOwner } from '../support/sns-confirmation';
import { attemptsEvent, deadLetterBatch, DISPATCHED_KIND, dispatchBatch, listEvent, publishedMessage } from './events';
import { BENCH_FILTER, dispatchLabel, type BenchPlan, type FunctionName } from './plan';
import { FUNCTION_ENV } from './services';
import { ATTEMPTS_PER_EVENT, FORWARDED_PER_BATCH, RECORDED_PER_BATCH, REPLAYED_PER_INVOCATION } from './targets';

/** The create handler, run in this process, makes the real subscriptions the other operations act on. */
async function createReal(portalId: string, count: number, events = [DISPATCHED_KIND], filter?: Record<string, unknown>): Promise<Created[]> {
  // Imported here: loading it loads the handlers, which read the environment the services set.
  const { call, newSubscription } = await import('../support/api');
  const created: Created[] = [];
  for (let index = 0; index < count; index++) {
    const answer = await call('createSubscriptionRoute', {
      portalId,
      // Another account's queue: pending until its owner confirms, which SNS's side of the bench never needs.
      body: newSubscription({ name: `bench ${index}`, protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:111122223333:bench-${index}`, events, ...(filter && { filter }) }),
    });
    if (answer.statusCode !== 200) throw new Error(`setting up ${portalId}: create answered ${answer.statusCode} ${JSON.stringify(answer.body)}`);
    created.push(answer.body.record);
  }
  return created;
}

interface Created {
  configId: string;
  topicArn: string;
  subscriptionArn: string;
}

/** Writes items with BatchWrite, 25 at a time, until DynamoDB Local took them all. */
async function batchWrite(documentClient: DynamoDBDocumentClient, items: Record<string, unknown>[], what: string): Promise<void> {
  for (let start = 0; start < items.length; start += 25) {
    let unprocessed: unknown = { [FUNCTION_ENV.TABLE_NAME]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })) };
    for (let attempt = 1; unprocessed && Object.keys(unprocessed).length > 0; attempt++) {
      if (attempt > 10) throw new Error(`seeding ${what}: DynamoDB Local kept items unprocessed`);
      const answer = await documentClient.send(new BatchWriteCommand({ RequestItems: unprocessed as never }));
      unprocessed = answer.UnprocessedItems;
    }
  }
}

/**
 * A subscription record written directly in a portal of its own, pointing at `arns` (a real,
 * confirmed subscription's, for replay), with `deadLetters` dead letters kept and counted as the
 * recorder keeps them.
 */
export async function seedDeadLetters(documentClient: DynamoDBDocumentClient, arns: Omit<Created, 'configId'> | undefined, deadLetters: number) {
  const portalId = `bench-dead-${randomUUID().slice(0, 8)}`;
  const configId = newConfigId();
  const failedAt = new Date().toISOString();
  const letters = Array.from({ length: deadLetters }, (_, index) => {
    const at = new Date(Date.parse(failedAt) - index).toISOString();
    const messageId = randomUUID();
    const message = publishedMessage(portalId, configId);
    const { eventId } = JSON.parse(message) as { eventId: string };
    return { portalId, sk: deadLetterKeyOf(configId, at, messageId), configId, eventId, event: DISPATCHED_KIND, occurredAt: failedAt, failedAt: at, messageId, message, [EXPIRY_ATTRIBUTE]: dayExpiryOf(at, DEAD_LETTER_KEEP_DAYS) };
  });
  const topicArn = arns?.topicArn ?? `arn:aws:sns:us-east-1:000000000000:${FUNCTION_ENV.TOPIC_PREFIX}-${configId}`;
  const record = {
    portalId,
    sk: `subscription#${configId}`,
    configId,
    name: 'dead letters',
    endpoint: 'arn:aws:sqs:us-east-1:111122223333:bench-dead',
    protocol: 'sqs',
    events: [DISPATCHED_KIND],
    status: 1,
    topicArn,
    subscriptionArn: arns?.subscriptionArn ?? `${topicArn}:${randomUUID()}`,
    createdAt: failedAt,
    ...(deadLetters > 0 && { [dayCounterOf(failedAt)]: deadLetters, lastDeadLetterAt: failedAt }),
  };
  await batchWrite(documentClient, [record, ...letters], portalId);
  return { portalId, configId, topicArn };
}

/**
 * Records written directly (BatchWrite), for list: each endpoint stored as confirmed, as create,
 * confirm, list or the reconciler store it once SNS says so. List trusts that state and asks SNS
 * nothing (shared/subscriptions/subscription-states.ts), so their SNS subscriptions need not exist.
 */
async function seedRecords(documentClient: DynamoDBDocumentClient, portalId: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 25) {
    const items = Array.from({ length: Math.min(25, count - start) }, (_, offset) => {
      const configId = randomUUID();
      return {
        PutRequest: {
          Item: {
            portalId,
            sk: `subscription#${configId}`,
            configId,
            name: `seeded ${start + offset}`,
            endpoint: 'https://127.0.0.1:9/hooks',
            protocol: 'https',
            events: [DISPATCHED_KIND],
            status: 1,
            topicArn: `arn:aws:sns:us-east-1:000000000000:webhooks-bench-${configId}`,
            subscriptionArn: `arn:aws:sns:us-east-1:000000000000:webhooks-bench-${configId}:${randomUUID()}`,
            createdAt: new Date().toISOString(),
            subscriptionState: 'confirmed',
            subscriptionStateAt: new Date().toISOString(),
          },
        },
      };
    });
    let unprocessed: unknown = { [FUNCTION_ENV.TABLE_NAME]: items };
    for (let attempt = 1; unprocessed && Object.keys(unprocessed).length > 0; attempt++) {
      if (attempt > 10) throw new Error(`seeding ${portalId}: DynamoDB Local kept items unprocessed`);
      const answer = await documentClient.send(new BatchWriteCommand({ RequestItems: unprocessed as never }));
      unprocessed = answer.UnprocessedItems;
    }
  }
}

/** How many Query pages DynamoDB needs for a portal's subscriptions (1 MB each): the fewest a list can make. */
export async function queryPagesOf(documentClient: DynamoDBDocumentClient, portalId: string): Promise<number> {
  let pages = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    if (++pages > 1_000) throw new Error(`counting the pages of ${portalId}: more than 1,000`);
    const page = await documentClient.send(
      new QueryCommand({
        TableName: FUNCTION_ENV.TABLE_NAME,
        KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':portalId': portalId, ':prefix': 'subscription#' },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return pages;
}

/** Keeps `count` delivery attempts for the subscription through the consumer's store. */
async function seedAttempts(documentClient: DynamoDBDocumentClient, portalId: string, subscription: Created, count: number) {
  const { recordAttempts } = await import('../../shared/data/attempts');
  const start = Date.now() - 60_000;
  const attempts = Array.from({ length: count }, (_, index) => ({
    configId: subscription.configId,
    topicArn: subscription.topicArn,
    at: new Date(start + index).toISOString(),
    status: index % 5 === 0 ? ('failed' as const) : ('delivered' as const),
    statusCode: index % 5 === 0 ? 500 : 200,
    dwellTimeMs: 80,
    attempts: 1,
    messageId: randomUUID(),
  }));
  await recordAttempts({ db: documentClient, tableName: FUNCTION_ENV.TABLE_NAME }, { keepDays: 7, maxPerSubscription: 1_000 }, portalId, subscription.configId, subscription.topicArn, attempts);
  return { portalId, configId: subscription.configId };
}

/** Portals and subscriptions the read and change operations act on, made once. */
export interface Fixtures {
  changed: { portalId: string; configId: string };
  /** A subscription whose endpoint (another account's queue) its owner confirmed: test and replay are sent only to such. */
  confirmed: { portalId: string } & Created;
  /** A subscription with dead letters kept, for GET /dead-letters. */
  withDeadLetters: { portalId: string; configId: string };
  /** A subscription with delivery attempts kept, for GET /attempts. */
  withAttempts: { portalId: string; configId: string };
  /** A subscription with messages logged, for GET /messages, and the event of one of them, for POST /resend (its Query reads the log's one page of 30). */
  withMessages: { portalId: string; configId: string; eventId: string };
  /** By size of GET /messages' scale: a subscription with that many messages logged. */
  messageLogs: Map<number, { portalId: string; configId: string }>;
  /** For the data some rows make before each turn (replay's dead letters, the recorder's subscriptions). */
  documentClient: DynamoDBDocumentClient;
  /** By size of list's scale. */
  listPortals: Map<number, string>;
  /** The portals of each of the dispatcher's batches, by its row's label. */
  dispatchPortals: Map<string, string[]>;
}

export async function makeFixtures({ iterations, measures }: BenchPlan, documentClient: DynamoDBDocumentClient): Promise<Fixtures> {
  const changedPortal = 'bench-change';
  const [changed] = await createReal(changedPortal, 1, [DISPATCHED_KIND, 'asset_bank.media.updated']);
  const listPortals = new Map<number, string>();
  for (const size of measures('listSubscriptions') ? iterations.listScale : []) {
    const portalId = `bench-list-${size}`;
    // Every list portal, the main row's too: a portal whose endpoints all confirmed (issue 22's row).
    await seedRecords(documentClient, portalId, size);
    listPortals.set(size, portalId);
  }
  const messageLogs = new Map<number, { portalId: string; configId: string }>();
  for (const size of measures('listMessages') ? iterations.messagesScale : []) {
    const portalId = `bench-messages-${size}`;
    const [subscription] = await createReal(portalId, 1);
    await seedMessages(documentClient, portalId, subscription!.configId, size);
    messageLogs.set(size, { portalId, configId: subscription!.configId });
  }
  const dispatchPortals = new Map<string, string[]>();
  for (const [shapeIndex, shape] of (measures('dispatchPortalEvents') ? iterations.dispatchShapes : []).entries()) {
    const portalIds = Array.from({ length: shape.portals }, (_, index) => `bench-dispatch-${shapeIndex}-${index}`);
    for (const portalId of portalIds) await createReal(portalId, shape.recipients, [DISPATCHED_KIND], shape.filtered ? BENCH_FILTER : undefined);
    dispatchPortals.set(dispatchLabel(shape), portalIds);
  }
  const confirmedPortal = 'bench-confirmed';
  const [confirmed] = await createReal(confirmedPortal, 1);
  await confirmAsEndpointOwner(confirmed!.subscriptionArn);
  const withDeadLetters = await seedDeadLetters(documentClient, undefined, 30);
  const withAttempts = await seedAttempts(documentClient, confirmedPortal, confirmed!, 30);
  const [oldestMessageId] = await seedMessages(documentClient, confirmedPortal, confirmed!.configId, 30);
  const { Item: oldestOwner } = await documentClient.send(new GetCommand({ TableName: FUNCTION_ENV.TABLE_NAME, Key: { portalId: messageIdPartitionOf(oldestMessageId!), sk: MESSAGE_ID_KEY } }));
  return {
    changed: { portalId: changedPortal, configId: changed!.configId },
    confirmed: { portalId: confirmedPortal, ...confirmed! },
    withDeadLetters,
    withAttempts,
    withMessages: { portalId: confirmedPortal, configId: confirmed!.configId, eventId: String(oldestOwner!.eventId) },
    messageLogs,
    documentClient,
    listPortals,
    dispatchPortals,
  };
}

/** `count` events for one function's own row, with whatever each needs made first (delete: its own subscriptions). */
export async function eventsFor(name: FunctionName, count: number, fixtures: Fixtures, { iterations }: BenchPlan): Promise<unknown[]> {
  const { documentClient } = fixtures;
  const { portalId, configId } = fixtures.changed;
  const indexes = Array.from({ length: count }, (_, index) => index);
  switch (name) {
    case 'createSubscription':
      return indexes.map((index) =>
        httpEvent('createSubscriptionRoute', {
          portalId: 'bench-create',
          body: { name: `created ${index}`, protocol: 'sqs', endpoint: 'arn:aws:sqs:us-east-1:111122223333:bench-created', events: [DISPATCHED_KIND] },
        }),
      );
    case 'updateSubscription':
      return indexes.map((index) =>
        httpEvent('updateSubscriptionRoute', {
          portalId,
          body: { config_id: configId, events: index % 2 ? [DISPATCHED_KIND] : [DISPATCHED_KIND, 'asset_bank.media.updated'] },
        }),
      );
    case 'activateSubscription':
      // Ends activated whatever the count, so the dispatcher's portals are untouched anyway.
      return indexes.map((index) => httpEvent('activateSubscriptionRoute', { portalId, body: { config_id: configId, status: (count - index) % 2 } }));
    case 'renameSubscription':
      return indexes.map((index) => httpEvent('renameSubscriptionRoute', { portalId, body: { config_id: configId, name: `renamed ${index % 2}` } }));
    case 'testSubscription':
      return indexes.map(() => httpEvent('testSubscriptionRoute', { portalId: fixtures.confirmed.portalId, body: { config_id: fixtures.confirmed.configId } }));
    case 'testFilter':
      // A miss on the last key: every key is tried (the floor's own filter is exact values only).
      return indexes.map((index) =>
        httpEvent('testFilterRoute', {
          portalId,
          body: { filter: { brand: ['acme', 'zeta'], collection: ['summer'], fileType: ['image/png'] }, data: { brand: 'acme', collection: 'summer', fileType: index % 2 ? 'image/png' : 'video/mp4', size: 2048 } },
        }),
      );
    case 'listDeadLetters': {
      const { portalId: deadPortal, configId: deadConfig } = fixtures.withDeadLetters;
      return indexes.map(() => httpEvent('listDeadLettersRoute', { portalId: deadPortal, query: { config_id: deadConfig, limit: '10' } }));
    }
    case 'resendMessage': {
      const { portalId: messagesPortal, configId: messagesConfig, eventId } = fixtures.withMessages;
      return indexes.map(() => httpEvent('resendMessageRoute', { portalId: messagesPortal, body: { config_id: messagesConfig, event_id: eventId } }));
    }
    case 'recoverMessages': {
      // The window of the subscription's log (its messages all sent in the last day); the recovery is stored and queued, not worked.
      const { portalId: messagesPortal, configId: messagesConfig } = fixtures.withMessages;
      const since = new Date(Date.now() - 86_400_000).toISOString();
      return indexes.map(() => httpEvent('recoverMessagesRoute', { portalId: messagesPortal, body: { config_id: messagesConfig, since } }));
    }
    case 'listRecoveries': {
      const { portalId: messagesPortal, configId: messagesConfig } = fixtures.withMessages;
      return indexes.map(() => httpEvent('listRecoveriesRoute', { portalId: messagesPortal, query: { config_id: messagesConfig, limit: '10' } }));
    }
    case 'listMessages': {
      const { portalId: messagesPortal, configId: messagesConfig } = fixtures.withMessages;
      return indexes.map(() => httpEvent('listMessagesRoute', { portalId: messagesPortal, query: { config_id: messagesConfig, limit: '10' } }));
    }
    case 'listAttempts': {
      const { portalId: attemptPortal, configId: attemptConfig } = fixtures.withAttempts;
      return indexes.map(() => httpEvent('listAttemptsRoute', { portalId: attemptPortal, query: { config_id: attemptConfig, limit: '10' } }));
    }
    case 'recordDeliveryAttempts': {
      // A real topic each (the consumer reads its portal tag), so no event meets the cap of another's.
      const portals = indexes.map(() => `bench-attempts-${randomUUID().slice(0, 8)}`);
      const topics = await mapWithConcurrency(portals, 4, async (portal) => (await createReal(portal, 1))[0]!);
      // Each record names a message the service published to that topic (the message log), as the consumer keeps only those.
      return Promise.all(
        topics.map(async (topic, index) => attemptsEvent(topic.topicArn, await seedMessages(documentClient, portals[index]!, topic.configId, ATTEMPTS_PER_EVENT))),
      );
    }
    case 'replayDeadLetters': {
      // A subscription each (its record pointing at the confirmed one's topic), with its own dead letters to send.
      const seeded = await mapWithConcurrency(indexes, 4, () => seedDeadLetters(documentClient, fixtures.confirmed, REPLAYED_PER_INVOCATION));
      return seeded.map((subscription) => httpEvent('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } }));
    }
    case 'forwardDeadLetters':
      // As the delivery dead-letter queue hands them: batches of 10 (its event source's), the letters of one portal's subscription.
      return indexes.map(() => deadLetterBatch(fixtures.confirmed, FORWARDED_PER_BATCH));
    case 'recordDeadLetters': {
      // A subscription each, so no batch meets the cap of another's.
      const seeded = await mapWithConcurrency(indexes, 4, () => seedDeadLetters(documentClient, undefined, 0));
      return seeded.map((subscription) => deadLetterBatch(subscription, RECORDED_PER_BATCH));
    }
    case 'confirmSubscription':
      // The subscription stays pending: each confirm asks its endpoint again.
      return indexes.map(() => httpEvent('confirmSubscriptionRoute', { portalId, body: { config_id: configId } }));
    case 'deleteSubscription': {
      // A portal each, so they can be made a few at a time without contending for one counter.
      const portals = indexes.map(() => `bench-delete-${randomUUID().slice(0, 8)}`);
      const doomed = await mapWithConcurrency(portals, 4, async (portal) => (await createReal(portal, 1))[0]!);
      return doomed.map((subscription, index) => httpEvent('deleteSubscriptionRoute', { portalId: portals[index]!, configId: subscription.configId }));
    }
    case 'listSubscriptions':
      return indexes.map(() => listEvent(fixtures.listPortals.get(iterations.listScale[0]!)!));
    case 'dispatchPortalEvents': {
      const shape = iterations.dispatchShapes[0]!;
      return indexes.map(() => dispatchBatch(fixtures.dispatchPortals.get(dispatchLabel(shape))!, shape.events));
    }
    default:
      throw new Error(`no events for ${name}`);
  }
}

/** `count` messages logged for a subscription, as a publisher logs them; answers their SNS message ids. */
export async function seedMessages(documentClient: DynamoDBDocumentClient, portalId: string, configId: string, count: number): Promise<string[]> {
  const now = new Date().toISOString();
  const messages = Array.from({ length: count }, (_, index) => {
    const eventId = randomUUID();
    const body = JSON.stringify({ event: DISPATCHED_KIND, portalId, configId, occurredAt: now, eventId, data: { mediaId: `m-${index}` } });
    return { portalId, configId, messageId: randomUUID(), eventId, event: DISPATCHED_KIND, occurredAt: now, sentAt: now, body };
  });
  const { notLogged } = await logMessages({ db: documentClient, tableName: FUNCTION_ENV.TABLE_NAME }, 30, messages);
  if (notLogged.length > 0) throw new Error(`${notLogged.length} bench messages were not logged.`);
  return messages.map(({ messageId }) => messageId);
}

/** GET /messages' first page of 100 of a subscription with that many messages logged. */
export function messagesPageEvent(fixtures: Fixtures, size: number) {
  const { portalId, configId } = fixtures.messageLogs.get(size)!;
  return httpEvent('listMessagesRoute', { portalId, query: { config_id: configId, limit: '100' } });
}
