/**
 * The SNS emulator's subscriptions against SNS as recorded (recordings/sns.json: LocalStack's
 * snapshot tests, whose expected values were recorded against AWS): Subscribe, ConfirmSubscription,
 * Unsubscribe, subscription attributes, and http subscriptions from confirmation to unsubscribe.
 * Topics and publishing are compared in sns.test.ts; what the two share is sns-support.ts. Each
 * case does what the recorded test did, through @aws-sdk/client-sns (or a bare GET of a
 * SubscribeURL), and compares the answers with the recording (match.ts). This suite prints its
 * own share of the tally at the end.
 */
import {
  ConfirmSubscriptionCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  PublishCommand,
  SetSubscriptionAttributesCommand,
  SetTopicAttributesCommand,
  SubscribeCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import { waitFor } from '../support/wait-for';
import { asLocalCaller, newTopic, queueArn, receiver, recorded, sns, sqsSubscription, startEmulatorBeforeAll, topicCount } from './sns-support';
import { answer, expectConforms, titleCaseHeaders, xmlAnswer } from './support';

startEmulatorBeforeAll();

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


it('Subscribe refuses an attribute value under "Attributes Reason", then takes raw delivery', async () => {
  const TopicArn = await newTopic();
  const Endpoint = queueArn(`attributes-${topicCount}`);
  const subscribe = (RawMessageDelivery: string) =>
    answer(
      sns.send(
        new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint, ReturnSubscriptionArn: true, Attributes: { RawMessageDelivery, FilterPolicyScope: 'MessageBody', FilterPolicy: '' } }),
      ),
    );
  const actual: Record<string, unknown> = { 'subscribe-wrong-attr': await subscribe('wrongvalue'), subscribe: await subscribe('TrUe') };
  const SubscriptionArn = (actual.subscribe as { SubscriptionArn: string }).SubscriptionArn;
  actual['get-attrs'] = await answer(sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn })));
  // The recorded test's wrong ARN: the last 8 characters replaced.
  actual['get-attrs-nonexistent-sub'] = await answer(sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: `${SubscriptionArn.slice(0, -8)}0a1b2c3d` })));
  expectConforms(asLocalCaller(recorded.get('Subscribe with an attribute value SNS refuses, then with raw delivery')!), actual);
});

it('Subscribe with a filter policy that is not JSON', async () => {
  const TopicArn = await newTopic();
  // The parser's own words after "failed to parse JSON." are Jackson's on AWS (docs/local.md).
  const scenario = structuredClone(recorded.get('Subscribe with a filter policy that is not JSON')!);
  const error = (scenario.values['subscribe-invalid-filter-policy'] as { Error: { Message: string } }).Error;
  error.Message = error.Message.replace(/failed to parse JSON\..*$/s, 'failed to parse JSON.<parser-detail>');
  expectConforms(scenario, {
    'subscribe-invalid-filter-policy': await answer(
      sns.send(new SubscribeCommand({ TopicArn, Protocol: 'email', Endpoint: 'test@example.com', Attributes: { FilterPolicy: 'invalid-json' } })),
    ),
  });
});

it('Subscribe an sqs endpoint that is no queue ARN: a queue URL, a name', async () => {
  const TopicArn = await newTopic();
  const subscribe = (Endpoint: string) => answer(sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint })));
  const queueUrl = `http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/queue-${topicCount}`;
  expectConforms(recorded.get('Subscribe an sqs queue by its URL'), { 'subscribe-sqs-via-url-error': await subscribe(queueUrl) });
  expectConforms(recorded.get('Subscribe an sqs queue by its URL (older recording)'), {
    'sub-queue-url': await subscribe(`https://sqs.us-east-1.amazonaws.com/000000000000/queue-${topicCount}`),
  });
  expectConforms(recorded.get('Subscribe an unknown sqs queue, and an endpoint that is no ARN'), {
    // SNS does not look the queue up: an ARN of a queue that does not exist is subscribed.
    'subscribe-unknown-sqs': await subscribe(queueArn(`unknown-${topicCount}`)),
    'subscribe-unknown-sqs-invalid_arn': await subscribe('unknown'),
  });
});

it('Subscribe a FIFO queue to a standard topic', async () => {
  const TopicArn = await newTopic();
  expectConforms(recorded.get('Subscribe a FIFO queue to a standard topic'), {
    'not-fifo-topic': await answer(sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: queueArn(`queue-${topicCount}.fifo`) }))),
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
