/**
 * The reconciler restores the agreement of table and SNS (no record without its topic, no topic
 * of the service without its record) after each failure the known gaps of docs/design.md list,
 * in one run, and a second run right after changes nothing. Creates in flight (young topics)
 * and topics of the prefix with foreign names are never touched, and neither is an endpoint
 * whose subscription is gone while its topic exists: it left, and is not brought back behind its
 * owner's back. Each record gets the state ListSubscriptions shows for its subscription, so list
 * (which trusts a stored `confirmed`) shows a lapse from the next run on.
 *
 * The suite has a table and a topic prefix of its own, so the whole-table scan and the listing
 * of every topic see only what it made, whatever the other suites do meanwhile; it empties both
 * before each test, so every summary is exact. Faults the emulators cannot produce are injected
 * into the functions' own SDK clients (support/faults.ts).
 */
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsByTopicCommand,
  ListTagsForResourceCommand,
  SetSubscriptionAttributesCommand,
  SetTopicAttributesCommand,
  SNSClient,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { newConfigId } from '../../shared/subscriptions/config-id';
import { LOCAL_SERVICE_ROLE_ARN } from '../../infra/aws/local-account';
import { ensureSubscriptionTable } from '../../infra/local/dynamodb/subscription-table';
import { injectFault, lostAnswer } from '../support/faults';
import { lambdaContext } from '../support/lambda-context';
import { TEST_ENV } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const TABLE_NAME = 'webhook-subscriptions-reconciliation';
const TOPIC_PREFIX = 'webhooks-reconciliation';
process.env.TABLE_NAME = TABLE_NAME;
process.env.TOPIC_PREFIX = TOPIC_PREFIX;

const MINUTE = 60_000;
const GRACE_MS = 15 * MINUTE;

const inspectDb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const inspectSns = new SNSClient({});
await ensureSubscriptionTable(new DynamoDBClient({}), TABLE_NAME);

// The functions read TABLE_NAME and TOPIC_PREFIX when imported: after they are set above.
const { call, freshPortal, newSubscription } = await import('../support/api');
const { handler: reconcileHandler } = await import('../../functions/reconcileTopics');
const { reconcileTopics } = await import('../../shared/reconciliation/reconcile');
const { dynamoDbClient, documentClient } = await import('../../shared/aws/dynamodb');
const { snsClient } = await import('../../shared/aws/sns');
const { subscriptionRepository } = await import('../../shared/subscriptions/repository');
const { subscriptionTopics } = await import('../../shared/subscriptions/topics');
const { HTTP_DELIVERY_POLICY } = await import('../../shared/subscriptions/delivery-policy');
const { listAllTopicArns } = await import('../../shared/reconciliation/sns-inventory');
const { topicAccessPolicy } = await import('../../shared/subscriptions/topic-policy');

/** A reconciler run as the scheduled function makes it, `minutesLater` than now by its clock. */
function reconcile({ minutesLater = 0, dryRun = false } = {}) {
  return reconcileTopics({
    sns: snsClient,
    repository: subscriptionRepository(documentClient, TABLE_NAME),
    topics: subscriptionTopics(snsClient, TOPIC_PREFIX, TEST_ENV.TOPIC_PUBLISHER_ARNS.split(','), TEST_ENV.TOPIC_MANAGER_ARNS.split(',')),
    topicPrefix: TOPIC_PREFIX,
    deadLetterQueueArn: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN,
    graceMs: GRACE_MS,
    now: () => Date.now() + minutesLater * MINUTE,
    dryRun,
  });
}

/** A summary that changed nothing. */
function unchanged(topicsSeen: number, recordsSeen: number, skippedYoung = 0) {
  return {
    topicsSeen,
    recordsSeen,
    orphanTopicsDeleted: 0,
    recordsRepaired: 0,
    subscriptionStatesUpdated: 0,
    skippedYoung,
    subscriptionsGone: 0,
    errors: 0,
    deliveryPoliciesSet: 0,
    unrecognizedTopics: [],
    dryRun: false,
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- stored items
async function records(): Promise<Record<string, any>[]> {
  const { Items } = await inspectDb.send(
    new ScanCommand({ TableName: TABLE_NAME, FilterExpression: 'begins_with(sk, :s)', ExpressionAttributeValues: { ':s': 'subscription#' } }),
  );
  return Items ?? [];
}

async function topicsOfPrefix(): Promise<string[]> {
  return (await listAllTopicArns(inspectSns)).filter((arn) => arn.split(':')[5]!.startsWith(`${TOPIC_PREFIX}-`)).sort();
}

async function subscriptionAttributes(subscriptionArn: string): Promise<Record<string, string> | undefined> {
  try {
    return (await inspectSns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }))).Attributes;
  } catch (error) {
    if ((error as Error).name === 'NotFoundException') return undefined;
    throw error;
  }
}

