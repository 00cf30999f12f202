/**
 * The SNS emulator through @aws-sdk/client-sns: every action, the answers SNS would give
 * (ARNs, attributes, tags, listings, paging, errors), and state that survives a restart.
 * Messages to non-HTTP subscribers are only recorded; GET /_emulator/deliveries shows them.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfirmSubscriptionCommand,
  CreateTopicCommand,
  DeleteTopicCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsByTopicCommand,
  ListSubscriptionsCommand,
  ListTagsForResourceCommand,
  ListTopicsCommand,
  PublishBatchCommand,
  PublishCommand,
  SetSubscriptionAttributesCommand,
  SetTopicAttributesCommand,
  SNSClient,
  SubscribeCommand,
  TagResourceCommand,
  UnsubscribeCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-sns';
import { type RecordedDelivery, type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import { fetchCertificate, verifiesWith } from '../support/sns-signature';

const ACCOUNT = '000000000000';
const REGION = 'us-east-1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function clientFor(emulator: SnsEmulator): SNSClient {
  return new SNSClient({
    endpoint: emulator.endpoint,
    region: REGION,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

let emulator: SnsEmulator;
let sns: SNSClient;
let topicCount = 0;

beforeAll(async () => {
  emulator = await startSnsEmulator();
  trustAuthorityOf(emulator);
  sns = clientFor(emulator);
});

afterAll(async () => {
  sns.destroy();
  await emulator.close();
});

/** A topic of its own for each test, so tests do not see each other's subscriptions. */
async function newTopic(prefix = 'topic'): Promise<string> {
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `${prefix}-${++topicCount}` }));
  return TopicArn!;
}

async function recorded(target: SnsEmulator = emulator): Promise<RecordedDelivery[]> {
  const response = await fetch(`${target.endpoint}/_emulator/deliveries`);
  return ((await response.json()) as { deliveries: RecordedDelivery[] }).deliveries;
}

async function recordedFor(subscriptionArn: string): Promise<RecordedDelivery[]> {
  return (await recorded()).filter((delivery) => delivery.subscriptionArn === subscriptionArn);
}

async function subscribeQueue(topicArn: string, queue: string, attributes?: Record<string, string>): Promise<string> {
  const { SubscriptionArn } = await sns.send(
    new SubscribeCommand({
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:${queue}`,
      Attributes: attributes,
    }),
  );
  return SubscriptionArn!;
}

async function attributesOf(subscriptionArn: string): Promise<Record<string, string>> {
  return (await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }))).Attributes ?? {};
}

/** The error an SDK call fails with; fails the test if it succeeds. */
async function failureOf(promise: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

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
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `sha256-${++topicCount}`, Attributes: { SignatureVersion: '2' } }));

    const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn }));
    expect(Attributes?.SignatureVersion).toBe('2');
    const refused = await failureOf(
      sns.send(new SetTopicAttributesCommand({ TopicArn, AttributeName: 'SignatureVersion', AttributeValue: '3' })),
    );
    expect(refused.name).toBe('InvalidParameterException');
    const refusedAtCreation = await failureOf(
      sns.send(new CreateTopicCommand({ Name: `sha512-${++topicCount}`, Attributes: { SignatureVersion: 'SHA512' } })),
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

describe('Subscribe', () => {
  it('confirms sqs at once and answers its ARN, topic ARN plus a UUID', async () => {
    const topicArn = await newTopic();
    const subscriptionArn = await subscribeQueue(topicArn, 'orders');
    expect(subscriptionArn.startsWith(`${topicArn}:`)).toBe(true);
    expect(subscriptionArn.slice(topicArn.length + 1)).toMatch(UUID);
    expect(await attributesOf(subscriptionArn)).toMatchObject({
      SubscriptionArn: subscriptionArn,
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:orders`,
      Owner: ACCOUNT,
      PendingConfirmation: 'false',
      RawMessageDelivery: 'false',
    });
  });

  it.each([['http', 'http://127.0.0.1:9/hook'], ['https', 'https://127.0.0.1:9/hook'], ['email', 'a@example.com'], ['email-json', 'b@example.com']])(
    'leaves %s pending: "pending confirmation" by default, the ARN with ReturnSubscriptionArn',
    async (protocol, endpoint) => {
      const topicArn = await newTopic();
      const plain = await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: protocol, Endpoint: endpoint }));
      expect(plain.SubscriptionArn).toBe('pending confirmation');

      const withArn = await sns.send(
        new SubscribeCommand({ TopicArn: topicArn, Protocol: protocol, Endpoint: endpoint, ReturnSubscriptionArn: true }),
      );
      expect(withArn.SubscriptionArn?.startsWith(`${topicArn}:`)).toBe(true);
      expect(await attributesOf(withArn.SubscriptionArn!)).toMatchObject({
        PendingConfirmation: 'true',
        ConfirmationWasAuthenticated: 'false',
      });
    },
  );

  it('confirms lambda and sms at once', async () => {
    const topicArn = await newTopic();
    for (const [protocol, endpoint] of [
      ['lambda', `arn:aws:lambda:${REGION}:${ACCOUNT}:function:handler`],
      ['sms', '+15555550100'],
    ] as const) {
      const { SubscriptionArn } = await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: protocol, Endpoint: endpoint }));
      expect(SubscriptionArn?.startsWith(`${topicArn}:`)).toBe(true);
      expect((await attributesOf(SubscriptionArn!)).PendingConfirmation).toBe('false');
    }
  });

  it('answers the existing subscription when the same endpoint subscribes again', async () => {
    const topicArn = await newTopic();
    const first = await subscribeQueue(topicArn, 'twice');
    const second = await subscribeQueue(topicArn, 'twice');
    expect(second).toBe(first);
    const { Subscriptions } = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }));
    expect(Subscriptions).toHaveLength(1);
  });

  it('answers NotFound for a missing topic', async () => {
    const error = await failureOf(subscribeQueue(`arn:aws:sns:${REGION}:${ACCOUNT}:no-such-topic`, 'q'));
    expect(error.name).toBe('NotFoundException');
    expect(error.message).toBe('Topic does not exist');
  });

  it.each([
    ['ftp', 'ftp://example.com'],
    ['http', 'https://127.0.0.1/mismatch'],
    ['https', 'http://127.0.0.1/mismatch'],
    ['email', 'not-an-address'],
    ['sqs', 'https://sqs.us-east-1.amazonaws.com/000000000000/q'],
    ['lambda', 'my-function'],
  ])('refuses protocol %s with endpoint %s as InvalidParameter', async (protocol, endpoint) => {
    const topicArn = await newTopic();
    const error = await failureOf(sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: protocol, Endpoint: endpoint })));
    expect(error.name).toBe('InvalidParameterException');
  });
});

