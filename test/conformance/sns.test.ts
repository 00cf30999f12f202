/**
 * The SNS emulator against SNS as recorded (recordings/sns.json: LocalStack's snapshot tests,
 * whose expected values were recorded against AWS). Each case does what the recorded test did,
 * through @aws-sdk/client-sns (or a bare GET of a SubscribeURL), and compares the answers with
 * the recording (match.ts). The summary line is printed by summary.test.ts's tally; this suite
 * prints its own share at the end.
 */
import {
  ConfirmSubscriptionCommand,
  DeleteTopicCommand,
  ListTagsForResourceCommand,
  TagResourceCommand,
  UntagResourceCommand,
  CreateTopicCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  PublishBatchCommand,
  PublishCommand,
  SetSubscriptionAttributesCommand,
  SetTopicAttributesCommand,
  SNSClient,
  SubscribeCommand,
  UnsubscribeCommand,
  type MessageAttributeValue,
} from '@aws-sdk/client-sns';
import type { Server } from 'node:http';
import { type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import { waitFor } from '../support/wait-for';
import { answer, expectConforms, type Received, recordings, type Scenario, startReceiver, tally, titleCaseHeaders, xmlAnswer } from './support';

const recorded = recordings('sns.json');
let emulator: SnsEmulator;
let sns: SNSClient;
let receiver: { url: string; received: Received[]; server: Server };
let topicCount = 0;

beforeAll(async () => {
  emulator = await startSnsEmulator({ deliveryRetries: 0 });
  // Its SubscribeURLs are https:// under the emulator's own authority (test/support/local-authority.ts).
  trustAuthorityOf(emulator);
  sns = new SNSClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  sns.destroy();
  await emulator.close();
  await new Promise((resolve) => receiver.server.close(resolve));
  console.log(
    `SNS conformance: ${tally.recorded} recorded values compared, ${tally.documented} resting on documentation alone; ` +
      `differences left as they are (docs/local.md): ${tally.leftAsIs.length ? tally.leftAsIs.join('; ') : 'none'}`,
  );
});

const newTopic = async (attributes?: Record<string, string>, suffix = '') =>
  (await sns.send(new CreateTopicCommand({ Name: `conformance-${++topicCount}${suffix}`, Attributes: attributes }))).TopicArn!;
const queueArn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;
const sqsSubscription = async (topicArn: string) =>
  (await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: queueArn(`queue-${topicCount}`), ReturnSubscriptionArn: true })))
    .SubscriptionArn!;
const bytes = (text: string) => new TextEncoder().encode(text);

/**
 * The recording with its caller, an IAM user, as the local principal that calls here: the role
 * its access key id names (docs/local.md, "How local differs from AWS").
 */
function asLocalCaller(scenario: Scenario): Scenario {
  const text = JSON.stringify(scenario).replace(/arn:<partition>:iam::111111111111:user\/<resource:\d+>/g, 'arn:<partition>:iam::111111111111:role/<caller>');
  return JSON.parse(text) as Scenario;
}

it('SetSubscriptionAttributes validates names and values', async () => {
  const SubscriptionArn = await sqsSubscription(await newTopic());
  const set = (AttributeName: string, AttributeValue: string) =>
    answer(sns.send(new SetSubscriptionAttributesCommand({ SubscriptionArn, AttributeName, AttributeValue })));
  const actual = {
    'fake-attribute': await set('FakeAttribute', 'test-value'),
    'raw-message-wrong-value': await set('RawMessageDelivery', 'test-ValUe'),
    'raw-message-empty-value': await set('RawMessageDelivery', ''),
    'fake-arn-redrive-policy': await set('RedrivePolicy', JSON.stringify({ deadLetterTargetArn: 'fake-arn' })),
    'invalid-json-redrive-policy': await set('RedrivePolicy', '{invalidjson}'),
    'invalid-json-filter-policy': await set('FilterPolicy', '{invalidjson}'),
  };
  // The parser's own words after "failed to parse JSON." are Jackson's on AWS (docs/local.md).
  const scenario = structuredClone(recorded.get('SetSubscriptionAttributes validates names and values')!);
  for (const key of ['invalid-json-redrive-policy', 'invalid-json-filter-policy'] as const) {
    const error = (scenario.values[key] as { Error: { Message: string } }).Error;
    error.Message = error.Message.replace(/failed to parse JSON\..*$/s, 'failed to parse JSON.<parser-detail>');
  }
  expectConforms(scenario, actual);
});

