/**
 * The SNS emulator against SNS as recorded (recordings/sns.json: LocalStack's snapshot tests,
 * whose expected values were recorded against AWS): topics, their attributes and tags, Publish
 * and PublishBatch. Subscriptions are compared in sns.subscriptions.test.ts; what the two share
 * is sns-support.ts. Each case does what the recorded test did, through @aws-sdk/client-sns, and
 * compares the answers with the recording (match.ts). This suite prints its own share of the
 * tally at the end.
 */
import {
  DeleteTopicCommand,
  ListTagsForResourceCommand,
  TagResourceCommand,
  UntagResourceCommand,
  CreateTopicCommand,
  GetTopicAttributesCommand,
  PublishBatchCommand,
  PublishCommand,
  SetTopicAttributesCommand,
  type MessageAttributeValue,
} from '@aws-sdk/client-sns';
import { bytes, newTopic, nextTopicNumber, recorded, sns, sqsSubscription, startEmulatorBeforeAll } from './sns-support';
import { answer, expectConforms } from './support';

startEmulatorBeforeAll();

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
  const Name = `idempotent-${nextTopicNumber()}`;
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
  const Name = `tagged-${nextTopicNumber()}`;
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
  const Name = `more-tags-${nextTopicNumber()}`;
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
  const Name = `retagged-${nextTopicNumber()}`;
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

