/**
 * Publish and PublishBatch on the SNS emulator through @aws-sdk/client-sns: SNS's JSON envelope
 * signed by the topic's SignatureVersion, raw delivery, filter policies, a message per protocol,
 * FIFO topics, and the limits and refusals of a batch. Messages to non-HTTP subscribers are only
 * recorded (GET /_emulator/deliveries); delivery over HTTP is sns-emulator.delivery.test.ts's.
 * What the suites share is test/support/sns-emulator-suite.ts.
 */
import { CreateTopicCommand, PublishBatchCommand, PublishCommand, SetTopicAttributesCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { fetchCertificate, verifiesWith } from '../support/sns-signature';
import {
  ACCOUNT,
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
      const name = `signed-${nextTopicNumber()}`;
      const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: name, Attributes: attributes }));
      const subscriptionArn = await subscribeQueue(TopicArn!, name);
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

