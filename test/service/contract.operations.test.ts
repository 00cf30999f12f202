/**
 * Each operation's success path, under both path prefixes, as a client and an operator see it;
 * those of test and confirm, which reach the endpoint, are contract.test-and-confirm.test.ts.
 */
import { GetSubscriptionAttributesCommand, GetTopicAttributesCommand, ListTagsForResourceCommand } from '@aws-sdk/client-sns';
import { call, freshPortal, newSubscription } from '../support/api';
import { allTopicArns, inspectSns, subscriptionItems } from '../support/aws-state';
import { TEST_ENV } from '../support/test-env';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// The handlers never read the path: the prefix only shapes the event as API Gateway sends it.
// That every route exists under both prefixes is proven by test/infra/template/stack.ts (the CDK
// routes) and test/local/stack.api.test.ts (the gateway).
describe.each([0, 1] as const)('the operations under prefix %i', (prefix) => {
  it('create answers the record, stores it and creates its tagged topic and SNS subscription', async () => {
    const portalId = freshPortal();

    const answer = await call('createSubscriptionRoute', {
      portalId,
      prefix,
      body: newSubscription({ name: '  Media updates  ', protocol: 'HTTPS' }),
    });

    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    const { record } = answer.body;
    expect(answer.body).toEqual({ success: true, message: 'Subscription created.', record: expect.any(Object) });
    expect(record).toEqual({
      configId: expect.stringMatching(UUID_V7),
      endpoint: 'https://127.0.0.1:9/hooks/assets',
      events: ['asset_bank.media.create', 'asset_bank.media.updated'],
      name: 'Media updates',
      portalId,
      protocol: 'https',
      status: 1,
      topicArn: expect.stringMatching(new RegExp(`^arn:aws:sns:[a-z0-9-]+:\\d{12}:${TEST_ENV.TOPIC_PREFIX}-${record.configId}$`)),
      subscriptionArn: expect.stringMatching(new RegExp(`^${record.topicArn}:`)),
      // An https endpoint has not confirmed yet: SNS sends nothing to it until it does.
      confirmed: false,
      subscriptionState: 'pending',
    });

    // The record as answered is stored, with the state create set and when (`confirmed` is only its view).
    const { confirmed: _confirmed, ...storedFields } = record;
    const [stored] = await subscriptionItems(portalId);
    expect(stored).toMatchObject({ ...storedFields, portalId, subscriptionState: 'pending', subscriptionStateAt: stored!.createdAt });
    expect(stored).not.toHaveProperty('confirmed');

    const { Tags } = await inspectSns.send(new ListTagsForResourceCommand({ ResourceArn: record.topicArn }));
    expect(Tags).toEqual(
      expect.arrayContaining([
        { Key: 'portalId', Value: portalId },
        { Key: 'configId', Value: record.configId },
      ]),
    );
    const { Attributes } = await inspectSns.send(
      new GetSubscriptionAttributesCommand({ SubscriptionArn: record.subscriptionArn }),
    );
    expect(Attributes).toMatchObject({ TopicArn: record.topicArn, Protocol: 'https', Endpoint: record.endpoint });
    // Messages to the endpoint are signed with SHA256 (SNS's default is SHA1); only the service
    // may publish (the access policy); no KMS key.
    const { Attributes: topicAttributes } = await inspectSns.send(new GetTopicAttributesCommand({ TopicArn: record.topicArn }));
    expect(topicAttributes).toMatchObject({ SignatureVersion: '2' });
    expect(JSON.parse(topicAttributes!.Policy!)).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'OnlyTheServicePublishes',
          Effect: 'Deny',
          Principal: '*',
          Action: 'sns:Publish',
          Resource: record.topicArn,
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': TEST_ENV.TOPIC_PUBLISHER_ARNS.split(',') } },
        },
        // Only the service's roles (and the account's root) subscribe endpoints or change the topic.
        {
          Sid: 'OnlyTheServiceSubscribesAndManages',
          Effect: 'Deny',
          Principal: '*',
          Action: ['sns:Subscribe', 'sns:SetTopicAttributes', 'sns:AddPermission', 'sns:RemovePermission', 'sns:DeleteTopic'],
          Resource: record.topicArn,
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': [...TEST_ENV.TOPIC_MANAGER_ARNS.split(','), 'arn:aws:iam::000000000000:root'] } },
        },
        {
          Sid: 'OnlyOverTls',
          Effect: 'Deny',
          Principal: '*',
          Action: ['sns:Publish', 'sns:Subscribe', 'sns:SetTopicAttributes', 'sns:AddPermission', 'sns:RemovePermission', 'sns:DeleteTopic'],
          Resource: record.topicArn,
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        },
      ],
    });
    expect(topicAttributes).not.toHaveProperty('KmsMasterKeyId');
  });

  it('update replaces the event list, dropping duplicates in order', async () => {
    const portalId = freshPortal();
    const { body: created } = await call('createSubscriptionRoute', { portalId, prefix, body: newSubscription() });

    const answer = await call('updateSubscriptionRoute', {
      portalId,
      prefix,
      body: {
        config_id: created.record.configId,
        events: ['workflow.job.create', 'antivirus.scan.failed', 'workflow.job.create'],
      },
    });

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      message: 'Subscription events updated.',
      record: {
        configId: created.record.configId,
        events: ['workflow.job.create', 'antivirus.scan.failed'],
        portalId,
      },
    });
    const [stored] = await subscriptionItems(portalId);
    expect(stored).toMatchObject({ events: ['workflow.job.create', 'antivirus.scan.failed'], name: 'Media updates', status: 1 });
  });

  it('activate sets status 0 and back to 1, accepting configId as an alias', async () => {
    const portalId = freshPortal();
    const { body: created } = await call('createSubscriptionRoute', { portalId, prefix, body: newSubscription() });
    const configId = created.record.configId;

    const off = await call('activateSubscriptionRoute', { portalId, prefix, body: { config_id: configId, status: 0 } });
    expect(off.statusCode).toBe(200);
    expect(off.body).toEqual({ success: true, message: 'Subscription deactivated.' });
    expect((await subscriptionItems(portalId))[0]).toMatchObject({ status: 0 });

    const on = await call('activateSubscriptionRoute', { portalId, prefix, body: { configId, status: 1 } });
    expect(on.statusCode).toBe(200);
    expect(on.body).toEqual({ success: true, message: 'Subscription activated.' });
    expect((await subscriptionItems(portalId))[0]).toMatchObject({ status: 1 });
  });

  it('rename sets the trimmed name and nothing else', async () => {
    const portalId = freshPortal();
    const { body: created } = await call('createSubscriptionRoute', { portalId, prefix, body: newSubscription() });

    const answer = await call('renameSubscriptionRoute', {
      portalId,
      prefix,
      body: { config_id: created.record.configId, configId: created.record.configId, name: ' Archive feed ' },
    });

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({ success: true, message: 'Subscription renamed.' });
    const [stored] = await subscriptionItems(portalId);
    expect(stored).toMatchObject({ name: 'Archive feed', events: created.record.events, endpoint: created.record.endpoint });
  });

  it('list answers every subscription of the portal, oldest first, and the per-portal limit, ignoring any body', async () => {
    const portalId = freshPortal();
    const names = ['first', 'second', 'third'];
    const created = [];
    for (const name of names) {
      created.push((await call('createSubscriptionRoute', { portalId, prefix, body: newSubscription({ name }) })).body.record);
    }

    const answer = await call('listSubscriptionsRoute', { portalId, prefix, body: 'this is { not json' });

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      message: '3 subscriptions found.',
      configs: created.map(({ configId, name, endpoint, protocol, events }) => ({
        configId,
        name,
        endpoint,
        protocol,
        events,
        status: 1,
        confirmed: false,
        subscriptionState: 'pending',
        deadLetters: 0,
        deadLettersRetrying: 0,
        lastDeadLetterAt: null,
        deadLettersDropped: 0,
        lastDeliveredAt: null,
        lastFailedAt: null,
        deliveredLast24h: 0,
        failedLast24h: 0,
        disabledReason: null,
        disabledAt: null,
      })),
      maxSubscriptions: Number(TEST_ENV.MAX_SUBSCRIPTIONS_PER_PORTAL),
    });
  });

  it('list answers an empty list for a portal without subscriptions', async () => {
    const answer = await call('listSubscriptionsRoute', { portalId: freshPortal(), prefix });

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      message: '0 subscriptions found.',
      configs: [],
      maxSubscriptions: Number(TEST_ENV.MAX_SUBSCRIPTIONS_PER_PORTAL),
    });
  });

  it('delete removes the record, its topic and its SNS subscription, ignoring any body', async () => {
    const portalId = freshPortal();
    const { body: created } = await call('createSubscriptionRoute', { portalId, prefix, body: newSubscription() });
    const { topicArn, subscriptionArn, configId } = created.record;

    const answer = await call('deleteSubscriptionRoute', { portalId, prefix, configId, body: '{"ignored": ' });

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({ success: true, message: 'Subscription deleted.' });
    expect(await subscriptionItems(portalId)).toEqual([]);
    expect(await allTopicArns()).not.toContain(topicArn);
    await expect(inspectSns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }))).rejects.toThrow();
    await expect(
      inspectSns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn })),
    ).rejects.toThrow();
    const list = await call('listSubscriptionsRoute', { portalId, prefix });
    expect(list.body.configs).toEqual([]);
  });
});

