/**
 * The SNS emulator delivering to http endpoints the way SNS does: a SubscriptionConfirmation
 * first, Notifications only once confirmed, an UnsubscribeConfirmation once unsubscribed, each
 * signed (verified as test/support/sns-signature.ts does), SNS's JSON and x-amz-sns-* headers.
 * An endpoint that fails is in sns-emulator.retries.test.ts; what becomes of a delivery that
 * does not go through is in sns-emulator.dead-letters.test.ts; the emulator each starts and
 * what they share is test/support/sns-delivery-suite.ts. The endpoints are local receivers on 127.0.0.1.
 */
import { waitFor } from '../support/wait-for';
import {
  GetSubscriptionAttributesCommand,
  PublishCommand,
  SetSubscriptionAttributesCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import { snsSignatureVerifies } from '../support/sns-signature';
import {
  confirmedSubscription,
  emulator,
  newTopic,
  ofType,
  receiver,
  recorded,
  sns,
  startDeliveryEmulatorBeforeAll,
  subscribeHttp,
} from '../support/sns-delivery-suite';

startDeliveryEmulatorBeforeAll();

describe('an http subscription', () => {
  it('gets a SubscriptionConfirmation, confirms by SubscribeURL, then gets Notifications, none before', async () => {
    const endpoint = await receiver();
    const topicArn = await newTopic();

    const subscriptionArn = await subscribeHttp(topicArn, `${endpoint.url}/sns/hook?source=test`);

    const confirmation = await waitFor('the confirmation', () => endpoint.received[0]);
    expect(confirmation.method).toBe('POST');
    expect(confirmation.path).toBe('/sns/hook?source=test');
    expect(confirmation.headers).toMatchObject({
      'x-amz-sns-message-type': 'SubscriptionConfirmation',
      'x-amz-sns-message-id': confirmation.json?.MessageId,
      'x-amz-sns-topic-arn': topicArn,
      'content-type': 'text/plain; charset=UTF-8',
    });
    expect(confirmation.json).toEqual({
      Type: 'SubscriptionConfirmation',
      MessageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      Token: expect.stringMatching(/^[0-9a-f]{64,}$/),
      TopicArn: topicArn,
      Message: expect.stringContaining(topicArn),
      SubscribeURL: expect.stringMatching(new RegExp(`^${emulator.httpsEndpoint}/\\?Action=ConfirmSubscription&TopicArn=`)),
      Timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      SignatureVersion: '1',
      Signature: expect.any(String),
      SigningCertURL: emulator.signingCertUrl,
    });
    expect(await snsSignatureVerifies(confirmation.json!)).toBe(true);
    const subscribeUrl = new URL(confirmation.json!.SubscribeURL);
    expect(subscribeUrl.searchParams.get('TopicArn')).toBe(topicArn);
    expect(subscribeUrl.searchParams.get('Token')).toBe(confirmation.json!.Token);

    // Published while still pending: SNS drops it for this subscriber.
    const early = await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'too early' }));

    const visit = await fetch(confirmation.json!.SubscribeURL);
    expect(visit.status).toBe(200);
    expect(await visit.text()).toContain(`<SubscriptionArn>${subscriptionArn}</SubscriptionArn>`);
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
    expect(Attributes?.PendingConfirmation).toBe('false');

    const { MessageId } = await sns.send(
      new PublishCommand({
        TopicArn: topicArn,
        Message: '{"event":"asset_bank.media.create"}',
        Subject: 'Media created',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'asset_bank.media.create' } },
      }),
    );

    const notification = await waitFor('the notification', () => ofType(endpoint, 'Notification')[0]);
    expect(notification.method).toBe('POST');
    expect(notification.headers).toMatchObject({
      'x-amz-sns-message-type': 'Notification',
      'x-amz-sns-message-id': MessageId,
      'x-amz-sns-topic-arn': topicArn,
      'x-amz-sns-subscription-arn': subscriptionArn,
      'content-type': 'text/plain; charset=UTF-8',
    });
    expect(notification.json).toEqual({
      Type: 'Notification',
      MessageId,
      TopicArn: topicArn,
      Subject: 'Media created',
      Message: '{"event":"asset_bank.media.create"}',
      Timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      SignatureVersion: '1',
      Signature: expect.any(String),
      SigningCertURL: emulator.signingCertUrl,
      UnsubscribeURL: `${emulator.httpsEndpoint}/?Action=Unsubscribe&SubscriptionArn=${subscriptionArn}`,
      MessageAttributes: { kind: { Type: 'String', Value: 'asset_bank.media.create' } },
    });
    expect(await snsSignatureVerifies(notification.json!)).toBe(true);
    // The message published before confirmation never came, and was never handed over.
    expect(endpoint.received.map((request) => request.headers['x-amz-sns-message-type'])).toEqual([
      'SubscriptionConfirmation',
      'Notification',
    ]);
    expect((await recorded()).some((delivery) => delivery.messageId === early.MessageId)).toBe(false);
  });

  it('gets the bare message with RawMessageDelivery, and no Subject field when none was given', async () => {
    const endpoint = await receiver();
    const topicArn = await newTopic();
    const subscriptionArn = await confirmedSubscription(endpoint, topicArn);

    await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'enveloped' }));
    const enveloped = await waitFor('the enveloped notification', () => ofType(endpoint, 'Notification')[0]);
    expect(enveloped.json?.Message).toBe('enveloped');
    expect(enveloped.json).not.toHaveProperty('Subject');
    expect(enveloped.json).not.toHaveProperty('MessageAttributes');

    await sns.send(
      new SetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn, AttributeName: 'RawMessageDelivery', AttributeValue: 'true' }),
    );
    const { MessageId } = await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'raw body' }));
    const raw = await waitFor('the raw notification', () => ofType(endpoint, 'Notification')[1]);
    expect(raw.body).toBe('raw body');
    expect(raw.headers).toMatchObject({ 'x-amz-sns-message-id': MessageId, 'x-amz-sns-subscription-arn': subscriptionArn });
  });
  it('gets a signed UnsubscribeConfirmation once unsubscribed (by its UnsubscribeURL or the API), and nothing after', async () => {
    for (const how of ['UnsubscribeURL', 'Unsubscribe'] as const) {
      const endpoint = await receiver();
      const topicArn = await newTopic();
      const subscriptionArn = await confirmedSubscription(endpoint, topicArn);
      await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'before' }));
      const notification = await waitFor('the notification', () => ofType(endpoint, 'Notification')[0]);

      if (how === 'UnsubscribeURL') expect((await fetch(notification.json!.UnsubscribeURL)).status).toBe(200);
      else await sns.send(new UnsubscribeCommand({ SubscriptionArn: subscriptionArn }));

      const goodbye = await waitFor('the unsubscribe confirmation', () => ofType(endpoint, 'UnsubscribeConfirmation')[0]);
      expect(goodbye.headers).toMatchObject({ 'x-amz-sns-topic-arn': topicArn, 'x-amz-sns-subscription-arn': subscriptionArn });
      expect(goodbye.json).toEqual({
        Type: 'UnsubscribeConfirmation',
        MessageId: goodbye.headers['x-amz-sns-message-id'],
        Token: expect.stringMatching(/^[0-9a-f]{64,}$/),
        TopicArn: topicArn,
        Message: `You have chosen to deactivate subscription ${subscriptionArn}.\nTo cancel this operation and restore the subscription, visit the SubscribeURL included in this message.`,
        SubscribeURL: expect.stringMatching(new RegExp(`^${emulator.httpsEndpoint}/\\?Action=ConfirmSubscription&TopicArn=`)),
        Timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        SignatureVersion: '1',
        Signature: expect.any(String),
        SigningCertURL: emulator.signingCertUrl,
      });
      expect(await snsSignatureVerifies(goodbye.json!)).toBe(true);
      await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'after' }));
      expect((await recorded()).filter((delivery) => delivery.subscriptionArn === subscriptionArn).map((delivery) => delivery.type)).toEqual([
        'SubscriptionConfirmation',
        'Notification',
        'UnsubscribeConfirmation',
      ]);
    }
  });
});
