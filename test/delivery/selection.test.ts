/**
 * What reaches whom. The dispatcher's selection is the one rule: an event goes to the activated
 * subscriptions of its portal that list its kind, as the records say when it is published, so a
 * change applies to the very next event; no SNS subscription carries a filter policy (SNS would
 * apply a changed one only after up to 15 minutes, docs/delivery.md). `POST /test` reaches a
 * subscription whatever its events and status. And nobody but the service publishes to a
 * subscription's topic, and nobody but the service subscribes an endpoint to it: its access
 * policy denies every other principal, which the SNS emulator enforces as SNS does. Checked in what SNS holds and delivers, through the real SDK clients.
 */
import { GetSubscriptionAttributesCommand, GetTopicAttributesCommand, ListSubscriptionsByTopicCommand, PublishCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { documentClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { HTTP_DELIVERY_POLICY } from '../../shared/subscriptions/delivery-policy';
import { subscriptionRepository } from '../../shared/data/subscription-repository';
import { subscriptionTopics } from '../../shared/subscriptions/topics';
import { call, freshPortal, newSubscription } from '../support/api';
import { inspectSns, portalTopicArns, subscriptionItems } from '../support/aws-state';
import { awsCallsDuring } from '../support/aws-calls';
import { dispatchPortalEvent } from '../support/portal-events';
import { confirmAsEndpointOwner, deliveriesTo } from '../support/sns-confirmation';
import { TEST_ENV } from '../support/test-env';

const CREATE = 'asset_bank.media.create';
const UPDATED = 'asset_bank.media.updated';
const DELETED = 'asset_bank.media.deleted';
const OTHER_ACCOUNT = '111122223333';
const SERVICE_ACCOUNT = '000000000000';

async function attributesOf(subscriptionArn: string): Promise<Record<string, string>> {
  const { Attributes } = await inspectSns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
  return Attributes ?? {};
}

async function created(portalId: string, overrides: Record<string, unknown> = {}) {
  const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription(overrides) });
  expect(answer.statusCode).toBe(200);
  return answer.body.record as { configId: string; topicArn: string; subscriptionArn: string; confirmed: boolean; subscriptionState: string };
}

/** A subscription to a queue of another account, confirmed by the queue's owner. */
async function confirmedQueue(portalId: string, events: string[]) {
  const record = await created(portalId, { protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:${OTHER_ACCOUNT}:q-${portalId}`, events });
  await confirmAsEndpointOwner(record.subscriptionArn);
  return record;
}

/** The event kinds and event ids SNS handed to the subscription's endpoint, in order. */
async function notificationsTo(subscriptionArn: string): Promise<{ event: string; eventId: string }[]> {
  return (await deliveriesTo(subscriptionArn))
    .filter((delivery) => delivery.type === 'Notification')
    .map((delivery) => JSON.parse(JSON.parse(delivery.body).Message) as { event: string; eventId: string });
}


describe('create', () => {
  it('subscribes without a filter policy, with the dead-letter queue, and retries for http/https', async () => {
    const record = await created(freshPortal(), { events: [CREATE, UPDATED] });
    const attributes = await attributesOf(record.subscriptionArn);

    expect(attributes.FilterPolicy).toBeUndefined();
    expect(attributes.FilterPolicyScope).toBeUndefined();
    expect(JSON.parse(attributes.RedrivePolicy!)).toEqual({ deadLetterTargetArn: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN });
    // As SNS stores it: the policies not given are named, null (test/conformance).
    expect(JSON.parse(attributes.DeliveryPolicy!)).toEqual({ ...HTTP_DELIVERY_POLICY, sicklyRetryPolicy: null, throttlePolicy: null, guaranteed: false });
    // An https endpoint must confirm first.
    expect(record).toMatchObject({ confirmed: false, subscriptionState: 'pending' });
    expect(attributes.PendingConfirmation).toBe('true');
  });

  it.each([
    ['email', 'ops@example.com'],
    ['sqs', `arn:aws:sqs:us-east-1:${OTHER_ACCOUNT}:other-account`],
    ['lambda', `arn:aws:lambda:us-east-1:${OTHER_ACCOUNT}:function:other-account`],
  ])('gives %s (%s) no filter and no delivery policy, and it stays pending until its owner confirms', async (protocol, endpoint) => {
    const record = await created(freshPortal(), { protocol, endpoint });
    const attributes = await attributesOf(record.subscriptionArn);

    expect(attributes.FilterPolicy).toBeUndefined();
    expect(attributes.DeliveryPolicy).toBeUndefined();
    expect(JSON.parse(attributes.RedrivePolicy!).deadLetterTargetArn).toBe(TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN);
    expect(record).toMatchObject({ confirmed: false, subscriptionState: 'pending' });
    expect(attributes.PendingConfirmation).toBe('true');
  });

  it.each([
    ['sqs', `arn:aws:sqs:us-east-1:${SERVICE_ACCOUNT}:webhooks-test-delivery-dead-letters`],
    ['lambda', `arn:aws:lambda:us-east-1:${SERVICE_ACCOUNT}:function:reconcileTopics`],
  ])("refuses a %s endpoint of the service's own account (%s), making nothing", async (protocol, endpoint) => {
    const portalId = freshPortal();

    let answer;
    const calls = await awsCallsDuring(async () => (answer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol, endpoint }) })));

    expect(answer!.statusCode).toBe(400);
    expect(answer!.body).toEqual({
      success: false,
      code: 'ENDPOINT_IN_SERVICE_ACCOUNT',
      message: expect.stringMatching(new RegExp(`^The ${protocol} endpoint is in the service's own AWS account`)),
    });
    // Only the portal's rate limit is counted (its middleware runs before the operation); no SNS call.
    expect(calls).toEqual(['UpdateItemCommand']);
    expect(await subscriptionItems(portalId)).toEqual([]);
    expect(await portalTopicArns(portalId)).toEqual([]);
  });

  it("accepts an own-account endpoint where the deployment allows the service's account, and SNS confirms it itself", async () => {
    const portalId = freshPortal();
    const deps = {
      repository: subscriptionRepository(documentClient, TEST_ENV.TABLE_NAME),
      topics: subscriptionTopics(snsClient, TEST_ENV.TOPIC_PREFIX, TEST_ENV.TOPIC_PUBLISHER_ARNS.split(','), TEST_ENV.TOPIC_MANAGER_ARNS.split(',')),
      maxSubscriptionsPerPortal: 10,
      deadLetterQueueArn: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN,
      allowedEndpointAccounts: [SERVICE_ACCOUNT],
      allowLoopbackEndpoints: false,
    };
    const request = { name: 'own queue', protocol: 'sqs' as const, endpoint: `arn:aws:sqs:us-east-1:${SERVICE_ACCOUNT}:allowed`, events: [CREATE] };

    const { subscription, subscriptionState } = await createSubscription(deps, portalId, request, `arn:aws:lambda:us-east-1:${SERVICE_ACCOUNT}:function:create`);

    expect(subscriptionState).toBe('confirmed');
    expect((await attributesOf(subscription.subscriptionArn)).PendingConfirmation).toBe('false');
    // Stored so: list trusts it and asks SNS nothing.
    expect(await subscriptionItems(portalId)).toEqual([expect.objectContaining({ subscriptionState: 'confirmed' })]);
  });
});