it('ConfirmSubscription with a wrong token', async () => {
  const topicArn = await newTopic();
  const token = '51b2ff3edb475b7d91550e0ab6edf0c1de2a34e6ebaf6c2262a001bcb7e051c43aa00022ceecce70bd2a67b2042da8d8eb47fef7a4e4e942d23e';
  const confirm = (TopicArn: string, Token: string) => answer(sns.send(new ConfirmSubscriptionCommand({ TopicArn, Token })));
  expectConforms(recorded.get('ConfirmSubscription with a wrong token'), {
    'topic-not-exists': await confirm(`${topicArn.slice(0, -1)}i`, token),
    'invalid-token': await confirm(topicArn, 'randomtoken'),
    'token-not-exists': await confirm(topicArn, token),
  });
});

it('Unsubscribe is idempotent', async () => {
  const SubscriptionArn = await sqsSubscription(await newTopic());
  expectConforms(recorded.get('Unsubscribe is idempotent'), {
    'unsubscribe-1': await answer(sns.send(new UnsubscribeCommand({ SubscriptionArn }))),
    'unsubscribe-2': await answer(sns.send(new UnsubscribeCommand({ SubscriptionArn }))),
  });
});

it('Unsubscribe with a malformed ARN', async () => {
  const unsubscribe = (SubscriptionArn?: string) => answer(sns.send(new UnsubscribeCommand({ SubscriptionArn } as { SubscriptionArn: string })));
  expectConforms(recorded.get('Unsubscribe with a malformed ARN'), {
    'invalid-unsubscribe-arn-1': await unsubscribe('randomstring'),
    'invalid-unsubscribe-arn-2': await unsubscribe('arn:aws:sns:us-east-1:random'),
    'invalid-unsubscribe-arn-3': await unsubscribe('arn:aws:sns:us-east-1:111111111111:random'),
    'invalid-unsubscribe-arn-4': await unsubscribe(undefined),
  });
});

it('Subscribe to a malformed or unknown topic ARN', async () => {
  const subscribe = (TopicArn: string) => answer(sns.send(new SubscribeCommand({ TopicArn, Protocol: 'email', Endpoint: 'someone@example.com' })));
  const topicArn = await newTopic();
  expectConforms(recorded.get('Subscribe to a malformed or unknown topic ARN'), {
    'invalid-subscribe-arn-1': await subscribe('randomstring'),
    'invalid-subscribe-arn-2': await subscribe('arn:aws:sns:us-east-1:random'),
    'non-existent-topic': await subscribe(`${topicArn}aaa`),
  });
});

it('Subscribe with an unknown protocol', async () => {
  const TopicArn = await newTopic();
  expectConforms(recorded.get('Subscribe with an unknown protocol'), {
    exception: await answer(sns.send(new SubscribeCommand({ TopicArn, Protocol: 'test-protocol', Endpoint: 'someone@example.com' }))),
  });
});

