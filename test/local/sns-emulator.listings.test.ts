/**
 * The SNS emulator's listings through @aws-sdk/client-sns: ListTopics, ListSubscriptions and
 * ListSubscriptionsByTopic, paged by 100 with NextToken as SNS pages them, on an emulator of
 * their own so that the counts are exactly what the test created.
 */
import { CreateTopicCommand, ListSubscriptionsByTopicCommand, ListSubscriptionsCommand, ListTopicsCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import { ACCOUNT, clientFor, failureOf, REGION } from '../support/sns-emulator-suite';

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