describe('update, activate and rename', () => {
  it.each([
    ['updateSubscriptionRoute', { events: [DELETED, UPDATED] }],
    ['activateSubscriptionRoute', { status: 0 }],
    ['renameSubscriptionRoute', { name: 'Renamed' }],
  ] as const)('%s makes two AWS calls, its portal\'s rate limit token and the conditional write of the record, and leaves the SNS subscription as it was', async (operationId, change) => {
    const portalId = freshPortal();
    const { configId, subscriptionArn } = await created(portalId, { events: [CREATE] });
    const before = await attributesOf(subscriptionArn);

    let answer;
    const calls = await awsCallsDuring(async () => (answer = await call(operationId, { portalId, body: { config_id: configId, ...change } })));

    expect(answer!.statusCode).toBe(200);
    // The portal's first call of the route: its bucket is full, one UpdateItem takes the token.
    expect(calls).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
    expect((await subscriptionItems(portalId))[0]).toMatchObject(change);
    expect(await attributesOf(subscriptionArn)).toEqual(before);
    expect(before.FilterPolicy).toBeUndefined();
  });
});

describe('what the dispatcher delivers', () => {
  it('delivers an event at once after an activate; while deactivated, only test events', async () => {
    const portalId = freshPortal();
    const { configId, subscriptionArn } = await confirmedQueue(portalId, [CREATE]);
    expect((await call('activateSubscriptionRoute', { portalId, body: { config_id: configId, status: 0 } })).statusCode).toBe(200);

    const whileDeactivated = await dispatchPortalEvent(CREATE, portalId);
    expect((await call('testSubscriptionRoute', { portalId, body: { config_id: configId } })).statusCode).toBe(200);
    expect((await call('activateSubscriptionRoute', { portalId, body: { config_id: configId, status: 1 } })).statusCode).toBe(200);
    const rightAfter = await dispatchPortalEvent(CREATE, portalId);

    expect(whileDeactivated.result).toEqual({ batchItemFailures: [] });
    expect(rightAfter.result).toEqual({ batchItemFailures: [] });
    expect((await notificationsTo(subscriptionArn)).map(({ event, eventId }) => (event === 'webhooks.test' ? event : eventId))).toEqual([
      'webhooks.test',
      rightAfter.eventId,
    ]);
  });

  it('delivers a kind an update added at once, and no longer one it removed', async () => {
    const portalId = freshPortal();
    const { configId, subscriptionArn } = await confirmedQueue(portalId, [CREATE]);
    expect((await call('updateSubscriptionRoute', { portalId, body: { config_id: configId, events: [DELETED] } })).statusCode).toBe(200);

    const added = await dispatchPortalEvent(DELETED, portalId);
    await dispatchPortalEvent(CREATE, portalId);

    expect((await notificationsTo(subscriptionArn)).map(({ eventId }) => eventId)).toEqual([added.eventId]);
  });

  it("sends a kind to the portal's subscriptions that chose it, and to nobody else", async () => {
    const portalId = freshPortal();
    const chose = await confirmedQueue(portalId, [CREATE, UPDATED]);
    const didNot = await confirmedQueue(portalId, [DELETED]);
    const otherPortal = await confirmedQueue(freshPortal(), [CREATE]);

    const sent = await dispatchPortalEvent(CREATE, portalId);

    expect(await notificationsTo(chose.subscriptionArn)).toEqual([expect.objectContaining({ event: CREATE, eventId: sent.eventId })]);
    expect(await notificationsTo(didNot.subscriptionArn)).toEqual([]);
    expect(await notificationsTo(otherPortal.subscriptionArn)).toEqual([]);
  });
});