it('Subscribe again: same, default and different attributes', async () => {
  const TopicArn = await newTopic();
  const Endpoint = queueArn(`idempotency-${topicCount}`);
  const subscribe = (Attributes?: Record<string, string>) =>
    answer(sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint, ReturnSubscriptionArn: true, Attributes })));
  const first = await subscribe({ RawMessageDelivery: 'True' });
  const scenario = asLocalCaller(recorded.get('Subscribe again: same, default and different attributes')!);
  expectConforms(scenario, {
    subscribe: first,
    'get-sub-attrs': await answer(sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: first.SubscriptionArn as string }))),
    'subscribe-exact-same-raw': await subscribe({ RawMessageDelivery: 'true' }),
    'subscribe-idempotent': await subscribe({ RawMessageDelivery: 'true', FilterPolicyScope: 'MessageAttributes' }),
    'subscribe-idempotent-no-attributes': await subscribe(),
    'subscribe-idempotent-empty-attributes': await subscribe({}),
    'subscribe-missing-attributes': await subscribe({ FilterPolicyScope: 'MessageAttributes' }),
    'subscribe-diff-attributes': await subscribe({ RawMessageDelivery: 'false', FilterPolicyScope: 'MessageBody' }),
  });
});

it('Publish to a malformed topic ARN', async () => {
  const publish = (TopicArn: string) => answer(sns.send(new PublishCommand({ TopicArn, Message: 'Good news everyone!' })));
  expectConforms(recorded.get('Publish to a malformed topic ARN'), {
    'invalid-topic-arn': await publish('randomstring'),
    'invalid-topic-arn-1': await publish('randomstring:1'),
    'empty-topic': await publish(''),
  });
});

it('Publish to an unknown topic', async () => {
  const TopicArn = await newTopic();
  expectConforms(recorded.get('Publish to an unknown topic'), {
    success: await answer(sns.send(new PublishCommand({ TopicArn, Message: 'This is a test message' }))),
    error: await answer(sns.send(new PublishCommand({ TopicArn: `${TopicArn}-fake`, Message: 'This is a test message' }))),
  });
});

it('Publish an empty message', async () => {
  const TopicArn = await newTopic();
  expectConforms(recorded.get('Publish an empty message'), {
    'empty-msg-error': await answer(sns.send(new PublishCommand({ TopicArn, Message: '' }))),
  });
});

it('Publish with an empty subject', async () => {
  const TopicArn = await newTopic();
  expectConforms(recorded.get('Publish with an empty subject'), {
    'response-without-subject': await answer(sns.send(new PublishCommand({ TopicArn, Message: 'test message' }))),
    'response-with-empty-subject': await answer(sns.send(new PublishCommand({ TopicArn, Message: 'test message', Subject: '' }))),
  });
});

it('Publish with MessageStructure json', async () => {
  const TopicArn = await newTopic();
  const publish = (Message: string) => answer(sns.send(new PublishCommand({ TopicArn, Message, MessageStructure: 'json' })));
  expectConforms(recorded.get('Publish with MessageStructure json'), {
    'missing-default-key': await publish(JSON.stringify({ sqs: 'Test message' })),
    'invalid-json': await publish('{"default": "This is a default message"} }'),
    'key-is-not-string': await publish(JSON.stringify({ default: { object: 'test' } })),
  });
});

it('Message attributes SNS refuses, Publish and PublishBatch', async () => {
  const TopicArn = await newTopic();
  await sqsSubscription(TopicArn);
  const wrong: Record<string, Record<string, MessageAttributeValue>> = {
    missing_string_attr: { attr1: { DataType: 'String', StringValue: '' } },
    fully_missing_string_attr: { attr1: { DataType: 'String' } },
    fully_missing_data_type: { attr1: { StringValue: 'value' } as MessageAttributeValue },
    missing_binary_attr: { attr1: { DataType: 'Binary', BinaryValue: new Uint8Array() } },
    str_attr_binary_value: { attr1: { DataType: 'String', BinaryValue: bytes('123') } },
    int_attr_binary_value: { attr1: { DataType: 'Number', BinaryValue: bytes('123') } },
    binary_attr_string_value: { attr1: { DataType: 'Binary', StringValue: '123' } },
    invalid_attr_string_value: { attr1: { DataType: 'InvalidType', StringValue: '123' } },
    too_long_name: { ['a'.repeat(257)]: { DataType: 'String', StringValue: '123' } },
    invalid_name: { 'a^*?': { DataType: 'String', StringValue: '123' } },
    invalid_name_2: { '.abc': { DataType: 'String', StringValue: '123' } },
    invalid_name_3: { 'abc.': { DataType: 'String', StringValue: '123' } },
    invalid_name_4: { 'a..bc': { DataType: 'String', StringValue: '123' } },
  };
  const actual: Record<string, unknown> = {};
  for (const [name, MessageAttributes] of Object.entries(wrong)) {
    actual[name] = await answer(sns.send(new PublishCommand({ TopicArn, Message: 'test message', MessageAttributes })));
    actual[`batch-${name}`] = await answer(
      sns.send(
        new PublishBatchCommand({
          TopicArn,
          PublishBatchRequestEntries: [
            { Id: '1', Message: 'test-batch', MessageAttributes },
            { Id: '3', Message: 'valid-batch' },
          ],
        }),
      ),
    );
  }
  expectConforms(recorded.get('Message attributes SNS refuses, Publish and PublishBatch'), actual);
});