/**
 * Table and SNS agree, as an operator checks it: the topics of the prefix are exactly the records'
 * topics (besides `foreign`, topics whose names are not the service's), each with the access
 * policy that lets only the service publish, and each record's SNS subscription exists on its
 * topic with its endpoint, protocol and delivery attributes, and no filter. `publishers`: those
 * of the functions that made the topics (npm run reconcile's are the local stack's).
 */
async function expectAgreement(foreign: string[] = [], publishers: string[] = TEST_ENV.TOPIC_PUBLISHER_ARNS.split(',')) {
  const stored = await records();
  expect(await topicsOfPrefix()).toEqual([...stored.map((record) => record.topicArn), ...foreign].sort());
  for (const record of stored) {
    const { Attributes: topic } = await inspectSns.send(new GetTopicAttributesCommand({ TopicArn: record.topicArn }));
    expect(JSON.parse(topic!.Policy!).Statement[0].Condition).toEqual({ ArnNotEquals: { 'aws:PrincipalArn': publishers } });
    const attributes = await subscriptionAttributes(record.subscriptionArn);
    expect(attributes).toMatchObject({ TopicArn: record.topicArn, Protocol: record.protocol, Endpoint: record.endpoint });
    expect(attributes!.FilterPolicy).toBeUndefined();
    expect(JSON.parse(attributes!.RedrivePolicy!)).toEqual({ deadLetterTargetArn: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN });
    if (record.protocol.startsWith('http')) expect(JSON.parse(attributes!.DeliveryPolicy!)).toEqual({ ...HTTP_DELIVERY_POLICY, sicklyRetryPolicy: null, throttlePolicy: null, guaranteed: false });
  }
}

async function createOne(portalId: string, overrides: Record<string, unknown> = {}) {
  const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription(overrides) });
  expect(answer.statusCode).toBe(200);
  return answer.body.record as { configId: string; topicArn: string; subscriptionArn: string };
}