describe('Subscribe of an SQS FIFO queue', () => {
  const fifoQueue = `arn:aws:sqs:${REGION}:${ACCOUNT}:orders.fifo`;

  it('is refused on a standard topic with InvalidParameter, as SNS does', async () => {
    const topicArn = await newTopic();

    const error = await failureOf(sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: fifoQueue })));

    expect(error.name).toBe('InvalidParameterException');
    expect(error.message).toBe('Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics');
    expect((await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }))).Subscriptions).toEqual([]);
  });

  it('is taken by a FIFO topic', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `fifo-queues-${++topicCount}.fifo`, Attributes: { FifoTopic: 'true' } }));

    const { SubscriptionArn } = await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: fifoQueue }));

    expect(SubscriptionArn).toMatch(new RegExp(`^${TopicArn}:`));
  });
});

describe('ConfirmSubscription', () => {
  async function pendingEmail(topicArn: string, address: string) {
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn: topicArn, Protocol: 'email', Endpoint: address, ReturnSubscriptionArn: true }),
    );
    const [confirmation] = await recordedFor(SubscriptionArn!);
    expect(confirmation?.type).toBe('SubscriptionConfirmation');
    const body = JSON.parse(confirmation!.body) as { Token: string; SubscribeURL: string };
    return { subscriptionArn: SubscriptionArn!, token: body.Token, subscribeUrl: body.SubscribeURL };
  }

  it('confirms with the token (an authenticated confirmation)', async () => {
    const topicArn = await newTopic();
    const { subscriptionArn, token } = await pendingEmail(topicArn, 'confirm@example.com');

    const { SubscriptionArn } = await sns.send(new ConfirmSubscriptionCommand({ TopicArn: topicArn, Token: token }));

    expect(SubscriptionArn).toBe(subscriptionArn);
    expect(await attributesOf(subscriptionArn)).toMatchObject({ PendingConfirmation: 'false', ConfirmationWasAuthenticated: 'true' });
    const { Subscriptions } = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }));
    expect(Subscriptions?.[0]?.SubscriptionArn).toBe(subscriptionArn);
  });

  it('confirms by a plain GET of the SubscribeURL, which answers ConfirmSubscription XML', async () => {
    const topicArn = await newTopic();
    const { subscriptionArn, subscribeUrl } = await pendingEmail(topicArn, 'visit@example.com');
    expect(subscribeUrl.startsWith(`${emulator.httpsEndpoint}/?Action=ConfirmSubscription&`)).toBe(true);

    const response = await fetch(subscribeUrl);

    expect(response.status).toBe(200);
    const xml = await response.text();
    expect(xml).toContain('<ConfirmSubscriptionResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">');
    expect(xml).toContain(`<SubscriptionArn>${subscriptionArn}</SubscriptionArn>`);
    expect(await attributesOf(subscriptionArn)).toMatchObject({ PendingConfirmation: 'false', ConfirmationWasAuthenticated: 'false' });
  });

  it('answers the same paths over plain HTTP: the SubscribeURL with http:// in place of https:// confirms too', async () => {
    const topicArn = await newTopic();
    const { subscriptionArn, subscribeUrl } = await pendingEmail(topicArn, 'plain@example.com');
    const overHttp = `${emulator.endpoint}${subscribeUrl.slice(emulator.httpsEndpoint.length)}`;
    expect(overHttp).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?Action=ConfirmSubscription&/);

    expect((await fetch(overHttp)).status).toBe(200);

    expect(await attributesOf(subscriptionArn)).toMatchObject({ PendingConfirmation: 'false' });
  });

  it('refuses an unknown token with InvalidParameter, and confirms by the token whatever topic of the Region is named, as SNS does', async () => {
    const topicArn = await newTopic();
    const otherTopicArn = await newTopic();
    const { token } = await pendingEmail(topicArn, 'wrong@example.com');
    const unknown = await failureOf(sns.send(new ConfirmSubscriptionCommand({ TopicArn: topicArn, Token: 'f'.repeat(128) })));
    expect([unknown.name, unknown.message]).toEqual(['InvalidParameterException', 'Invalid parameter: Token']);
    const notAToken = await failureOf(sns.send(new ConfirmSubscriptionCommand({ TopicArn: topicArn, Token: 'not-a-token' })));
    expect([notAToken.name, notAToken.message]).toEqual(['InvalidParameterException', 'Invalid token']);
    const otherRegion = await failureOf(sns.send(new ConfirmSubscriptionCommand({ TopicArn: topicArn.replace('us-east-1', 'eu-west-1'), Token: token })));
    expect(otherRegion.message).toBe('Invalid parameter: Topic');
    // Recorded from SNS: a SubscribeURL naming another topic still confirms the token's subscription.
    const { SubscriptionArn } = await sns.send(new ConfirmSubscriptionCommand({ TopicArn: otherTopicArn, Token: token }));
    expect(SubscriptionArn).toMatch(new RegExp(`^${topicArn}:`));
  });
});