it('Message attribute data types with custom suffixes', async () => {
  const TopicArn = await newTopic();
  const publish = (DataType: string) =>
    answer(sns.send(new PublishCommand({ TopicArn, Message: 'test message', MessageAttributes: { attr1: { DataType, StringValue: 'prefixed-1' } } })));
  expectConforms(recorded.get('Message attribute data types with custom suffixes'), {
    'publish-error': await publish('String.'),
    'publish-error-2': await publish('Stringprefixed'),
    'publish-ok-1': await publish('String.prefixed'),
    'publish-ok-2': await publish('String.  prefixed.'),
  });
});

it('PublishBatch entry ids', async () => {
  const TopicArn = await newTopic();
  const batch = (Id: string) => answer(sns.send(new PublishBatchCommand({ TopicArn, PublishBatchRequestEntries: [{ Id, Message: 'test message' }] })));
  expectConforms(recorded.get('PublishBatch entry ids'), {
    'invalid-char-dot': await batch('message.id'),
    'invalid-char-special': await batch('msg@123#test'),
    'id-too-long-81': await batch('a'.repeat(81)),
    'id-too-long-91': await batch('myreallyreallyreallyreallyreallyreallyreallyreallyreallyreallyreallyreallyreallylongid'),
    'valid-id-80-chars': await batch('a'.repeat(80)),
    'valid-id-with-hyphen-underscore': await batch('valid-message_123'),
  });
});

it('PublishBatch refusals', async () => {
  const TopicArn = await newTopic({ FifoTopic: 'true' }, '.fifo');
  const batch = (PublishBatchRequestEntries: { Id: string; Message: string; MessageGroupId?: string; MessageStructure?: string }[]) =>
    answer(sns.send(new PublishBatchCommand({ TopicArn, PublishBatchRequestEntries })));
  expectConforms(recorded.get('PublishBatch refusals'), {
    'no-group-id': await batch([{ Id: '1', Message: 'Test message without Group ID' }]),
    'too-many-msg': await batch(Array.from({ length: 11 }, (_, i) => ({ Id: `Id_${i}`, Message: 'Too many messages' }))),
    'same-msg-id': await batch([1, 2].map(() => ({ Id: '1', Message: 'Messages with the same ID' }))),
    'no-dedup-id': await batch([{ Id: '1', Message: 'Test message without MessageDeduplicationId', MessageGroupId: 'msg1' }]),
    'no-default-key-json': await batch([{ Id: '1', Message: JSON.stringify({ sqs: 'test sqs' }), MessageStructure: 'json' }]),
  });
});

it('CreateTopic name rules', async () => {
  const create = (Name: string, Attributes?: Record<string, string>) => answer(sns.send(new CreateTopicCommand({ Name, Attributes })));
  const actual: Record<string, unknown> = {
    'valid-name-max-length': await create('a'.repeat(256)),
    'name-too-short': await create(''),
    'name-too-long': await create('a'.repeat(257)),
    'name-contains-fifo': await create('test.fifo'),
    'fifo-name-not-contains-fifo': await create('test', { FifoTopic: 'true' }),
  };
  for (const [index, character] of [':', ';', '!', '@', '|', '^', '%', ' '].entries()) {
    actual[`name-invalid-char-${index}`] = await create(`bad${character}name`);
  }
  expectConforms(recorded.get('CreateTopic name rules'), actual);
});

