/**
 * The SNS emulator and a topic's access policy, through @aws-sdk/client-sns: the policy is
 * checked when set and stored as given; Publish and Subscribe are refused, as SNS refuses them,
 * when a Deny statement matches the sender, whose principal is the role its access key id names
 * (docs/local.md, "How local differs from AWS"); a topic without a policy takes anyone's.
 */
import {
  CreateTopicCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsByTopicCommand,
  PublishCommand,
  SetTopicAttributesCommand,
  SNSClient,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import { topicAccessPolicy } from '../../shared/subscriptions/topic-policy';
import { type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';

const ACCOUNT = '000000000000';
let emulator: SnsEmulator;
const clients: SNSClient[] = [];
let topics = 0;

function signingAs(accessKeyId: string): SNSClient {
  const client = new SNSClient({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId, secretAccessKey: 'any' },
    maxAttempts: 1,
  });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  emulator = await startSnsEmulator();
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await emulator.close();
});

const roleOf = (accessKeyId: string) => `arn:aws:iam::${ACCOUNT}:role/${accessKeyId}`;

function denyPublishUnless(condition: Record<string, Record<string, string[]>>, resource = '*') {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Resource: resource, Condition: condition }],
  });
}

async function topicWith(policy: string | undefined): Promise<string> {
  const { TopicArn } = await signingAs('owner').send(
    new CreateTopicCommand({ Name: `policed-${++topics}`, Attributes: policy === undefined ? undefined : { Policy: policy } }),
  );
  return TopicArn!;
}

const publishAs = (accessKeyId: string, topicArn: string) =>
  signingAs(accessKeyId).send(new PublishCommand({ TopicArn: topicArn, Message: 'hello' }));

it('stores the policy as given and shows it in GetTopicAttributes', async () => {
  const policy = denyPublishUnless({ ArnNotEquals: { 'aws:PrincipalArn': [roleOf('publisher')] } });
  const topicArn = await topicWith(policy);

  const { Attributes } = await signingAs('owner').send(new GetTopicAttributesCommand({ TopicArn: topicArn }));

  expect(Attributes?.Policy).toBe(policy);
});

it('refuses, as SNS does, a policy naming an action a topic policy cannot: the subscription and tag actions, sns:*', async () => {
  const kept = denyPublishUnless({ ArnNotEquals: { 'aws:PrincipalArn': [roleOf('publisher')] } });
  const topicArn = await topicWith(kept);
  for (const action of ['sns:Unsubscribe', 'sns:SetSubscriptionAttributes', 'sns:TagResource', 'sns:UntagResource', 'sns:*']) {
    const policy = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Deny', Principal: '*', Action: ['sns:Subscribe', action], Resource: topicArn }] });
    const outOfScope = { name: 'InvalidParameterException', message: 'Invalid parameter: Policy statement action out of service scope!' };
    await expect(signingAs('owner').send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: policy }))).rejects.toMatchObject(outOfScope);
    await expect(signingAs('owner').send(new CreateTopicCommand({ Name: `out-of-scope-${++topics}`, Attributes: { Policy: policy } }))).rejects.toMatchObject(outOfScope);
  }
  const { Attributes } = await signingAs('owner').send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
  expect(Attributes?.Policy).toBe(kept);
});

it('refuses a Publish the policy denies with AuthorizationError (403), and delivers nothing of it', async () => {
  const topicArn = await topicWith(denyPublishUnless({ ArnNotEquals: { 'aws:PrincipalArn': [roleOf('publisher')] } }));
  await signingAs('owner').send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: `arn:aws:sqs:us-east-1:${ACCOUNT}:q-${topics}` }));

  const refused = await publishAs('someone', topicArn).catch((error: unknown) => error);
  const allowed = await publishAs('publisher', topicArn);

  expect(refused).toMatchObject({
    name: 'AuthorizationErrorException',
    message: `User: ${roleOf('someone')} is not authorized to perform: SNS:Publish on resource: ${topicArn} with an explicit deny`,
    $metadata: { httpStatusCode: 403 },
  });
  const { deliveries } = (await (await fetch(`${emulator.endpoint}/_emulator/deliveries`)).json()) as {
    deliveries: { topicArn: string; type: string; messageId: string }[];
  };
  expect(deliveries.filter((delivery) => delivery.topicArn === topicArn && delivery.type === 'Notification').map((delivery) => delivery.messageId)).toEqual([
    allowed.MessageId,
  ]);
});