describe('Unsubscribe', () => {
  it('removes the subscription; is idempotent, as in SNS (an unknown ARN answers 200); a malformed ARN is refused', async () => {
    const topicArn = await newTopic();
    const subscriptionArn = await subscribeQueue(topicArn, 'leaving');

    await sns.send(new UnsubscribeCommand({ SubscriptionArn: subscriptionArn }));

    const { Subscriptions } = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }));
    expect(Subscriptions).toEqual([]);
    const again = await sns.send(new UnsubscribeCommand({ SubscriptionArn: subscriptionArn }));
    expect(again.$metadata.httpStatusCode).toBe(200);
    const malformed = await failureOf(sns.send(new UnsubscribeCommand({ SubscriptionArn: 'pending confirmation' })));
    expect(malformed.name).toBe('InvalidParameterException');
  });

  it('removes a subscription that is still pending, by the ARN Subscribe returned', async () => {
    const topicArn = await newTopic();
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn: topicArn, Protocol: 'email', Endpoint: 'x@example.com', ReturnSubscriptionArn: true }),
    );
    await sns.send(new UnsubscribeCommand({ SubscriptionArn }));
    expect((await failureOf(attributesOf(SubscriptionArn!))).name).toBe('NotFoundException');
  });
});

describe('GetSubscriptionAttributes and SetSubscriptionAttributes', () => {
  it('sets RawMessageDelivery and FilterPolicy, given at Subscribe or later', async () => {
    const topicArn = await newTopic();
    const subscriptionArn = await subscribeQueue(topicArn, 'raw', { RawMessageDelivery: 'true' });
    expect((await attributesOf(subscriptionArn)).RawMessageDelivery).toBe('true');

    const policy = JSON.stringify({ kind: ['asset_bank.media.create'] });
    await sns.send(
      new SetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn, AttributeName: 'FilterPolicy', AttributeValue: policy }),
    );
    await sns.send(
      new SetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn, AttributeName: 'RawMessageDelivery', AttributeValue: 'false' }),
    );
    expect(await attributesOf(subscriptionArn)).toMatchObject({
      FilterPolicy: policy,
      FilterPolicyScope: 'MessageAttributes',
      RawMessageDelivery: 'false',
    });
  });

  it.each([
    ['an unknown attribute', 'Colour', 'blue', 'sqs'],
    ['a RawMessageDelivery that is not a boolean', 'RawMessageDelivery', 'yes', 'sqs'],
    ['raw delivery for e-mail', 'RawMessageDelivery', 'true', 'email'],
    ['a FilterPolicy that is not JSON', 'FilterPolicy', '{kind:', 'sqs'],
    ['a FilterPolicy with an unknown operator', 'FilterPolicy', '{"kind":[{"regex":"a.*"}]}', 'sqs'],
  ])('refuses %s with InvalidParameter', async (_case, name, value, protocol) => {
    const topicArn = await newTopic();
    const endpoint = protocol === 'sqs' ? `arn:aws:sqs:${REGION}:${ACCOUNT}:q` : 'who@example.com';
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn: topicArn, Protocol: protocol, Endpoint: endpoint, ReturnSubscriptionArn: true }),
    );
    const error = await failureOf(
      sns.send(new SetSubscriptionAttributesCommand({ SubscriptionArn, AttributeName: name, AttributeValue: value })),
    );
    expect(error.name).toBe('InvalidParameterException');
  });

  it('answers NotFound for a subscription that does not exist', async () => {
    const topicArn = await newTopic();
    const error = await failureOf(attributesOf(`${topicArn}:00000000-0000-4000-8000-000000000000`));
    expect(error.name).toBe('NotFoundException');
  });
});

