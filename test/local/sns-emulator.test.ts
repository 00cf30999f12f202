/**
 * The SNS emulator through @aws-sdk/client-sns: the topic actions (create, attributes, delete,
 * tags), the answers SNS would give (ARNs, attributes, tags, errors), and the Query protocol
 * itself; state that survives a restart is in sns-emulator.standalone.test.ts. Subscriptions are
 * in sns-emulator.subscriptions.test.ts, the listings in sns-emulator.listings.test.ts, Publish and PublishBatch in sns-emulator.publish.test.ts;
 * the emulator each starts and what they share is test/support/sns-emulator-suite.ts.
 * Messages to non-HTTP subscribers are only recorded; GET /_emulator/deliveries shows them.
 */
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsCommand,
  ListTagsForResourceCommand,
  ListTopicsCommand,
  PublishCommand,
  SetTopicAttributesCommand,
  SubscribeCommand,
  TagResourceCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-sns';
import { startSnsEmulator } from '../../infra/local/sns/emulator';
import {
  ACCOUNT,
  attributesOf,
  emulator,
  failureOf,
  newTopic,
  nextTopicNumber,
  recordedFor,
  REGION,
  sns,
  startEmulatorBeforeAll,
  subscribeQueue,
} from '../support/sns-emulator-suite';

startEmulatorBeforeAll();

describe('CreateTopic', () => {
  it('answers the ARN built from region, account and name', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'orders_v2-created' }));
    expect(TopicArn).toBe(`arn:aws:sns:${REGION}:${ACCOUNT}:orders_v2-created`);
  });

  it('is idempotent for the same name, and refuses the same name with different tags', async () => {
    const tags = [{ Key: 'portalId', Value: 'p1' }];
    const first = await sns.send(new CreateTopicCommand({ Name: 'idempotent', Tags: tags }));
    const again = await sns.send(new CreateTopicCommand({ Name: 'idempotent', Tags: tags }));
    const untagged = await sns.send(new CreateTopicCommand({ Name: 'idempotent' }));
    expect(again.TopicArn).toBe(first.TopicArn);
    expect(untagged.TopicArn).toBe(first.TopicArn);

    const conflict = await failureOf(
      sns.send(new CreateTopicCommand({ Name: 'idempotent', Tags: [{ Key: 'portalId', Value: 'p2' }] })),
    );
    expect(conflict.name).toBe('InvalidParameterException');
    const { Topics } = await sns.send(new ListTopicsCommand({}));
    expect(Topics!.filter((topic) => topic.TopicArn === first.TopicArn)).toHaveLength(1);
  });

  it('stores attributes and tags given at creation', async () => {
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({
        Name: 'with-extras',
        Attributes: { DisplayName: 'Orders' },
        Tags: [
          { Key: 'portalId', Value: 'p1' },
          { Key: 'configId', Value: 'c1' },
        ],
      }),
    );
    const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn }));
    expect(Attributes?.DisplayName).toBe('Orders');
    const { Tags } = await sns.send(new ListTagsForResourceCommand({ ResourceArn: TopicArn }));
    expect(Tags).toEqual([
      { Key: 'portalId', Value: 'p1' },
      { Key: 'configId', Value: 'c1' },
    ]);
  });

  it.each([
    ['a space', 'has space'],
    ['dots', 'dots.in.name'],
    ['257 characters', 'x'.repeat(257)],
    ['non-ASCII letters', 'ünïcode'],
    ['two .fifo suffixes', 'a.fifo.fifo'],
  ])('refuses a name with %s as InvalidParameter', async (_case, name) => {
    const error = await failureOf(sns.send(new CreateTopicCommand({ Name: name })));
    expect(error.name).toBe('InvalidParameterException');
    expect(error.$metadata?.httpStatusCode).toBe(400);
  });

  it('accepts 256 characters and a .fifo suffix (a FIFO topic)', async () => {
    const long = await sns.send(new CreateTopicCommand({ Name: 'a'.repeat(256) }));
    expect(long.TopicArn).toMatch(/:a{256}$/);
    const fifo = await sns.send(new CreateTopicCommand({ Name: 'events.fifo', Attributes: { FifoTopic: 'true' } }));
    expect(fifo.TopicArn).toBe(`arn:aws:sns:${REGION}:${ACCOUNT}:events.fifo`);
    const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn: fifo.TopicArn }));
    expect(Attributes?.FifoTopic).toBe('true');
  });
});