/** A UUIDv7 of `ms` (its first 48 bits), which newConfigId never makes: its ids never go back in time. */
function configIdOf(ms: number): string {
  const time = ms.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}${newConfigId().slice(13)}`;
}

/** A topic of the prefix made by hand, named for a config id of `minutesAgo`. */
async function handMadeTopic(minutesAgo: number): Promise<string> {
  const name = `${TOPIC_PREFIX}-${configIdOf(Date.now() - minutesAgo * MINUTE)}`;
  return (await inspectSns.send(new CreateTopicCommand({ Name: name }))).TopicArn!;
}

let removeFaults: (() => void)[] = [];
afterEach(() => {
  for (const remove of removeFaults) remove();
  removeFaults = [];
});

beforeEach(async () => {
  for (const topicArn of await topicsOfPrefix()) await inspectSns.send(new DeleteTopicCommand({ TopicArn: topicArn }));
  const { Items } = await inspectDb.send(new ScanCommand({ TableName: TABLE_NAME, ProjectionExpression: 'portalId, sk' }));
  for (const key of Items ?? []) await inspectDb.send(new DeleteCommand({ TableName: TABLE_NAME, Key: key }));
});

describe('a create whose clean-up failed after its write was refused', () => {
  it('leaves a topic without a record, which the first run after the grace period deletes; a second run changes nothing', async () => {
    const portalId = freshPortal();
    // The limit transaction refuses the write (another create took the last place), then SNS fails the undo.
    removeFaults.push(
      injectFault(dynamoDbClient, /TransactWrite/, {
        failWith: () =>
          new TransactionCanceledException({
            message: 'Transaction cancelled',
            $metadata: { httpStatusCode: 400 },
            CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
          }),
      }),
      injectFault(snsClient, /DeleteTopic/),
    );

    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription() });

    expect(answer.statusCode).toBe(400);
    expect(answer.body.code).toBe('SUBSCRIPTION_LIMIT_REACHED');
    const [orphan] = await topicsOfPrefix();
    expect(await records()).toEqual([]);
    expect(orphan).toBeDefined();

    // Within the grace period it may be a create in flight: untouched.
    expect(await reconcile()).toEqual(unchanged(1, 0, 1));
    expect(await topicsOfPrefix()).toEqual([orphan]);

    expect(await reconcile({ minutesLater: 16 })).toEqual({ ...unchanged(1, 0), orphanTopicsDeleted: 1 });
    await expectAgreement();
    expect(await topicsOfPrefix()).toEqual([]);
    expect(await reconcile({ minutesLater: 16 })).toEqual(unchanged(0, 0));
  });
});

describe('a create whose write answer was lost while DynamoDB could not answer the look-up', () => {
  it('when the record was not written: its kept topic is deleted after the grace period', async () => {
    const portalId = freshPortal();
    removeFaults.push(
      injectFault(dynamoDbClient, /TransactWrite/, { failWith: lostAnswer }),
      // The first GetItem is the limit check; the second the look-up after the lost answer.
      injectFault(dynamoDbClient, /^Get/, { skip: 1 }),
    );

    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription() });

    expect(answer.statusCode).toBeGreaterThanOrEqual(500);
    expect(await records()).toEqual([]);
    expect(await topicsOfPrefix()).toHaveLength(1);

    expect(await reconcile({ minutesLater: 16 })).toEqual({ ...unchanged(1, 0), orphanTopicsDeleted: 1 });
    await expectAgreement();
    expect(await reconcile({ minutesLater: 16 })).toEqual(unchanged(0, 0));
  });

  it('when the record was written: record and topic agree, and the run leaves both alone', async () => {
    const portalId = freshPortal();
    removeFaults.push(
      injectFault(dynamoDbClient, /TransactWrite/, { afterApplying: true, failWith: lostAnswer }),
      injectFault(dynamoDbClient, /^Get/, { skip: 1 }),
    );

    expect((await call('createSubscriptionRoute', { portalId, body: newSubscription() })).statusCode).toBeGreaterThanOrEqual(500);
    const [record] = await records();

    expect(await reconcile({ minutesLater: 16 })).toEqual(unchanged(1, 1));
    await expectAgreement();
    expect(await records()).toEqual([record]);
  });
});

describe('a topic deleted behind the service’s back', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  it('is made again with its SNS subscription, the record points at them, and delivery resumes once the endpoint confirms', async () => {
    const portalId = freshPortal();
    const endpoint = `${receiver.url}/repaired`;
    const before = await createOne(portalId, { protocol: 'http', endpoint, events: ['asset_bank.media.create'] });
    await waitFor('the first confirmation', () => (receiver.received.length === 1 || undefined));
    await inspectSns.send(new DeleteTopicCommand({ TopicArn: before.topicArn }));
    expect(await subscriptionAttributes(before.subscriptionArn)).toBeUndefined();

    expect(await reconcile()).toEqual({ ...unchanged(0, 1), recordsRepaired: 1 });

    await expectAgreement();
    const [after] = await records();
    expect(after).toMatchObject({ configId: before.configId, topicArn: before.topicArn, portalId, endpoint, protocol: 'http' });
    expect(after!.subscriptionArn).not.toBe(before.subscriptionArn);
    const { Tags } = await inspectSns.send(new ListTagsForResourceCommand({ ResourceArn: after!.topicArn }));
    expect(Tags).toEqual(
      expect.arrayContaining([
        { Key: 'portalId', Value: portalId },
        { Key: 'configId', Value: before.configId },
      ]),
    );
    // The endpoint is asked to confirm again (the receiver does), then gets what is sent to it.
    await waitFor('the endpoint to confirm again', async () =>
      (await subscriptionAttributes(after!.subscriptionArn))?.PendingConfirmation === 'false' || undefined,
    );
    expect((await call('testSubscriptionRoute', { portalId, body: { config_id: before.configId } })).statusCode).toBe(200);
    const delivered = await waitFor('the test message', () => receiver.notificationsAt('/repaired')[0]);
    expect(delivered.message).toMatchObject({ event: 'webhooks.test', configId: before.configId });

    // The repair stored the new subscription pending; the next run sees it confirmed in the listing.
    expect((await records())[0]).toMatchObject({ subscriptionArn: after!.subscriptionArn, subscriptionState: 'pending' });
    expect(await reconcile()).toEqual({ ...unchanged(1, 1), subscriptionStatesUpdated: 1 });
    expect((await records())[0]).toMatchObject({ subscriptionArn: after!.subscriptionArn, subscriptionState: 'confirmed' });
    expect(await reconcile()).toEqual(unchanged(1, 1));
  });

  it('recreates the topic of a deactivated subscription; the record keeps it deactivated, and no filter is set', async () => {
    const portalId = freshPortal();
    const { configId, topicArn } = await createOne(portalId);
    expect((await call('activateSubscriptionRoute', { portalId, body: { config_id: configId, status: 0 } })).statusCode).toBe(200);
    await inspectSns.send(new DeleteTopicCommand({ TopicArn: topicArn }));

    expect(await reconcile()).toEqual({ ...unchanged(0, 1), recordsRepaired: 1 });

    await expectAgreement();
    expect((await records())[0]).toMatchObject({ configId, status: 0 });
    expect(await reconcile()).toEqual(unchanged(1, 1));
  });

  it('counts a record whose repair failed as an error, repairs the others, and the next run completes it', async () => {
    const portalId = freshPortal();
    const first = await createOne(portalId);
    const second = await createOne(portalId);
    for (const { topicArn } of [first, second]) await inspectSns.send(new DeleteTopicCommand({ TopicArn: topicArn }));
    removeFaults.push(injectFault(snsClient, /CreateTopic/));

    expect(await reconcile()).toEqual({ ...unchanged(0, 2), recordsRepaired: 1, errors: 1 });
    expect(await topicsOfPrefix()).toHaveLength(1);

    expect(await reconcile()).toEqual({ ...unchanged(1, 2), recordsRepaired: 1 });
    await expectAgreement();
    expect(await reconcile()).toEqual(unchanged(2, 2));
  });
});

describe('an endpoint whose subscription is gone while its topic exists', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  it('is left unsubscribed, sent nothing, and listed as unsubscribed from the next run on; POST /confirm subscribes it again', async () => {
    const portalId = freshPortal();
    const before = await createOne(portalId, { protocol: 'http', endpoint: `${receiver.url}/left`, events: ['asset_bank.media.create'] });
    const stateOf = async () => (await call('listSubscriptionsRoute', { portalId })).body.configs[0].subscriptionState;
    await waitFor('the endpoint to confirm', async () => ((await stateOf()) === 'confirmed' ? true : undefined));
    // The endpoint unsubscribes by the UnsubscribeURL of a message it got.
    expect((await call('testSubscriptionRoute', { portalId, body: { config_id: before.configId } })).statusCode).toBe(200);
    const [message] = await waitFor('the test message', () => receiver.notificationsAt('/left')[0] && receiver.notificationsAt('/left'));
    expect((await fetch(message!.envelope.UnsubscribeURL, { signal: AbortSignal.timeout(5_000) })).status).toBe(200);
    // SNS tells the endpoint it is unsubscribed, asynchronously (a busy machine delays it): the last
    // message it is owed, counted before what follows may send nothing more.
    await waitFor('the UnsubscribeConfirmation', () => receiver.received.find((entry) => entry.path === '/left' && entry.envelope.Type === 'UnsubscribeConfirmation'));
    // List trusts the stored `confirmed` (it asks SNS nothing) until the reconciler's next run: the documented bound.
    expect(await stateOf()).toBe('confirmed');
    const receivedBefore = receiver.received.length;

    expect(await reconcile()).toEqual({ ...unchanged(1, 1), subscriptionsGone: 1, subscriptionStatesUpdated: 1 });
    expect(await stateOf()).toBe('unsubscribed');
    expect(await reconcile({ minutesLater: 60 * 49 })).toEqual({ ...unchanged(1, 1), subscriptionsGone: 1 });

    // Nothing was subscribed, so nothing can be sent: no confirmation request, no message.
    const { Subscriptions } = await inspectSns.send(new ListSubscriptionsByTopicCommand({ TopicArn: before.topicArn }));
    expect(Subscriptions).toEqual([]);
    expect((await records())[0]).toMatchObject({ subscriptionArn: before.subscriptionArn });
    // A test event is refused, saying why: nothing would arrive.
    const test = await call('testSubscriptionRoute', { portalId, body: { config_id: before.configId } });
    expect([test.statusCode, test.body.code]).toEqual([400, 'ENDPOINT_NOT_CONFIRMED']);
    // Nothing is owed any more, so anything arriving now (for a moment) would be a wrongful send.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.slice(receivedBefore).map((entry) => entry.envelope.Type)).toEqual([]);
    expect(await stateOf()).toBe('unsubscribed');

    // Its owner asks for it again: SNS sends a new confirmation request, which the receiver follows.
    const confirm = await call('confirmSubscriptionRoute', { portalId, body: { config_id: before.configId } });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body.subscriptionState).toBe('pending');
    await waitFor('the endpoint to confirm again', async () => ((await stateOf()) === 'confirmed' ? true : undefined));
    const [after] = await records();
    expect(after!.subscriptionArn).not.toBe(before.subscriptionArn);
    await expectAgreement();
    expect((await call('testSubscriptionRoute', { portalId, body: { config_id: before.configId } })).statusCode).toBe(200);
    await waitFor('the test message after confirming', () => receiver.notificationsAt('/left')[1]);
    expect(await reconcile()).toEqual(unchanged(1, 1));
  });

  it('is left so when it never confirmed and SNS deleted it', async () => {
    const portalId = freshPortal();
    receiver.unconfirmedPaths.add('/never');
    const before = await createOne(portalId, { protocol: 'http', endpoint: `${receiver.url}/never` });
    await waitFor('the confirmation request', () => receiver.received.find((entry) => entry.path === '/never'));
    // What SNS does to a subscription pending for 48 hours (docs/delivery.md).
    await inspectSns.send(new UnsubscribeCommand({ SubscriptionArn: before.subscriptionArn }));

    expect(await reconcile()).toEqual({ ...unchanged(1, 1), subscriptionsGone: 1, subscriptionStatesUpdated: 1 });

    expect(receiver.received.filter((entry) => entry.path === '/never')).toHaveLength(1);
    expect((await call('listSubscriptionsRoute', { portalId })).body.configs[0]).toMatchObject({ confirmed: false, subscriptionState: 'unsubscribed' });
  });
});

describe('the state of each SNS subscription, as ListSubscriptions shows it', () => {
  /** Sets the record's stored state as if observed `minutesAgo` (negative: later than now). */
  async function storeState(portalId: string, configId: string, subscriptionState: string | undefined, minutesAgo = 60) {
    await inspectDb.send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key: { portalId, sk: `subscription#${configId}` },
        ...(subscriptionState
          ? {
              UpdateExpression: 'SET subscriptionState = :state, subscriptionStateAt = :at',
              ExpressionAttributeValues: { ':state': subscriptionState, ':at': new Date(Date.now() - minutesAgo * MINUTE).toISOString() },
            }
          : { UpdateExpression: 'REMOVE subscriptionState, subscriptionStateAt' }),
      }),
    );
  }

  it('stores pending for a record stored confirmed whose subscription SNS lists pending again (an e-mail SNS deactivated), in one run', async () => {
    const portalId = freshPortal();
    const { configId } = await createOne(portalId, { protocol: 'email', endpoint: 'ops@example.com' });
    // SNS deactivates an e-mail subscription that exceeds its delivery rate: pending again. The
    // emulator has no such rate, so the record is made to say what it said before that happened.
    await storeState(portalId, configId, 'confirmed');
    const listed = async () => (await call('listSubscriptionsRoute', { portalId })).body.configs[0].subscriptionState;
    expect(await listed()).toBe('confirmed');

    expect(await reconcile({ dryRun: true })).toMatchObject({ wouldUpdateSubscriptionStates: 1, dryRun: true });
    expect(await listed()).toBe('confirmed');
    expect(await reconcile()).toEqual({ ...unchanged(1, 1), subscriptionStatesUpdated: 1 });

    expect(await listed()).toBe('pending');
    expect(await reconcile()).toEqual(unchanged(1, 1));
  });

  it('stores the state of records written before it was stored: the first run after the change', async () => {
    const portalId = freshPortal();
    const pending = await createOne(portalId);
    const gone = await createOne(portalId);
    for (const { configId } of [pending, gone]) await storeState(portalId, configId, undefined);
    await inspectSns.send(new UnsubscribeCommand({ SubscriptionArn: gone.subscriptionArn }));

    expect(await reconcile()).toEqual({ ...unchanged(2, 2), subscriptionsGone: 1, subscriptionStatesUpdated: 2 });

    const stored = new Map((await records()).map((record) => [record.configId, record.subscriptionState]));
    expect(stored).toEqual(new Map([[pending.configId, 'pending'], [gone.configId, 'unsubscribed']]));
  });

  it('leaves a state stored after its listing began alone: it is newer than what the listing shows', async () => {
    const portalId = freshPortal();
    const { configId } = await createOne(portalId);
    await storeState(portalId, configId, 'confirmed', -1);

    expect(await reconcile()).toEqual(unchanged(1, 1));
    expect((await records())[0]).toMatchObject({ subscriptionState: 'confirmed' });
  });
});