it.each([
  ['ArnNotLike on a pattern', { ArnNotLike: { 'aws:PrincipalArn': [`arn:aws:iam::${ACCOUNT}:role/pub*`] } }, 'publisher-2', 'other'],
  ['StringNotEquals on the account', { StringNotEquals: { 'aws:PrincipalAccount': ['111122223333'] } }, undefined, 'anyone'],
])('evaluates %s', async (_case, condition, admitted, refused) => {
  const topicArn = await topicWith(denyPublishUnless(condition));

  if (admitted) await expect(publishAs(admitted, topicArn)).resolves.toMatchObject({ MessageId: expect.any(String) });
  await expect(publishAs(refused, topicArn)).rejects.toMatchObject({ name: 'AuthorizationErrorException' });
});

it('denies when a Deny statement has a condition it cannot judge, rather than allow', async () => {
  const topicArn = await topicWith(denyPublishUnless({ IpAddressNot: { 'aws:SourceIp': ['10.0.0.0/8'] } }));

  await expect(publishAs('publisher', topicArn)).rejects.toMatchObject({ name: 'AuthorizationErrorException' });
});

it("applies a Deny only to its own resource and action", async () => {
  const other = await topicWith(undefined);
  const topicArn = await topicWith(denyPublishUnless({ ArnNotEquals: { 'aws:PrincipalArn': [roleOf('publisher')] } }, other));

  await expect(publishAs('someone', topicArn)).resolves.toMatchObject({ MessageId: expect.any(String) });
  await expect(publishAs('someone', other)).resolves.toMatchObject({ MessageId: expect.any(String) });
});

it('takes anyone\'s Publish on a topic without a policy, and after its policy was set empty', async () => {
  const topicArn = await topicWith(denyPublishUnless({ ArnNotEquals: { 'aws:PrincipalArn': [roleOf('publisher')] } }));
  await expect(publishAs('someone', topicArn)).rejects.toMatchObject({ name: 'AuthorizationErrorException' });

  await signingAs('owner').send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: '' }));

  await expect(publishAs('someone', topicArn)).resolves.toMatchObject({ MessageId: expect.any(String) });
});

it.each([
  ['not JSON', '{"Statement": '],
  ['without a Statement', '{"Version":"2012-10-17"}'],
])('refuses a policy %s with InvalidParameter, at CreateTopic and SetTopicAttributes', async (_case, policy) => {
  await expect(topicWith(policy)).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringMatching(/^Invalid parameter: Policy Error/) });
  const topicArn = await topicWith(undefined);
  await expect(
    signingAs('owner').send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: policy })),
  ).rejects.toMatchObject({ name: 'InvalidParameterException' });
});

describe("the service's topic policy (shared/subscriptions/topic-policy.ts)", () => {
  const serviceTopic = async () => {
    const name = `service-${++topics}`;
    const topicArn = `arn:aws:sns:us-east-1:${ACCOUNT}:${name}`;
    const policy = topicAccessPolicy(topicArn, [roleOf('publisher')], [roleOf('manager')]);
    const { TopicArn } = await signingAs('manager').send(new CreateTopicCommand({ Name: name, Attributes: { Policy: policy } }));
    expect(TopicArn).toBe(topicArn);
    return topicArn;
  };
  const subscribeAs = (accessKeyId: string, topicArn: string) =>
    signingAs(accessKeyId).send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: `arn:aws:sqs:us-east-1:${ACCOUNT}:tap-${accessKeyId}` }));

  it('refuses the Subscribe of a principal it does not name, even a publisher, with AuthorizationError (403), and adds no subscription', async () => {
    const topicArn = await serviceTopic();

    for (const principal of ['someone', 'publisher']) {
      await expect(subscribeAs(principal, topicArn)).rejects.toMatchObject({
        name: 'AuthorizationErrorException',
        message: `User: ${roleOf(principal)} is not authorized to perform: SNS:Subscribe on resource: ${topicArn} with an explicit deny`,
        $metadata: { httpStatusCode: 403 },
      });
    }
    const { Subscriptions } = await signingAs('manager').send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }));
    expect(Subscriptions).toEqual([]);
  });

  it("takes the Subscribe of the managers it names, and of the account's root user", async () => {
    const topicArn = await serviceTopic();

    await expect(subscribeAs('manager', topicArn)).resolves.toMatchObject({ SubscriptionArn: expect.any(String) });
    // The root user's ARN is arn:aws:iam::<account>:root; the emulator names principals role/<key>, so none is root.
    const { Attributes } = await signingAs('manager').send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
    expect(JSON.parse(Attributes!.Policy!).Statement[1].Condition.ArnNotEquals['aws:PrincipalArn']).toContain(`arn:aws:iam::${ACCOUNT}:root`);
  });

  it('takes the deny of requests not made over TLS as not applicable locally: the publisher publishes over the plain HTTP endpoint', async () => {
    const topicArn = await serviceTopic();

    await expect(publishAs('publisher', topicArn)).resolves.toMatchObject({ MessageId: expect.any(String) });
    await expect(publishAs('someone', topicArn)).rejects.toMatchObject({ name: 'AuthorizationErrorException' });
  });
});