describe('ListTopics, ListSubscriptions, ListSubscriptionsByTopic', () => {
  // A fresh emulator, so the counts are exactly what this test created.
  let own: SnsEmulator;
  let client: SNSClient;
  beforeAll(async () => {
    own = await startSnsEmulator();
    trustAuthorityOf(own);
    client = clientFor(own);
  });
  afterAll(async () => {
    client.destroy();
    await own.close();
  });

  /** Every page's size and all entries, following NextToken (at most 20 pages). */
  async function allPages<T>(fetchPage: (token?: string) => Promise<{ items: T[]; next?: string }>) {
    const sizes: number[] = [];
    const items: T[] = [];
    let token: string | undefined;
    for (let page = 0; page < 20; page++) {
      const result = await fetchPage(token);
      sizes.push(result.items.length);
      items.push(...result.items);
      token = result.next;
      if (!token) return { sizes, items };
    }
    throw new Error('more than 20 pages');
  }

  it('pages by 100 with NextToken, every entry exactly once, in creation order', async () => {
    const created: string[] = [];
    for (let i = 0; i < 205; i++) {
      const { TopicArn } = await client.send(new CreateTopicCommand({ Name: `page-${String(i).padStart(3, '0')}` }));
      created.push(TopicArn!);
    }
    const topics = await allPages(async (token) => {
      const { Topics, NextToken } = await client.send(new ListTopicsCommand({ NextToken: token }));
      return { items: Topics!.map((topic) => topic.TopicArn!), next: NextToken };
    });
    expect(topics.sizes).toEqual([100, 100, 5]);
    expect(topics.items).toEqual(created);

    const topicArn = created[0]!;
    const subscribed: string[] = [];
    for (let i = 0; i < 150; i++) {
      const { SubscriptionArn } = await client.send(
        new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:q${i}` }),
      );
      subscribed.push(SubscriptionArn!);
    }
    await client.send(new SubscribeCommand({ TopicArn: created[1], Protocol: 'sqs', Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:other` }));

    const byTopic = await allPages(async (token) => {
      const { Subscriptions, NextToken } = await client.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken: token }));
      return { items: Subscriptions!, next: NextToken };
    });
    expect(byTopic.sizes).toEqual([100, 50]);
    expect(byTopic.items.map((subscription) => subscription.SubscriptionArn)).toEqual(subscribed);
    expect(byTopic.items[0]).toEqual({
      SubscriptionArn: subscribed[0],
      Owner: ACCOUNT,
      Protocol: 'sqs',
      Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:q0`,
      TopicArn: topicArn,
    });

    const everything = await allPages(async (token) => {
      const { Subscriptions, NextToken } = await client.send(new ListSubscriptionsCommand({ NextToken: token }));
      return { items: Subscriptions!, next: NextToken };
    });
    expect(everything.sizes).toEqual([100, 51]);
  });

  it('lists a pending subscription as PendingConfirmation, as SNS does', async () => {
    const { TopicArn } = await client.send(new CreateTopicCommand({ Name: 'pending-listing' }));
    await client.send(new SubscribeCommand({ TopicArn, Protocol: 'email', Endpoint: 'later@example.com' }));
    const { Subscriptions } = await client.send(new ListSubscriptionsByTopicCommand({ TopicArn }));
    expect(Subscriptions).toEqual([
      { SubscriptionArn: 'PendingConfirmation', Owner: ACCOUNT, Protocol: 'email', Endpoint: 'later@example.com', TopicArn },
    ]);
  });

  it('answers InvalidParameter for a bad NextToken and NotFound for a missing topic', async () => {
    expect((await failureOf(client.send(new ListTopicsCommand({ NextToken: 'garbage' })))).name).toBe('InvalidParameterException');
    const missing = await failureOf(
      client.send(new ListSubscriptionsByTopicCommand({ TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:missing` })),
    );
    expect(missing.name).toBe('NotFoundException');
  });
});