describe('topics of the prefix made by hand', () => {
  it('deletes the old one without a record, leaves a young one and one with a foreign name alone and reports the latter', async () => {
    const old = await handMadeTopic(60);
    const young = await handMadeTopic(1);
    const foreign = (await inspectSns.send(new CreateTopicCommand({ Name: `${TOPIC_PREFIX}-audit` }))).TopicArn!;
    const kept = await createOne(freshPortal());

    // The scheduled function itself, on the real clock.
    const summary = await reconcileHandler({}, lambdaContext('reconcileTopics'));

    // Its topic made by create has the present access policy, not yet remembered on its record: set once.
    expect(summary).toEqual({ ...unchanged(4, 1, 1), orphanTopicsDeleted: 1, unrecognizedTopics: [foreign], topicPoliciesSet: 1 });
    expect(await topicsOfPrefix()).toEqual([kept.topicArn, young, foreign].sort());
    expect(await topicsOfPrefix()).not.toContain(old);
    expect(await reconcileHandler({}, lambdaContext('reconcileTopics'))).toEqual({
      ...unchanged(3, 1, 1),
      unrecognizedTopics: [foreign],
      topicPoliciesSet: 0,
    });
  });

  it('deletes the other orphans when deleting one fails, and that one on the next run', async () => {
    await handMadeTopic(60);
    await handMadeTopic(120);
    removeFaults.push(injectFault(snsClient, /DeleteTopic/));

    expect(await reconcile()).toEqual({ ...unchanged(2, 0), orphanTopicsDeleted: 1, errors: 1 });
    expect(await reconcile()).toEqual({ ...unchanged(1, 0), orphanTopicsDeleted: 1 });
    expect(await topicsOfPrefix()).toEqual([]);
  });
});

