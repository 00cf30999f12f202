/**
 * Delivery end to end on one machine: a webhook receiver on 127.0.0.1 is subscribed through the
 * API, confirms the subscription by visiting SubscribeURL as an SNS endpoint must, and then
 * receives what a publisher sends to the subscription's topic through the SNS emulator.
 */
import { GetSubscriptionAttributesCommand, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import { call, newSubscription, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- SNS message JSON
  message: any;
}

let local: TestStack;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, message: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  local = await startTestStack();
}, 60_000);

afterAll(async () => {
  await local?.stop();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

it('confirms an http subscription made through the API and delivers what is published to its topic', async () => {
  const { stack } = local;
  const token = await tokenFor(stack, TEST_CLIENTS.alphaAdmin);
  const created = await call(stack, 'POST', API_PREFIXES[1], {
    token,
    body: newSubscription({ name: 'Local receiver', protocol: 'http', endpoint: `${receiverUrl}/hooks/assets` }),
  });
  expect(created.status).toBe(200);
  const { topicArn, subscriptionArn } = created.body.record;

  // SNS asks the endpoint to confirm first.
  const confirmation = await waitFor('the SubscriptionConfirmation', () =>
    received.find((entry) => entry.message.Type === 'SubscriptionConfirmation'),
  );
  expect(confirmation.path).toBe('/hooks/assets');
  expect(confirmation.headers['x-amz-sns-message-type']).toBe('SubscriptionConfirmation');
  expect(confirmation.message.TopicArn).toBe(topicArn);
  const visit = await fetch(confirmation.message.SubscribeURL, { signal: AbortSignal.timeout(5_000) });
  expect(visit.status).toBe(200);

  const sns = new SNSClient({ endpoint: stack.sns.endpoint, region: stack.region, credentials: LOCAL_CREDENTIALS });
  try {
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
    expect(Attributes?.PendingConfirmation).toBe('false');

    // A publisher sends an event of a kind the subscription chose to its topic.
    const event = JSON.stringify({ kind: 'asset_bank.media.create', assetId: 'a-1' });
    const { MessageId } = await sns.send(
      new PublishCommand({
        TopicArn: topicArn,
        Message: event,
        Subject: 'media',
        MessageAttributes: { event: { DataType: 'String', StringValue: 'asset_bank.media.create' } },
      }),
    );
    const notification = await waitFor('the Notification', () =>
      received.find((entry) => entry.message.Type === 'Notification' && entry.message.MessageId === MessageId),
    );
    expect(notification.headers['x-amz-sns-message-type']).toBe('Notification');
    expect(notification.headers['x-amz-sns-subscription-arn']).toBe(subscriptionArn);
    expect(notification.message).toMatchObject({ TopicArn: topicArn, Message: event, Subject: 'media' });
  } finally {
    sns.destroy();
  }
});