describe('Publish', () => {
  it('answers a MessageId and hands confirmed subscribers SNS\'s JSON envelope', async () => {
    const topicArn = await newTopic();
    const subscriptionArn = await subscribeQueue(topicArn, 'envelope');

    const { MessageId } = await sns.send(
      new PublishCommand({
        TopicArn: topicArn,
        Message: '{"kind":"asset_bank.media.create"}',
        Subject: 'Media created',
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: 'asset_bank.media.create' },
          size: { DataType: 'Number', StringValue: '42' },
        },
      }),
    );

    expect(MessageId).toMatch(UUID);
    const [delivery] = await recordedFor(subscriptionArn);
    expect(delivery).toMatchObject({ type: 'Notification', messageId: MessageId, protocol: 'sqs', topicArn });
    expect(JSON.parse(delivery!.body)).toEqual({
      Type: 'Notification',
      MessageId,
      TopicArn: topicArn,
      Subject: 'Media created',
      Message: '{"kind":"asset_bank.media.create"}',
      Timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      SignatureVersion: '1',
      Signature: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
      SigningCertURL: emulator.signingCertUrl,
      UnsubscribeURL: `${emulator.httpsEndpoint}/?Action=Unsubscribe&SubscriptionArn=${subscriptionArn}`,
      MessageAttributes: {
        kind: { Type: 'String', Value: 'asset_bank.media.create' },
        size: { Type: 'Number', Value: '42' },
      },
    });
  });

  it('signs with the hash of the topic\'s SignatureVersion: SHA1withRSA for 1, SHA256withRSA for 2, verifiable with its certificate', async () => {
    const signedMessageOf = async (attributes: Record<string, string>) => {
      const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `signed-${++topicCount}`, Attributes: attributes }));
      const subscriptionArn = await subscribeQueue(TopicArn!, `signed-${topicCount}`);
      await sns.send(new PublishCommand({ TopicArn, Message: 'signed' }));
      const [delivery] = await recordedFor(subscriptionArn);
      return JSON.parse(delivery!.body) as Record<string, string>;
    };

    const [first, second] = [await signedMessageOf({}), await signedMessageOf({ SignatureVersion: '2' })];
    expect([first.SignatureVersion, second.SignatureVersion]).toEqual(['1', '2']);
    const certificate = await fetchCertificate(first);
    expect([verifiesWith(first, certificate, 'sha1'), verifiesWith(first, certificate, 'sha256')]).toEqual([true, false]);
    expect([verifiesWith(second, certificate, 'sha256'), verifiesWith(second, certificate, 'sha1')]).toEqual([true, false]);
    expect(verifiesWith({ ...second, Message: 'forged' }, certificate, 'sha256')).toBe(false);
  });

  it('sends the bare message with RawMessageDelivery, and nothing to unconfirmed subscribers', async () => {
    const topicArn = await newTopic();
    const raw = await subscribeQueue(topicArn, 'raw', { RawMessageDelivery: 'true' });
    const { SubscriptionArn: pending } = await sns.send(
      new SubscribeCommand({ TopicArn: topicArn, Protocol: 'email', Endpoint: 'unconfirmed@example.com', ReturnSubscriptionArn: true }),
    );

    await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'just this' }));

    expect((await recordedFor(raw)).map((delivery) => delivery.body)).toEqual(['just this']);
    expect((await recordedFor(pending!)).map((delivery) => delivery.type)).toEqual(['SubscriptionConfirmation']);
  });

  it('applies a subscription\'s FilterPolicy to the message attributes', async () => {
    const topicArn = await newTopic();
    const filtered = await subscribeQueue(topicArn, 'filtered', {
      FilterPolicy: JSON.stringify({ kind: ['asset_bank.media.create', { prefix: 'workflow.' }] }),
    });
    const everything = await subscribeQueue(topicArn, 'everything');
    const kinds = ['asset_bank.media.create', 'asset_bank.media.deleted', 'workflow.job.create'];
    for (const kind of kinds) {
      await sns.send(
        new PublishCommand({ TopicArn: topicArn, Message: kind, MessageAttributes: { kind: { DataType: 'String', StringValue: kind } } }),
      );
    }
    await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'no attributes' }));

    const messagesOf = async (arn: string) => (await recordedFor(arn)).map((delivery) => JSON.parse(delivery.body).Message);
    expect(await messagesOf(filtered)).toEqual(['asset_bank.media.create', 'workflow.job.create']);
    expect(await messagesOf(everything)).toEqual([...kinds, 'no attributes']);
  });

  it('gives each protocol its own text with MessageStructure=json', async () => {
    const topicArn = await newTopic();
    const queue = await subscribeQueue(topicArn, 'structured', { RawMessageDelivery: 'true' });
    await sns.send(
      new PublishCommand({ TopicArn: topicArn, MessageStructure: 'json', Message: JSON.stringify({ default: 'for all', sqs: 'for queues' }) }),
    );
    expect((await recordedFor(queue)).map((delivery) => delivery.body)).toEqual(['for queues']);
    const noDefault = await failureOf(
      sns.send(new PublishCommand({ TopicArn: topicArn, MessageStructure: 'json', Message: JSON.stringify({ sqs: 'x' }) })),
    );
    expect(noDefault.name).toBe('InvalidParameterException');
  });

  it('answers NotFound for a missing topic and InvalidParameter for an empty or oversized message', async () => {
    const missing = await failureOf(sns.send(new PublishCommand({ TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:gone`, Message: 'x' })));
    expect(missing.name).toBe('NotFoundException');
    const topicArn = await newTopic();
    expect((await failureOf(sns.send(new PublishCommand({ TopicArn: topicArn, Message: '' })))).name).toBe('InvalidParameterException');
    const oversized = await failureOf(sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'x'.repeat(256 * 1024 + 1) })));
    expect(oversized.name).toBe('InvalidParameterException');
  });

  it('requires a MessageGroupId on a FIFO topic and answers a SequenceNumber', async () => {
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({ Name: 'ordered.fifo', Attributes: { FifoTopic: 'true', ContentBasedDeduplication: 'true' } }),
    );
    const missingGroup = await failureOf(sns.send(new PublishCommand({ TopicArn, Message: 'x' })));
    expect(missingGroup.name).toBe('InvalidParameterException');
    const first = await sns.send(new PublishCommand({ TopicArn, Message: 'a', MessageGroupId: 'g' }));
    const second = await sns.send(new PublishCommand({ TopicArn, Message: 'b', MessageGroupId: 'g' }));
    expect(first.SequenceNumber).toMatch(/^\d{20}$/);
    expect(BigInt(second.SequenceNumber!)).toBeGreaterThan(BigInt(first.SequenceNumber!));
  });
});

describe('PublishBatch', () => {
  /** `count` entries with ids `e1`, `e2`, ..., each message its id unless `message` says otherwise. */
  const entries = (count: number, message = (id: string) => id) =>
    Array.from({ length: count }, (_, index) => ({
      Id: `e${index + 1}`,
      Message: message(`e${index + 1}`),
      MessageAttributes: { event: { DataType: 'String', StringValue: 'asset_bank.media.create' } },
    }));

  it('publishes up to 10 messages in one call, answering each Id with its MessageId, in the order sent', async () => {
    const topicArn = await newTopic();
    const queue = await subscribeQueue(topicArn, 'batched');

    const { Successful, Failed } = await sns.send(new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: entries(10) }));

    expect(Failed).toEqual([]);
    expect(Successful!.map((entry) => entry.Id)).toEqual(entries(10).map((entry) => entry.Id));
    for (const entry of Successful!) expect(entry.MessageId).toMatch(UUID);
    const delivered = (await recordedFor(queue)).map((delivery) => JSON.parse(delivery.body));
    expect(delivered.map((body) => [body.MessageId, body.Message])).toEqual(Successful!.map((entry) => [entry.MessageId, entry.Id]));
    // Each entry carries its own attributes, as a Publish does.
    for (const body of delivered) expect(body.MessageAttributes).toEqual({ event: { Type: 'String', Value: 'asset_bank.media.create' } });
  });

  it('refuses, publishing nothing: more than 10 entries, none, duplicate Ids, an Id SNS does not take, a total over 256 KiB', async () => {
    const topicArn = await newTopic();
    const queue = await subscribeQueue(topicArn, 'refused');
    const refusal = async (entriesOfBatch: { Id: string; Message: string }[]) =>
      failureOf(sns.send(new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: entriesOfBatch })));

    expect((await refusal(entries(11))).name).toBe('TooManyEntriesInBatchRequestException');
    expect((await refusal([])).name).toBe('EmptyBatchRequestException');
    expect((await refusal([...entries(2), { Id: 'e1', Message: 'again' }])).name).toBe('BatchEntryIdsNotDistinctException');
    for (const id of ['has space', 'x'.repeat(81), 'dot.ted', '']) {
      expect((await refusal([{ Id: id, Message: 'x' }])).name).toBe('InvalidBatchEntryIdException');
    }
    const longest = await sns.send(
      new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: [{ Id: `${'x'.repeat(78)}-_`, Message: 'at the limits of an Id' }] }),
    );
    expect(longest.Successful).toHaveLength(1);
    // Each entry within SNS's limit, the sum over it: 4 x 64 KiB plus their attributes.
    const tooLong = await refusal(entries(4, () => 'x'.repeat(64 * 1024)));
    expect(tooLong).toMatchObject({ name: 'BatchRequestTooLongException', message: 'The length of all the messages put together is more than the limit.' });
    // A malformed entry fails the whole batch, as SNS's Publish checks would fail it alone.
    expect((await refusal([...entries(2), { Id: 'e3', Message: '' }])).name).toBe('InvalidParameterException');

    expect((await recordedFor(queue)).map((delivery) => JSON.parse(delivery.body).Message)).toEqual(['at the limits of an Id']);
  });

  it('takes a total of exactly 256 KiB, counted as Publish counts each message (body and attributes)', async () => {
    const topicArn = await newTopic();
    const attributeBytes = 'event'.length + 'String'.length + 'asset_bank.media.create'.length;
    const body = (256 * 1024) / 4 - attributeBytes;
    const { Successful } = await sns.send(new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: entries(4, () => 'x'.repeat(body)) }));
    expect(Successful).toHaveLength(4);
  });

  it('answers NotFound for a missing topic, and AuthorizationError when the topic policy denies Publish (the action PublishBatch is authorized as)', async () => {
    const missing = await failureOf(sns.send(new PublishBatchCommand({ TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:gone`, PublishBatchRequestEntries: entries(1) })));
    expect(missing.name).toBe('NotFoundException');

    const topicArn = await newTopic();
    const queue = await subscribeQueue(topicArn, 'denied');
    const policy = { Version: '2012-10-17', Statement: [{ Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Resource: topicArn }] };
    await sns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: JSON.stringify(policy) }));
    const denied = await failureOf(sns.send(new PublishBatchCommand({ TopicArn: topicArn, PublishBatchRequestEntries: entries(2) })));
    expect(denied).toMatchObject({ name: 'AuthorizationErrorException', $metadata: { httpStatusCode: 403 } });
    expect(await recordedFor(queue)).toEqual([]);
  });

  it('requires a MessageGroupId of every entry on a FIFO topic, and answers each a SequenceNumber in the order sent', async () => {
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({ Name: 'batched.fifo', Attributes: { FifoTopic: 'true', ContentBasedDeduplication: 'true' } }),
    );
    const grouped = entries(3).map((entry) => ({ ...entry, MessageGroupId: 'g' }));
    const missingGroup = await failureOf(
      sns.send(new PublishBatchCommand({ TopicArn, PublishBatchRequestEntries: [...grouped, { Id: 'ungrouped', Message: 'x' }] })),
    );
    expect(missingGroup.name).toBe('InvalidParameterException');
    const { Successful } = await sns.send(new PublishBatchCommand({ TopicArn, PublishBatchRequestEntries: grouped }));
    const sequence = Successful!.map((entry) => BigInt(entry.SequenceNumber!));
    expect(sequence).toEqual([...sequence].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(sequence).size).toBe(3);
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

describe('persistence (stateFile)', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'sns-emulator-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps topics, subscriptions, attributes, tags and confirmation tokens across a restart', async () => {
    const stateFile = join(directory, 'nested', 'sns.json');
    const first = await startSnsEmulator({ stateFile });
    trustAuthorityOf(first);
    const firstClient = clientFor(first);
    const { TopicArn } = await firstClient.send(
      new CreateTopicCommand({ Name: 'durable', Tags: [{ Key: 'portalId', Value: 'p1' }], Attributes: { DisplayName: 'Durable' } }),
    );
    const { SubscriptionArn: queueArn } = await firstClient.send(
      new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:durable`, Attributes: { RawMessageDelivery: 'true' } }),
    );
    const { SubscriptionArn: emailArn } = await firstClient.send(
      new SubscribeCommand({ TopicArn, Protocol: 'email', Endpoint: 'durable@example.com', ReturnSubscriptionArn: true }),
    );
    const confirmation = (await recorded(first)).find((delivery) => delivery.subscriptionArn === emailArn);
    const { Token } = JSON.parse(confirmation!.body) as { Token: string };
    firstClient.destroy();
    await first.close();

    const saved = JSON.parse(await readFile(stateFile, 'utf8'));
    expect(saved.topics.map((topic: { arn: string }) => topic.arn)).toEqual([TopicArn]);
    expect((await readdir(join(directory, 'nested'))).filter((name) => name !== 'sns.json')).toEqual([]);

    const second = await startSnsEmulator({ stateFile });
    trustAuthorityOf(second);
    const secondClient = clientFor(second);
    try {
      const { Topics } = await secondClient.send(new ListTopicsCommand({}));
      expect(Topics).toEqual([{ TopicArn }]);
      expect((await secondClient.send(new ListTagsForResourceCommand({ ResourceArn: TopicArn }))).Tags).toEqual([
        { Key: 'portalId', Value: 'p1' },
      ]);
      expect((await secondClient.send(new GetTopicAttributesCommand({ TopicArn }))).Attributes?.DisplayName).toBe('Durable');
      const { Attributes } = await secondClient.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: queueArn }));
      expect(Attributes).toMatchObject({ Protocol: 'sqs', RawMessageDelivery: 'true', PendingConfirmation: 'false' });

      // The token mailed before the restart still confirms.
      const confirmed = await secondClient.send(new ConfirmSubscriptionCommand({ TopicArn, Token }));
      expect(confirmed.SubscriptionArn).toBe(emailArn);

      // New ARNs never collide with old ones, and listings keep creation order.
      const { TopicArn: later } = await secondClient.send(new CreateTopicCommand({ Name: 'after-restart' }));
      expect((await secondClient.send(new ListTopicsCommand({}))).Topics).toEqual([{ TopicArn }, { TopicArn: later }]);
      await secondClient.send(new DeleteTopicCommand({ TopicArn }));
    } finally {
      secondClient.destroy();
      await second.close();
    }

    const third = await startSnsEmulator({ stateFile });
    trustAuthorityOf(third);
    const thirdClient = clientFor(third);
    try {
      expect((await thirdClient.send(new ListTopicsCommand({}))).Topics?.map((topic) => topic.TopicArn)).toEqual([
        `arn:aws:sns:${REGION}:${ACCOUNT}:after-restart`,
      ]);
      expect((await thirdClient.send(new ListSubscriptionsCommand({}))).Subscriptions).toEqual([]);
    } finally {
      thirdClient.destroy();
      await third.close();
    }
  });

  it('refuses to start on a state file that is not its JSON, rather than overwrite it', async () => {
    const stateFile = join(directory, 'corrupt.json');
    await writeFile(stateFile, '{not json');
    await expect(startSnsEmulator({ stateFile })).rejects.toThrow(/corrupt\.json/);
    expect(await readFile(stateFile, 'utf8')).toBe('{not json');
  });
});