describe("a topic made before its access policy's present statements", () => {
  it('gets the present policy from the next run, once; again when the principals change; a dry run only counts it', async () => {
    const { topicArn } = await createOne(freshPortal());
    const publishOnly = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Sid: 'OnlyTheServicePublishes', Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Resource: topicArn, Condition: { ArnNotEquals: { 'aws:PrincipalArn': ['arn:aws:iam::000000000000:role/test'] } } }],
    });
    await inspectSns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: publishOnly }));
    const principals = { publisherArns: TEST_ENV.TOPIC_PUBLISHER_ARNS.split(','), managerArns: TEST_ENV.TOPIC_MANAGER_ARNS.split(',') };
    const run = (topicPolicy: typeof principals, dryRun = false) =>
      reconcileTopics({
        sns: snsClient,
        repository: subscriptionRepository(documentClient, TABLE_NAME),
        topics: subscriptionTopics(snsClient, TOPIC_PREFIX, principals.publisherArns, principals.managerArns),
        topicPrefix: TOPIC_PREFIX,
        deadLetterQueueArn: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN,
        graceMs: GRACE_MS,
        now: Date.now,
        dryRun,
        topicPolicy,
      });
    const policyOf = async () => (await inspectSns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }))).Attributes!.Policy;

    expect(await run(principals, true)).toMatchObject({ wouldSetTopicPolicies: 1, errors: 0 });
    expect(await policyOf()).toBe(publishOnly);

    expect(await run(principals)).toMatchObject({ topicPoliciesSet: 1, errors: 0 });
    expect(await policyOf()).toBe(topicAccessPolicy(topicArn, principals.publisherArns, principals.managerArns));
    // Remembered on the record: the next run asks SNS nothing.
    expect(await run(principals)).toMatchObject({ topicPoliciesSet: 0, errors: 0 });
    // A managing role added: every topic names it.
    const more = { ...principals, managerArns: [...principals.managerArns, 'arn:aws:iam::000000000000:role/new-manager'] };
    expect(await run(more)).toMatchObject({ topicPoliciesSet: 1, errors: 0 });
    expect(JSON.parse((await policyOf())!).Statement[1].Condition.ArnNotEquals['aws:PrincipalArn']).toContain('arn:aws:iam::000000000000:role/new-manager');
  });
});

