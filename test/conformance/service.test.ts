/**
 * The service's own code against the emulators as they now answer (the behaviours the
 * conformance suites hold to AWS's recordings): how it classifies SNS's refusal of a
 * misconfigured dead-letter queue, what it reads from GetSubscriptionAttributes through a
 * subscription's life, and what becomes of a portal event whose Detail is not an object.
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ListTopicsCommand, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { type EventBus, startEventBus } from '../../infra/local/events/event-bus';
import { EventQueue } from '../../infra/local/events/event-queue';
import { type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
import { SnsRefusedServiceError } from '../../shared/aws/refusals';
import { PORTAL_EVENT_SOURCE, parsePortalEvent } from '../../shared/delivery/portal-event';
import { snsSubscriptionAttributesFor } from '../../shared/subscriptions/delivery-policy';
import { subscriptionStateOf } from '../../shared/subscriptions/sns-subscription';
import { open, subscribeAgain } from '../../shared/subscriptions/topics';
import { trustAuthorityOf } from '../support/local-authority';
import { waitFor } from '../support/wait-for';
import { startReceiver, type Received } from './support';

let emulator: SnsEmulator;
let sns: SNSClient;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

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
});

const settings = () => ({ sns, topicPrefix: 'conformance-service', publisherArns: ['arn:aws:iam::000000000000:role/test'], managerArns: ['arn:aws:iam::000000000000:role/test'] });
const topicArnOf = (configId: string) => `arn:aws:sns:us-east-1:000000000000:conformance-service-${configId}`;

it('a dead-letter queue that is not an ARN fails the create as the service\'s own fault, leaving no topic', async () => {
  const attributes = snsSubscriptionAttributesFor({ protocol: 'https' }, 'webhooks-delivery-dead-letters');
  const failure = await open(settings(), { portalId: 'p1', configId: 'bad-dlq', protocol: 'https', endpoint: 'https://example.com/hook' }, attributes, topicArnOf('bad-dlq')).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(SnsRefusedServiceError);
  expect((failure as Error).message).toContain('RedrivePolicy: deadLetterTargetArn is an invalid arn');
  const { Topics } = await sns.send(new ListTopicsCommand({}));
  expect(Topics).not.toContainEqual({ TopicArn: topicArnOf('bad-dlq') });
});

it('reads pending, confirmed and unsubscribed from GetSubscriptionAttributes; subscribing again with its attributes is the same subscription', async () => {
  const from = receiver.received.length;
  const attributes = snsSubscriptionAttributesFor({ protocol: 'http' }, 'arn:aws:sqs:us-east-1:000000000000:webhooks-delivery-dead-letters');
  const endpoint = { protocol: 'http' as const, endpoint: receiver.url };
  const { topicArn, subscriptionArn } = await open(settings(), { portalId: 'p1', configId: 'life', ...endpoint }, attributes, topicArnOf('life'));
  expect(await subscriptionStateOf(sns, subscriptionArn)).toBe('pending');
  // SNS stores the delivery policy normalized; the same attributes again are still no difference.
  expect(await subscribeAgain(settings(), topicArn, endpoint, attributes)).toBe(subscriptionArn);

  const confirmation = await waitFor('the confirmation', () => receiver.received[from]);
  const { SubscribeURL } = JSON.parse(confirmation.body) as { SubscribeURL: string };
  expect(SubscribeURL).toContain(`TopicArn=${topicArn}&`);
  expect((await fetch(SubscribeURL)).status).toBe(200);
  expect(await subscriptionStateOf(sns, subscriptionArn)).toBe('confirmed');

  await sns.send(new PublishCommand({ TopicArn: topicArn, Message: '{"kind":"test"}' }));
  const notification: Received = await waitFor('the notification', () => receiver.received.slice(from + 1).find((r) => r.headers['x-amz-sns-message-type'] === 'Notification'));
  // The service's delivery policy asks for JSON; SNS sends it so (confirmations stay text/plain).
  expect(notification.headers['content-type']).toBe('application/json');
  expect(confirmation.headers['content-type']).toBe('text/plain; charset=UTF-8');
  const { UnsubscribeURL } = JSON.parse(notification.body) as { UnsubscribeURL: string };
  expect((await fetch(UnsubscribeURL)).status).toBe(200);
  expect(await subscriptionStateOf(sns, subscriptionArn)).toBe('unsubscribed');
  // A second visit (a receiver retrying) is answered as SNS answers it: 200.
  expect((await fetch(UnsubscribeURL)).status).toBe(200);
});

describe('portal events', () => {
  const handed: SQSRecord[] = [];
  let queue: EventQueue;
  let bus: EventBus;
  let events: EventBridgeClient;
  beforeAll(async () => {
    queue = new EventQueue({
      queueArn: 'arn:aws:sqs:us-east-1:000000000000:conformance-portal-events',
      region: 'us-east-1',
      handler: async (event: SQSEvent) => {
        handed.push(...event.Records);
      },
      context: () => ({}) as Context,
    });
    bus = await startEventBus({ port: 0, busName: 'portal', region: 'us-east-1', accountId: '000000000000', queue });
    events = new EventBridgeClient({ endpoint: bus.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  });
  afterAll(async () => {
    events.destroy();
    await bus.close();
    await queue.close();
  });

  it('a double-encoded Detail is refused to the sender, as EventBridge refuses it; an object Detail reaches the dispatcher, which parses it', async () => {
    const detail = { portalId: 'p1', orderId: 'o-1' };
    const put = (Detail: string) =>
      events.send(new PutEventsCommand({ Entries: [{ Source: PORTAL_EVENT_SOURCE, DetailType: 'order.created', Detail, EventBusName: 'portal' }] }));
    const refused = await put(JSON.stringify(JSON.stringify(detail)));
    expect(refused.FailedEntryCount).toBe(1);
    expect(refused.Entries).toEqual([{ ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' }]);

    const accepted = await put(JSON.stringify(detail));
    expect(accepted.FailedEntryCount).toBe(0);
    const record = await waitFor('the record', () => handed[0]);
    expect(handed).toHaveLength(1);
    expect(record.md5OfMessageAttributes).toBeNull();
    expect(parsePortalEvent(record.body, ['order.created'])).toEqual({
      event: { kind: 'order.created', portalId: 'p1', eventId: accepted.Entries![0]!.EventId, occurredAt: expect.any(String), data: { orderId: 'o-1' } },
    });
  });
});