it('CreateTopic again with the same, fewer and different attributes', async () => {
  const Name = `idempotent-${++topicCount}`;
  const create = (Attributes?: Record<string, string>) => answer(sns.send(new CreateTopicCommand({ Name, Attributes })));
  const first = await create({ DisplayName: 'Value1' });
  const actual: Record<string, unknown> = { 'create-topic': first, 'create-topic-no-attrs': await create() };
  actual['topic-attrs'] = await answer(sns.send(new GetTopicAttributesCommand({ TopicArn: first.TopicArn as string })));
  expect((await create({ DisplayName: 'Value1' })).ResponseMetadata).toEqual({ HTTPStatusCode: 200 });
  // FifoTopic=false on a standard topic is no difference (the recorded test creates it so and goes on).
  expect((await create({ FifoTopic: 'false' })).ResponseMetadata).toEqual({ HTTPStatusCode: 200 });
  actual['create-topic-diff-attrs'] = await create({ DisplayName: 'Value2' });
  actual['create-topic-new-attrs-fifo'] = await create({ FifoTopic: 'true' });
  actual['create-topic-new-attrs'] = await create({ SignatureVersion: '2' });
  actual['create-topic-new-and-same-attrs'] = await create({ SignatureVersion: '2', DisplayName: 'Value1' });
  expectConforms(recorded.get('CreateTopic again with the same, fewer and different attributes'), actual);
});

it('A standard topic created with FifoTopic=false', async () => {
  const TopicArn = await newTopic({ FifoTopic: 'false' });
  expectConforms(recorded.get('A standard topic created with FifoTopic=false'), {
    'get-attrs-standard-topic': await answer(sns.send(new GetTopicAttributesCommand({ TopicArn }))),
    'set-fifo-false-after-creation': await answer(
      sns.send(new SetTopicAttributesCommand({ TopicArn, AttributeName: 'FifoTopic', AttributeValue: 'false' })),
    ),
  });
});

it('CreateTopic again with the same tags, a subset and none', async () => {
  const Name = `tagged-${++topicCount}`;
  const tags = [
    { Key: 'a', Value: '1' },
    { Key: 'b', Value: '2' },
  ];
  const create = (Tags: typeof tags) => answer(sns.send(new CreateTopicCommand({ Name, Tags })));
  expectConforms(recorded.get('CreateTopic again with the same tags, a subset and none'), {
    'response-created': await create(tags),
    'response-same-arn-0': await create(tags),
    'response-same-arn-1': await create([tags[0]!]),
    'response-same-arn-2': await create([]),
  });
});

it('CreateTopic again with other tags', async () => {
  const Name = `more-tags-${++topicCount}`;
  await sns.send(new CreateTopicCommand({ Name }));
  expectConforms(recorded.get('CreateTopic again with other tags'), {
    'exception-duplicate': await answer(sns.send(new CreateTopicCommand({ Name, Tags: [{ Key: 'key1', Value: 'value1' }] }))),
  });
});

it('GetTopicAttributes of a FIFO topic, an unknown and a malformed ARN', async () => {
  const TopicArn = await newTopic({ DisplayName: 'TestTopic', SignatureVersion: '2', FifoTopic: 'true' }, '.fifo');
  expectConforms(recorded.get('GetTopicAttributes of a FIFO topic, an unknown and a malformed ARN'), {
    'get-topic-attrs': await answer(sns.send(new GetTopicAttributesCommand({ TopicArn }))),
    'get-attrs-nonexistent-topic': await answer(sns.send(new GetTopicAttributesCommand({ TopicArn: `${TopicArn.slice(0, -8)}unknown1` }))),
    'get-attrs-malformed-topic': await answer(sns.send(new GetTopicAttributesCommand({ TopicArn: 'test-topic' }))),
  });
});