describe('a delivery policy changed behind the service’s back', () => {
  const throttleOf = async (subscriptionArn: string) =>
    JSON.parse((await subscriptionAttributes(subscriptionArn))!.DeliveryPolicy!).throttlePolicy as { maxReceivesPerSecond: number } | null;

  it('is set again from the record of a throttled subscription in one run; a dry run only counts it; the next run finds nothing to do', async () => {
    const { subscriptionArn } = await createOne(freshPortal(), { maxReceivesPerSecond: 3 });
    const other = await createOne(freshPortal(), { maxReceivesPerSecond: 7 });
    // A person (or an update whose SNS call failed) leaves other policies in SNS.
    await inspectSns.send(
      new SetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn, AttributeName: 'DeliveryPolicy', AttributeValue: JSON.stringify({ throttlePolicy: { maxReceivesPerSecond: 50 } }) }),
    );
    await inspectSns.send(
      new SetSubscriptionAttributesCommand({ SubscriptionArn: other.subscriptionArn, AttributeName: 'DeliveryPolicy', AttributeValue: JSON.stringify(HTTP_DELIVERY_POLICY) }),
    );

    expect(await reconcile({ dryRun: true })).toMatchObject({ wouldSetDeliveryPolicies: 2, errors: 0 });
    expect(await throttleOf(subscriptionArn)).toEqual({ maxReceivesPerSecond: 50 });

    expect(await reconcile()).toEqual({ ...unchanged(2, 2), deliveryPoliciesSet: 2 });
    expect(JSON.parse((await subscriptionAttributes(subscriptionArn))!.DeliveryPolicy!)).toEqual({
      ...HTTP_DELIVERY_POLICY,
      throttlePolicy: { maxReceivesPerSecond: 3 },
      sicklyRetryPolicy: null,
      guaranteed: false,
    });
    expect(await throttleOf(other.subscriptionArn)).toEqual({ maxReceivesPerSecond: 7 });
    expect(await reconcile()).toEqual(unchanged(2, 2));
  });
});