describe("who may publish to a subscription's topic", () => {
  it("refuses a Publish signed with other credentials than the service's, as SNS does (AuthorizationError, 403)", async () => {
    const portalId = freshPortal();
    const { configId, topicArn, subscriptionArn } = await confirmedQueue(portalId, [CREATE]);
    const intruder = new SNSClient({ credentials: { accessKeyId: 'intruder', secretAccessKey: 'intruder' } });

    const refused = await intruder
      .send(new PublishCommand({ TopicArn: topicArn, Message: JSON.stringify({ event: CREATE, forged: true }) }))
      .catch((error: unknown) => error as Error & { $metadata: { httpStatusCode: number } });

    expect(refused).toMatchObject({
      name: 'AuthorizationErrorException',
      message: `User: arn:aws:iam::${SERVICE_ACCOUNT}:role/intruder is not authorized to perform: SNS:Publish on resource: ${topicArn} with an explicit deny`,
      $metadata: { httpStatusCode: 403 },
    });
    // The service itself still publishes.
    expect((await call('testSubscriptionRoute', { portalId, body: { config_id: configId } })).statusCode).toBe(200);
    expect((await notificationsTo(subscriptionArn)).map(({ event }) => event)).toEqual(['webhooks.test']);
    intruder.destroy();
  });
});

describe("who may subscribe to a subscription's topic", () => {
  it("refuses a Subscribe signed by another principal of the account than the service's, as SNS does (AuthorizationError, 403), and adds no subscription", async () => {
    const portalId = freshPortal();
    const { topicArn, subscriptionArn } = await confirmedQueue(portalId, [CREATE]);
    const intruder = new SNSClient({ credentials: { accessKeyId: 'intruder', secretAccessKey: 'intruder' } });

    const refused = await intruder
      .send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: `arn:aws:sqs:us-east-1:${SERVICE_ACCOUNT}:eavesdropper` }))
      .catch((error: unknown) => error as Error & { $metadata: { httpStatusCode: number } });
    intruder.destroy();

    expect(refused).toMatchObject({
      name: 'AuthorizationErrorException',
      message: `User: arn:aws:iam::${SERVICE_ACCOUNT}:role/intruder is not authorized to perform: SNS:Subscribe on resource: ${topicArn} with an explicit deny`,
      $metadata: { httpStatusCode: 403 },
    });
    const { Subscriptions } = await inspectSns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }));
    expect(Subscriptions!.map((subscription) => subscription.SubscriptionArn)).toEqual([subscriptionArn]);
  });

  it("is held by the topic's policy: Subscribe and the topic-changing actions denied to all but the service's managers and the account root, everything denied without TLS", async () => {
    const { topicArn } = await confirmedQueue(freshPortal(), [CREATE]);

    const { Attributes } = await inspectSns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));

    const managing = ['sns:Subscribe', 'sns:SetTopicAttributes', 'sns:AddPermission', 'sns:RemovePermission', 'sns:DeleteTopic'];
    expect(JSON.parse(Attributes!.Policy!).Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Action: 'sns:Publish', Resource: topicArn }),
      {
        Sid: 'OnlyTheServiceSubscribesAndManages',
        Effect: 'Deny',
        Principal: '*',
        Action: managing,
        Resource: topicArn,
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': [...TEST_ENV.TOPIC_MANAGER_ARNS.split(','), `arn:aws:iam::${SERVICE_ACCOUNT}:root`] } },
      },
      {
        Sid: 'OnlyOverTls',
        Effect: 'Deny',
        Principal: '*',
        Action: ['sns:Publish', ...managing],
        Resource: topicArn,
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
    ]);
  });
});