/** LocalStack's fixture: an http subscription with a delivery policy, raw delivery if asked (fixtures.py, sns_create_http_endpoint). */
async function httpSubscription(raw: boolean): Promise<{ topicArn: string; subscriptionArn: string; from: number }> {
  const from = receiver.received.length;
  const topicArn = await newTopic();
  const { SubscriptionArn } = await sns.send(
    new SubscribeCommand({ TopicArn: topicArn, Protocol: 'http', Endpoint: receiver.url, ReturnSubscriptionArn: true }),
  );
  const policy = {
    healthyRetryPolicy: {
      minDelayTarget: 1,
      maxDelayTarget: 1,
      numRetries: 0,
      numNoDelayRetries: 0,
      numMinDelayRetries: 0,
      numMaxDelayRetries: 0,
      backoffFunction: 'linear',
    },
    sicklyRetryPolicy: null,
    throttlePolicy: { maxReceivesPerSecond: 1000 },
    guaranteed: false,
  };
  const set = (AttributeName: string, AttributeValue: string) =>
    sns.send(new SetSubscriptionAttributesCommand({ SubscriptionArn: SubscriptionArn!, AttributeName, AttributeValue }));
  await set('DeliveryPolicy', JSON.stringify(policy));
  if (raw) await set('RawMessageDelivery', 'true');
  return { topicArn, subscriptionArn: SubscriptionArn!, from };
}

/** SNS updates a topic's subscription counts about once a minute; the emulator's are current (docs/local.md). */
const PENDING_COUNT = 'topic-attrs.Attributes.SubscriptionsPending';

const nth = (from: number, index: number) => waitFor(`delivery ${index + 1}`, () => receiver.received[from + index]);

it('An http subscription: confirmation, SubscribeURL visits, raw notification, unsubscribe', async () => {
  const { topicArn, subscriptionArn, from } = await httpSubscription(true);
  const confirmation = await nth(from, 0);
  const payload = JSON.parse(confirmation.body) as { Token: string; SubscribeURL: string };
  const visit = async (url: string) => {
    const response = await fetch(url);
    return xmlAnswer(await response.text(), response.status);
  };
  const base = payload.SubscribeURL.slice(0, payload.SubscribeURL.indexOf('/?'));
  const confirmUrl = (arn: string, token: string) => `${base}/?Action=ConfirmSubscription&TopicArn=${arn}&Token=${token}`;
  const actual: Record<string, unknown> = {
    'subscription-confirmation': confirmation.body,
    'http-confirm-sub-headers': titleCaseHeaders(confirmation.headers),
    'broken-topic-arn-confirm': await visit(confirmUrl('not-an-arn', payload.Token)),
    'broken-token-confirm': await visit(confirmUrl(topicArn, 'abc123')),
    'different-region-arn-confirm': await visit(confirmUrl(topicArn.replace('us-east-1', 'eu-central-1'), payload.Token)),
    'nonexistent-token-confirm': await visit(confirmUrl(`${topicArn.slice(0, -1)}${topicArn.endsWith('a') ? 'b' : 'a'}`, payload.Token)),
    'confirm-subscribe': await visit(payload.SubscribeURL),
  };
  await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'test_external_http_endpoint' }));
  actual['http-message-headers-raw'] = titleCaseHeaders((await nth(from, 1)).headers);
  const unsubscribed = await answer(sns.send(new UnsubscribeCommand({ SubscriptionArn: subscriptionArn })));
  actual['unsubscribe-response'] = { UnsubscribeResponse: unsubscribed };
  actual['unsubscribe-request'] = (await nth(from, 2)).body;
  expectConforms(recorded.get('An http subscription: confirmation, SubscribeURL visits, raw notification, unsubscribe'), actual);
});