describe('a create in flight during a run', () => {
  it('keeps its topic, whose record is not written yet, and completes', async () => {
    const portalId = freshPortal();
    // Holds the create's record write until the run is over.
    let reached!: () => void;
    const writeReached = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const name = 'hold-transact-write';
    (dynamoDbClient.middlewareStack.add as (...args: unknown[]) => void)(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
        if (/TransactWrite/.test(context.commandName ?? '')) {
          reached();
          await released;
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    removeFaults.push(() => dynamoDbClient.middlewareStack.remove(name));

    const creating = call('createSubscriptionRoute', { portalId, body: newSubscription() });
    await writeReached;
    const summary = await reconcile();
    release();
    const answer = await creating;

    expect(summary).toEqual(unchanged(1, 0, 1));
    expect(answer.statusCode).toBe(200);
    await expectAgreement();
    expect((await records())[0]!.topicArn).toBe(answer.body.record.topicArn);
  });
});

describe('a run that cannot see everything', () => {
  it('changes nothing when the table cannot be scanned: half a picture could make live topics look orphaned', async () => {
    const orphan = await handMadeTopic(60);
    const { topicArn } = await createOne(freshPortal());
    removeFaults.push(injectFault(dynamoDbClient, /Scan/));

    await expect(reconcile()).rejects.toThrow();

    expect(await topicsOfPrefix()).toEqual([orphan, topicArn].sort());
  });
});

describe('npm run reconcile', () => {
  const run = promisify(execFile);
  const reconcileCli = (...flags: string[]) =>
    run(join(process.cwd(), 'node_modules/.bin/tsx'), ['infra/local/reconcile.ts', ...flags], {
      cwd: process.cwd(),
      // The local stack's variables, pointed at this suite's emulators, table and prefix.
      env: {
        // Node 24 of the devDependency first, as npm scripts have it.
        PATH: `${join(process.cwd(), 'node_modules/.bin')}:${process.env.PATH}`,
        DELIVERY_DEAD_LETTER_QUEUE_ARN: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN,
        AWS_ENDPOINT_URL_DYNAMODB: process.env.AWS_ENDPOINT_URL_DYNAMODB,
        AWS_ENDPOINT_URL_SNS: process.env.AWS_ENDPOINT_URL_SNS,
        TABLE_NAME,
        TOPIC_PREFIX,
        // Its log lines too, as a developer sees them: in the format it picks by default.
        POWERTOOLS_LOG_LEVEL: 'INFO',
      },
      timeout: 60_000,
    });
  const summaryOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!);

  it('with --dry-run reports what it would do and changes nothing; without, does it; then finds nothing to do', async () => {
    const orphan = await handMadeTopic(60);
    const { topicArn } = await createOne(freshPortal());
    await inspectSns.send(new DeleteTopicCommand({ TopicArn: topicArn }));
    const seen = { topicsSeen: 1, recordsSeen: 1, skippedYoung: 0, subscriptionsGone: 0, errors: 0, unrecognizedTopics: [] };

    const dryRun = await reconcileCli('--dry-run');
    expect(summaryOf(dryRun.stdout)).toEqual({
      ...seen,
      wouldDeleteOrphanTopics: 1,
      wouldRepairRecords: 1,
      wouldUpdateSubscriptionStates: 0,
      wouldSetTopicPolicies: 0,
      wouldSetDeliveryPolicies: 0,
      dryRun: true,
    });
    expect(await topicsOfPrefix()).toEqual([orphan]);

    const run = await reconcileCli();
    expect(summaryOf(run.stdout)).toEqual({
      ...seen,
      orphanTopicsDeleted: 1,
      recordsRepaired: 1,
      subscriptionStatesUpdated: 0,
      topicPoliciesSet: 0,
      deliveryPoliciesSet: 0,
      dryRun: false,
    });
    await expectAgreement([], [LOCAL_SERVICE_ROLE_ARN]);

    // The recreated topic's policy is remembered: nothing to set again.
    expect(summaryOf((await reconcileCli()).stdout)).toEqual({ ...unchanged(1, 1), topicPoliciesSet: 0 });
  }, 120_000);

  it('prints a dry run’s summary once, and every log line of it says what would be done, not what was', async () => {
    const orphan = await handMadeTopic(60);
    const { topicArn } = await createOne(freshPortal());
    await inspectSns.send(new DeleteTopicCommand({ TopicArn: topicArn }));

    const { stdout, stderr } = await reconcileCli('--dry-run');

    const output = `${stdout}${stderr}`;
    const lines = stdout.trim().split('\n');
    // The summary: the last line, and nowhere else.
    expect(output.split('"topicsSeen"')).toHaveLength(2);
    expect(output.split('wouldRepairRecords')).toHaveLength(2);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ dryRun: true, wouldDeleteOrphanTopics: 1, wouldRepairRecords: 1 });
    expect(output).not.toMatch(/orphanTopicsDeleted|recordsRepaired/);
    // The log lines: one readable line per item, each saying "would".
    const logLines = lines.slice(0, -1);
    expect(logLines).toEqual([
      expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO  reconcileTopics orphan topic would be deleted topicArn=${orphan}$`)),
      expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO  reconcileTopics record would be repaired portalId=\\S+ configId=\\S+ topicArn=${topicArn}$`)),
      expect.stringMatching(/^\d\d:\d\d:\d\d INFO  reconcileTopics reconciliation summary$/),
    ]);
    expect(output).not.toMatch(/topic deleted|record repaired/);
    expect(await topicsOfPrefix()).toEqual([orphan]);
  }, 60_000);

  it('refuses an unknown option, naming it', async () => {
    await expect(reconcileCli('--dry')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('unknown option --dry') });
  }, 60_000);
});
