/**
 * What the reconciler keeps of each SNS subscription and its topic. An endpoint whose
 * subscription is gone while its topic exists left, and is not brought back behind its owner's
 * back. Each record gets the state ListSubscriptions shows for its subscription, so list (which
 * trusts a stored `confirmed`) shows a lapse from the next run on. A topic's access policy and a
 * subscription's delivery policy changed behind the service's back are set again. Records and
 * topics themselves: reconciliation.test.ts.
 *
 * The suite has a table and a topic prefix of its own (support/reconciliation.ts) and empties
 * both before each test, so every summary is exact.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  GetTopicAttributesCommand,
  ListSubscriptionsByTopicCommand,
  SetSubscriptionAttributesCommand,
  SetTopicAttributesCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import { TEST_ENV } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

process.env.TABLE_NAME = 'webhook-subscriptions-reconciliation-subscriptions';
process.env.TOPIC_PREFIX = 'webhooks-reconciling-subscriptions';

// The helpers and the functions read TABLE_NAME and TOPIC_PREFIX when imported: after they are set above.
const {
  TABLE_NAME,
  TOPIC_PREFIX,
  MINUTE,
  GRACE_MS,
  inspectDb,
  inspectSns,
  reconcile,
  unchanged,
  records,
  subscriptionAttributes,
  expectAgreement,
  createOne,
  emptyTableAndTopics,
} = await import('../support/reconciliation');
const { call, freshPortal } = await import('../support/api');
const { reconcileTopics } = await import('../../shared/reconciliation/reconcile');
const { documentClient } = await import('../../shared/aws/dynamodb');
const { snsClient } = await import('../../shared/aws/sns');
const { subscriptionRepository } = await import('../../shared/data/subscription-repository');
const { subscriptionTopics } = await import('../../shared/subscriptions/topics');
const { HTTP_DELIVERY_POLICY } = await import('../../shared/subscriptions/delivery-policy');
const { topicAccessPolicy } = await import('../../shared/subscriptions/topic-policy');

beforeEach(emptyTableAndTopics);

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

describe('subscription settings changed by another principal of the account (a topic policy cannot deny SetSubscriptionAttributes)', () => {
  it('are set back in one run: the redrive to the service\'s dead-letter queue, the retries, no raw delivery, no filter; the next run finds nothing', async () => {
    const { subscriptionArn } = await createOne(freshPortal());
    const set = (name: string, value: string) =>
      inspectSns.send(new SetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn, AttributeName: name, AttributeValue: value }));
    // Dead letters repointed to the attacker's queue, messages raw (no longer SNS-signed), retries gone, events filtered away.
    await set('RedrivePolicy', JSON.stringify({ deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:attackers-queue' }));
    await set('RawMessageDelivery', 'true');
    await set('DeliveryPolicy', JSON.stringify({ healthyRetryPolicy: { numRetries: 0, minDelayTarget: 1, maxDelayTarget: 1 } }));
    await set('FilterPolicy', JSON.stringify({ nothing: ['matches'] }));

    expect(await reconcile({ dryRun: true })).toMatchObject({ wouldSetDeliveryPolicies: 1, wouldSetSubscriptionSettings: 1, errors: 0 });
    expect(JSON.parse((await subscriptionAttributes(subscriptionArn))!.RedrivePolicy!).deadLetterTargetArn).toContain('attackers-queue');

    expect(await reconcile()).toEqual({ ...unchanged(1, 1), deliveryPoliciesSet: 1, subscriptionSettingsSet: 1 });
    expect(await subscriptionAttributes(subscriptionArn)).toMatchObject({ RawMessageDelivery: 'false' });
    await expectAgreement();
    expect(await reconcile()).toEqual(unchanged(1, 1));
  });
});

describe('the window of subscriptions a run reads', () => {
  it('is every subscription up to the limit; beyond it, consecutive 15-minute runs read every one in turn', async () => {
    const { windowOf } = await import('../../shared/reconciliation/subscription-settings');
    const subscriptions = ['a', 'b', 'c', 'd', 'e'].map((configId) => ({ configId }) as Parameters<typeof windowOf>[0][number]);
    expect(windowOf(subscriptions, 0, 5)).toHaveLength(5);
    const read = new Set([0, 1].flatMap((run) => windowOf(subscriptions, run * 15 * MINUTE, 3).map(({ configId }) => configId)));
    expect([...read].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