describe('GetTopicAttributes and SetTopicAttributes', () => {
  it('reports the topic, its owner and how many subscriptions are confirmed or pending', async () => {
    const topicArn = await newTopic();
    await subscribeQueue(topicArn, 'confirmed-at-once');
    await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'email', Endpoint: 'ops@example.com' }));

    const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
    expect(Attributes).toMatchObject({
      TopicArn: topicArn,
      Owner: ACCOUNT,
      DisplayName: '',
      SubscriptionsConfirmed: '1',
      SubscriptionsPending: '1',
    });
  });

  it('changes an attribute', async () => {
    const topicArn = await newTopic();
    await sns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'DisplayName', AttributeValue: 'Shown' }));
    const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
    expect(Attributes?.DisplayName).toBe('Shown');
  });

  it('reports the SignatureVersion given at creation, and refuses versions other than 1 and 2', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `sha256-${nextTopicNumber()}`, Attributes: { SignatureVersion: '2' } }));

    const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn }));
    expect(Attributes?.SignatureVersion).toBe('2');
    const refused = await failureOf(
      sns.send(new SetTopicAttributesCommand({ TopicArn, AttributeName: 'SignatureVersion', AttributeValue: '3' })),
    );
    expect(refused.name).toBe('InvalidParameterException');
    const refusedAtCreation = await failureOf(
      sns.send(new CreateTopicCommand({ Name: `sha512-${nextTopicNumber()}`, Attributes: { SignatureVersion: 'SHA512' } })),
    );
    expect(refusedAtCreation.name).toBe('InvalidParameterException');
  });

  it('answers NotFound for a topic that does not exist, InvalidParameter for a malformed ARN', async () => {
    const missing = await failureOf(
      sns.send(new GetTopicAttributesCommand({ TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:never-created` })),
    );
    expect(missing.name).toBe('NotFoundException');
    expect(missing.$metadata?.httpStatusCode).toBe(404);
    const malformed = await failureOf(sns.send(new GetTopicAttributesCommand({ TopicArn: 'not-an-arn' })));
    expect(malformed.name).toBe('InvalidParameterException');
  });
});

describe('DeleteTopic', () => {
  it('removes the topic and its subscriptions; deleting it again still succeeds', async () => {
    const topicArn = await newTopic();
    const subscriptionArn = await subscribeQueue(topicArn, 'gone-with-topic');

    await sns.send(new DeleteTopicCommand({ TopicArn: topicArn }));

    const { Topics } = await sns.send(new ListTopicsCommand({}));
    expect(Topics?.map((topic) => topic.TopicArn)).not.toContain(topicArn);
    const { Subscriptions } = await sns.send(new ListSubscriptionsCommand({}));
    expect(Subscriptions?.map((subscription) => subscription.SubscriptionArn)).not.toContain(subscriptionArn);
    expect((await failureOf(attributesOf(subscriptionArn))).name).toBe('NotFoundException');
    await expect(sns.send(new DeleteTopicCommand({ TopicArn: topicArn }))).resolves.toBeDefined();
  });
});

describe('TagResource, UntagResource, ListTagsForResource', () => {
  it('adds, replaces and removes tags', async () => {
    const topicArn = await newTopic();
    await sns.send(
      new TagResourceCommand({
        ResourceArn: topicArn,
        Tags: [
          { Key: 'portalId', Value: 'p1' },
          { Key: 'configId', Value: 'c1' },
        ],
      }),
    );
    await sns.send(new TagResourceCommand({ ResourceArn: topicArn, Tags: [{ Key: 'portalId', Value: 'p2' }] }));
    await sns.send(new UntagResourceCommand({ ResourceArn: topicArn, TagKeys: ['configId', 'never-set'] }));

    const { Tags } = await sns.send(new ListTagsForResourceCommand({ ResourceArn: topicArn }));
    expect(Tags).toEqual([{ Key: 'portalId', Value: 'p2' }]);
  });

  it('answers ResourceNotFound for a missing topic', async () => {
    const arn = `arn:aws:sns:${REGION}:${ACCOUNT}:untaggable`;
    for (const call of [
      sns.send(new TagResourceCommand({ ResourceArn: arn, Tags: [{ Key: 'k', Value: 'v' }] })),
      sns.send(new UntagResourceCommand({ ResourceArn: arn, TagKeys: ['k'] })),
      sns.send(new ListTagsForResourceCommand({ ResourceArn: arn })),
    ]) {
      const error = await failureOf(call);
      expect(error.name).toBe('ResourceNotFoundException');
      expect(error.$metadata?.httpStatusCode).toBe(404);
    }
  });

  it('refuses more than 50 tags with TagLimitExceeded', async () => {
    const topicArn = await newTopic();
    const tags = Array.from({ length: 50 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
    await sns.send(new TagResourceCommand({ ResourceArn: topicArn, Tags: tags }));
    const error = await failureOf(sns.send(new TagResourceCommand({ ResourceArn: topicArn, Tags: [{ Key: 'one-more', Value: 'v' }] })));
    expect(error.name).toBe('TagLimitExceededException');
  });
});

describe('the Query protocol itself', () => {
  it('answers an unknown action with 400 InvalidAction in SNS\'s error XML', async () => {
    const response = await fetch(emulator.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=ListFrobnicators&Version=2010-03-31',
    });
    expect(response.status).toBe(400);
    const xml = await response.text();
    expect(xml).toMatch(
      /^<\?xml version="1.0"\?>\s*<ErrorResponse xmlns="http:\/\/sns.amazonaws.com\/doc\/2010-03-31\/"><Error><Type>Sender<\/Type><Code>InvalidAction<\/Code><Message>[^<]+<\/Message><\/Error><RequestId>[0-9a-f-]{36}<\/RequestId><\/ErrorResponse>/,
    );
  });

  it('refuses unsigned requests except the confirm and unsubscribe links SNS hands out', async () => {
    const response = await fetch(emulator.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=CreateTopic&Version=2010-03-31&Name=from-a-web-page',
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('<Code>MissingAuthenticationToken</Code>');
    const { Topics } = await sns.send(new ListTopicsCommand({}));
    expect(Topics?.map((topic) => topic.TopicArn)).not.toContain(`arn:aws:sns:${REGION}:${ACCOUNT}:from-a-web-page`);

    const topicArn = await newTopic();
    const subscriptionArn = await subscribeQueue(topicArn, 'unsubscribed-by-link');
    await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'x' }));
    const [notification] = await recordedFor(subscriptionArn);
    const visit = await fetch(JSON.parse(notification!.body).UnsubscribeURL);
    expect(visit.status).toBe(200);
    expect(await visit.text()).toContain('<UnsubscribeResponse');
    expect((await failureOf(attributesOf(subscriptionArn))).name).toBe('NotFoundException');
  });

  it('escapes XML in what it answers', async () => {
    const topicArn = await newTopic();
    const display = `<b>"Tom" & 'Jerry'</b>`;
    await sns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'DisplayName', AttributeValue: display }));
    const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
    expect(Attributes?.DisplayName).toBe(display);
  });

  it('refuses nonsensical delivery settings at start', async () => {
    await expect(startSnsEmulator({ deliveryRetries: -1 })).rejects.toThrow(RangeError);
    await expect(startSnsEmulator({ deliveryBackoffMs: 1.5 })).rejects.toThrow(RangeError);
  });
});