it('An http subscription with a delivery policy content type', async () => {
  const { topicArn, subscriptionArn, from } = await httpSubscription(true);
  await sns.send(
    new SetSubscriptionAttributesCommand({
      SubscriptionArn: subscriptionArn,
      AttributeName: 'DeliveryPolicy',
      AttributeValue: JSON.stringify({ requestPolicy: { headerContentType: 'text/csv' } }),
    }),
  );
  const scenario = asLocalCaller(recorded.get('An http subscription with a delivery policy content type')!);
  const actual: Record<string, unknown> = {
    'topic-attrs': await answer(sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }))),
    'sub-attrs': await answer(sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }))),
  };
  const confirmation = await nth(from, 0);
  actual['subscription-confirmation'] = confirmation.body;
  actual['http-confirm-sub-headers'] = titleCaseHeaders(confirmation.headers);
  await sns.send(new ConfirmSubscriptionCommand({ TopicArn: topicArn, Token: (JSON.parse(confirmation.body) as { Token: string }).Token }));
  await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'test_external_http_endpoint' }));
  actual['http-message-headers-raw'] = titleCaseHeaders((await nth(from, 1)).headers);
  expectConforms(scenario, actual, [PENDING_COUNT]);
});

it('An http subscription of a topic with a delivery policy content type', async () => {
  const { topicArn, subscriptionArn, from } = await httpSubscription(false);
  await sns.send(
    new SetTopicAttributesCommand({
      TopicArn: topicArn,
      AttributeName: 'DeliveryPolicy',
      AttributeValue: JSON.stringify({ http: { defaultRequestPolicy: { headerContentType: 'application/json' } } }),
    }),
  );
  const scenario = asLocalCaller(recorded.get('An http subscription of a topic with a delivery policy content type')!);
  const actual: Record<string, unknown> = {
    'topic-attrs': await answer(sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }))),
    'sub-attrs': await answer(sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }))),
  };
  const confirmation = await nth(from, 0);
  await sns.send(new ConfirmSubscriptionCommand({ TopicArn: topicArn, Token: (JSON.parse(confirmation.body) as { Token: string }).Token }));
  await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'test_external_http_endpoint' }));
  const notification = await nth(from, 1);
  actual['http-message'] = notification.body;
  actual['http-message-headers'] = titleCaseHeaders(notification.headers);
  expectConforms(scenario, actual, [PENDING_COUNT]);
});

it('Subscribe an http endpoint, with and without ReturnSubscriptionArn', async () => {
  const TopicArn = await newTopic();
  // An endpoint that never confirms: a closed port (the recorded test used one it never answered).
  const subscribe = (ReturnSubscriptionArn: boolean) =>
    answer(sns.send(new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: 'http://127.0.0.1:9/never-confirms', ReturnSubscriptionArn })));
  expectConforms(recorded.get('Subscribe an http endpoint, with and without ReturnSubscriptionArn'), {
    subscription: await subscribe(false),
    'subscription-with-arn': await subscribe(true),
  });
});

it('An http subscription with a dead-letter queue (documented)', async () => {
  const { subscriptionArn } = await httpSubscription(false);
  const set = await answer(
    sns.send(
      new SetSubscriptionAttributesCommand({
        SubscriptionArn: subscriptionArn,
        AttributeName: 'RedrivePolicy',
        AttributeValue: JSON.stringify({ deadLetterTargetArn: queueArn('MyDeadLetterQueue') }),
      }),
    ),
  );
  const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
  expectConforms(recorded.get('An http subscription with a dead-letter queue'), { 'set-redrive-policy': set, 'redrive-policy': Attributes?.RedrivePolicy });
});

it('A pending subscription subscribed again (documented)', async () => {
  const TopicArn = await newTopic();
  // An endpoint that never confirms: a closed port.
  const subscribe = (ReturnSubscriptionArn?: boolean) =>
    answer(sns.send(new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: 'http://127.0.0.1:9/pending-again', ReturnSubscriptionArn })));
  const first = await subscribe(true);
  const again = await subscribe();
  const againWithArn = await subscribe(true);
  const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: first.SubscriptionArn as string }));
  expectConforms(recorded.get('A pending subscription subscribed again'), {
    subscribe: first,
    'subscribe-again': again,
    'subscribe-again-with-arn': againWithArn,
    'pending-confirmation': Attributes?.PendingConfirmation,
  });
});

