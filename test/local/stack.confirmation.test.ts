/**
 * Subscriptions' confirmation over HTTP, as a user of `npm start` meets it: list shows each
 * subscription's state (pending, confirmed, unsubscribed), `POST /confirm` has SNS ask the
 * endpoint again, an endpoint that unsubscribed is listed so from the next `npm run reconcile` on
 * and stays so through it, an sqs or
 * lambda endpoint of the service's own account is refused, and nobody but the service may
 * publish to a subscription's topic.
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import { call, lastConfirmationRequestsMinutesAgo, newSubscription, reconcileLocally, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const [PREFIX, LEGACY] = API_PREFIXES;
let local: TestStack;
let receiver: WebhookReceiver;
let token: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  local = await startTestStack();
  token = await tokenFor(local.stack, TEST_CLIENTS.alphaAdmin);
}, 60_000);

afterAll(async () => {
  await local?.stop();
  await receiver?.close();
});

async function stateOf(configId: string): Promise<string> {
  const listed = await call(local.stack, 'GET', `${PREFIX}/list`, { token });
  expect(listed.status).toBe(200);
  return listed.body.configs.find((config: { configId: string }) => config.configId === configId).subscriptionState;
}

const reconcile = () => reconcileLocally(local.stack);

it('asks a pending endpoint again on POST /confirm, lists it confirmed once it follows, and refuses to ask a confirmed one', async () => {
  receiver.unconfirmedPaths.add('/late');
  const created = await call(local.stack, 'POST', PREFIX, { token, body: newSubscription({ protocol: 'http', endpoint: `${receiver.url}/late` }) });
  expect(created.status).toBe(200);
  const { configId } = created.body.record;
  expect(created.body.record).toMatchObject({ confirmed: false, subscriptionState: 'pending' });
  await waitFor('the first confirmation request', () => receiver.received.find((entry) => entry.path === '/late'));
  expect(await stateOf(configId)).toBe('pending');

  // Now the endpoint is ready to confirm, 5 minutes after the first request (no other is sent sooner); under the legacy prefix too.
  receiver.unconfirmedPaths.delete('/late');
  await lastConfirmationRequestsMinutesAgo(local.stack, TEST_CLIENTS.alphaAdmin.portalId, 6);
  const confirm = await call(local.stack, 'POST', `${LEGACY}/confirm`, { token, body: { config_id: configId } });

  expect(confirm.status).toBe(200);
  expect(confirm.body).toEqual({
    success: true,
    message: 'Confirmation requested: SNS sent the endpoint a new confirmation request.',
    subscriptionState: 'pending',
  });
  await waitFor('the endpoint to confirm', async () => ((await stateOf(configId)) === 'confirmed' ? true : undefined));
  expect(receiver.received.filter((entry) => entry.path === '/late' && entry.envelope.Type === 'SubscriptionConfirmation')).toHaveLength(2);

  const again = await call(local.stack, 'POST', `${PREFIX}/confirm`, { token, body: { config_id: configId } });
  expect(again.status).toBe(400);
  expect(again.body.code).toBe('ALREADY_CONFIRMED');
});

it('lists an endpoint that unsubscribed as such from the next npm run reconcile on, which leaves it unsubscribed, sending it nothing', async () => {
  const created = await call(local.stack, 'POST', PREFIX, { token, body: newSubscription({ protocol: 'http', endpoint: `${receiver.url}/leaving` }) });
  const { configId } = created.body.record;
  await waitFor('the endpoint to confirm', async () => ((await stateOf(configId)) === 'confirmed' ? true : undefined));
  expect((await call(local.stack, 'POST', `${PREFIX}/test`, { token, body: { config_id: configId } })).status).toBe(200);
  const [message] = await waitFor('the test message', () => receiver.notificationsAt('/leaving')[0] && receiver.notificationsAt('/leaving'));
  expect((await fetch(message!.envelope.UnsubscribeURL, { signal: AbortSignal.timeout(5_000) })).status).toBe(200);
  // Listed confirmed (as stored) until the reconciler's next run, which sees the subscription gone.
  expect(await stateOf(configId)).toBe('confirmed');
  const before = receiver.received.filter((entry) => entry.path === '/leaving').length;

  expect(await reconcile()).toMatchObject({ recordsRepaired: 0, subscriptionsGone: 1, subscriptionStatesUpdated: 1, errors: 0 });
  expect(await stateOf(configId)).toBe('unsubscribed');

  // A test event is refused, saying why: nothing would arrive.
  const test = await call(local.stack, 'POST', `${PREFIX}/test`, { token, body: { config_id: configId } });
  expect([test.status, test.body.code]).toEqual([400, 'ENDPOINT_NOT_CONFIRMED']);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(receiver.received.filter((entry) => entry.path === '/leaving')).toHaveLength(before);
  expect(await stateOf(configId)).toBe('unsubscribed');
}, 60_000);

it("refuses an sqs or lambda endpoint of the service's own account, and accepts another account's as pending", async () => {
  for (const endpoint of ['arn:aws:sqs:us-east-1:000000000000:webhooks-delivery-dead-letters', 'arn:aws:lambda:us-east-1:000000000000:function:reconcileTopics']) {
    const protocol = endpoint.split(':')[2]!;
    const refused = await call(local.stack, 'POST', PREFIX, { token, body: newSubscription({ protocol, endpoint }) });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('ENDPOINT_IN_SERVICE_ACCOUNT');

    const elsewhere = endpoint.replace('000000000000', '111122223333');
    const accepted = await call(local.stack, 'POST', PREFIX, { token, body: newSubscription({ protocol, endpoint: elsewhere }) });
    expect(accepted.status).toBe(200);
    expect(accepted.body.record.subscriptionState).toBe('pending');
  }
});

it("refuses a Publish to a subscription's topic signed with other credentials than the service's", async () => {
  const created = await call(local.stack, 'POST', PREFIX, { token, body: newSubscription() });
  const { topicArn } = created.body.record;
  const publish = (credentials: { accessKeyId: string; secretAccessKey: string }) => {
    const sns = new SNSClient({ endpoint: local.stack.sns.endpoint, region: local.stack.region, credentials });
    return sns.send(new PublishCommand({ TopicArn: topicArn, Message: '{"forged":true}' })).finally(() => sns.destroy());
  };

  await expect(publish({ accessKeyId: 'someone-else', secretAccessKey: 'x' })).rejects.toMatchObject({
    name: 'AuthorizationErrorException',
    $metadata: { httpStatusCode: 403 },
  });
  // The local stack's own credentials, which its functions sign with, may.
  expect((await publish(LOCAL_CREDENTIALS)).MessageId).toEqual(expect.any(String));
});
