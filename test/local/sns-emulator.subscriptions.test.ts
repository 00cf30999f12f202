/**
 * The SNS emulator's subscriptions through @aws-sdk/client-sns: Subscribe (confirmed at once or
 * pending, by protocol), SQS FIFO queues, ConfirmSubscription by token or SubscribeURL,
 * Unsubscribe and subscription attributes. The listings with their paging are in
 * sns-emulator.listings.test.ts, the topic actions in sns-emulator.test.ts; what the suites share is test/support/sns-emulator-suite.ts.
 */
import {
  ConfirmSubscriptionCommand,
  CreateTopicCommand,
  ListSubscriptionsByTopicCommand,
  SetSubscriptionAttributesCommand,
  SubscribeCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
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
  UUID,
} from '../support/sns-emulator-suite';

startEmulatorBeforeAll();

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
    // "Invalid parameter: " twice, as recorded (test/conformance/recordings/sns.json).
    expect(error.message).toBe('Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics');
    expect((await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }))).Subscriptions).toEqual([]);
  });

  it('is taken by a FIFO topic', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `fifo-queues-${nextTopicNumber()}.fifo`, Attributes: { FifoTopic: 'true' } }));

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

  it.each([
    ['a RawMessageDelivery that is not a boolean', 'RawMessageDelivery', 'yes', 'RawMessageDelivery: Invalid value [yes]. Must be true or false.'],
    ['a FilterPolicy with an unknown operator', 'FilterPolicy', '{"kind":[{"regex":"a.*"}]}', 'FilterPolicy: Unrecognized match type regex'],
    ['a RedrivePolicy whose target is no ARN', 'RedrivePolicy', '{"deadLetterTargetArn":"fake-arn"}', 'RedrivePolicy: deadLetterTargetArn is an invalid arn'],
  ])('refuses %s at Subscribe under "Attributes Reason", as SNS does (test/conformance/recordings/sns.json)', async (_case, name, value, reason) => {
    const topicArn = await newTopic();
    const error = await failureOf(
      sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: `arn:aws:sqs:${REGION}:${ACCOUNT}:q`, Attributes: { [name]: value } })),
    );
    expect(error.name).toBe('InvalidParameterException');
    expect(error.message).toBe(`Invalid parameter: Attributes Reason: ${reason}`);
  });

  it('answers NotFound for a subscription that does not exist', async () => {
    const topicArn = await newTopic();
    const error = await failureOf(attributesOf(`${topicArn}:00000000-0000-4000-8000-000000000000`));
    expect(error.name).toBe('NotFoundException');
  });
});