it('PublishBatch answers each entry on its own (documented)', async () => {
  const TopicArn = await newTopic();
  await sqsSubscription(TopicArn);
  const batch = await answer(
    sns.send(
      new PublishBatchCommand({
        TopicArn,
        PublishBatchRequestEntries: [
          { Id: 'first', Message: 'one' },
          { Id: 'second', Message: 'two' },
        ],
      }),
    ),
  );
  expectConforms(recorded.get('PublishBatch answers each entry on its own'), { 'publish-batch': batch });
});

it('TagResource, UntagResource, ListTagsForResource', async () => {
  const ResourceArn = await newTopic();
  // The recorded test sorts the listing by key itself: SNS's order is its own.
  const listed = async () => {
    const tags = await answer(sns.send(new ListTagsForResourceCommand({ ResourceArn })));
    (tags.Tags as { Key: string }[]).sort((a, b) => a.Key.localeCompare(b.Key));
    return tags;
  };
  const actual: Record<string, unknown> = {
    'duplicate-key-error': await answer(
      sns.send(
        new TagResourceCommand({
          ResourceArn,
          Tags: [
            { Key: 'k1', Value: 'v1' },
            { Key: 'k2', Value: 'v2' },
            { Key: 'k2', Value: 'v2' },
          ],
        }),
      ),
    ),
  };
  await sns.send(new TagResourceCommand({ ResourceArn, Tags: [{ Key: 'k1', Value: 'v1' }, { Key: 'k2', Value: 'v2' }] }));
  actual['list-created-tags'] = await listed();
  await sns.send(new UntagResourceCommand({ ResourceArn, TagKeys: ['k1'] }));
  actual['list-after-delete-tags'] = await listed();
  await sns.send(new TagResourceCommand({ ResourceArn, Tags: [{ Key: 'k2', Value: 'v2b' }] }));
  actual['list-after-update-tags'] = await listed();
  expectConforms(recorded.get('TagResource, UntagResource, ListTagsForResource'), actual);
});

it('A topic made again has no tags of the deleted one', async () => {
  const Name = `retagged-${++topicCount}`;
  const { TopicArn } = await sns.send(new CreateTopicCommand({ Name }));
  await sns.send(new TagResourceCommand({ ResourceArn: TopicArn, Tags: [{ Key: 'k1', Value: 'v1' }, { Key: 'k2', Value: 'v2' }] }));
  const created = await answer(sns.send(new ListTagsForResourceCommand({ ResourceArn: TopicArn })));
  await sns.send(new DeleteTopicCommand({ TopicArn }));
  await sns.send(new CreateTopicCommand({ Name }));
  expectConforms(recorded.get('A topic made again has no tags of the deleted one'), {
    'list-created-tags': created,
    'list-empty-tags': await answer(sns.send(new ListTagsForResourceCommand({ ResourceArn: TopicArn }))),
  });
});

it('FilterPolicyScope shows only with a filter policy', async () => {
  const SubscriptionArn = await sqsSubscription(await newTopic());
  const attributes = () => answer(sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn })));
  const set = (AttributeName: string, AttributeValue: string) =>
    answer(sns.send(new SetSubscriptionAttributesCommand({ SubscriptionArn, AttributeName, AttributeValue })));
  const actual: Record<string, unknown> = { 'sub-attrs-default': await attributes() };
  await set('FilterPolicyScope', 'MessageBody');
  actual['sub-attrs-filter-scope-body'] = await attributes();
  actual['sub-attrs-filter-scope-error'] = await set('FilterPolicyScope', 'RandomValue');
  await set('FilterPolicy', JSON.stringify({ attr: ['match-this'] }));
  actual['sub-attrs-after-setting-policy'] = await attributes();
  expectConforms(asLocalCaller(recorded.get('FilterPolicyScope shows only with a filter policy')!), actual);
});