describe('create with each protocol', () => {
  it.each([
    ['https', 'https://127.0.0.1:9/hooks?y=1'],
    ['http', 'http://127.0.0.1:9/hook'],
    ['email', 'ops@example.com'],
    ['email-json', 'ops+hooks@example.co.uk'],
    ['sqs', 'arn:aws:sqs:eu-west-1:123456789012:media-events'],
    ['lambda', 'arn:aws:lambda:eu-west-1:123456789012:function:on-media:live'],
  ])('accepts protocol %s with endpoint %s', async (protocol, endpoint) => {
    const portalId = freshPortal();

    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol, endpoint }) });

    expect(answer.statusCode).toBe(200);
    expect(answer.body.record).toMatchObject({ protocol, endpoint });
    const { Attributes } = await inspectSns.send(
      new GetSubscriptionAttributesCommand({ SubscriptionArn: answer.body.record.subscriptionArn }),
    );
    expect(Attributes).toMatchObject({ Protocol: protocol, Endpoint: endpoint });
  });
});

describe('configuration of the event catalog', () => {
  it('accepts every default event kind, and a base64-encoded body as API Gateway may send it', async () => {
    const events = [
      'asset_bank.media.create',
      'asset_bank.media.updated',
      'asset_bank.media.meta_updated',
      'asset_bank.media.deleted',
      'asset_bank.media.archived',
      'asset_bank.media.pre_archived',
      'workflow.job.create',
      'antivirus.scan.failed',
    ];
    const body = Buffer.from(JSON.stringify(newSubscription({ events }))).toString('base64');

    const answer = await call('createSubscriptionRoute', { portalId: freshPortal(), body, isBase64Encoded: true });

    expect(answer.statusCode).toBe(200);
    expect(answer.body.record.events).toEqual(events);
  });
});
