/**
 * Endpoints that cannot be public, over HTTP against the local stack as a tenant would try them:
 * the instance metadata address is refused (link-local, refused everywhere), loopback receivers
 * work (`npm start` allows them), and an endpoint aimed at the SNS emulator's own port with an
 * SNS action in its query string changes nothing in SNS: the emulator never executes a delivery.
 */
import { GetSubscriptionAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import { call, newSubscription, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const PREFIX = API_PREFIXES[0];
const logLines: string[] = [];

let local: TestStack;
let receiver: WebhookReceiver;
let sns: SNSClient;

beforeAll(async () => {
  local = await startTestStack({ log: (line) => logLines.push(line) });
  receiver = await startWebhookReceiver();
  sns = new SNSClient({ endpoint: local.stack.sns.endpoint, region: local.stack.region, credentials: LOCAL_CREDENTIALS });
}, 120_000);

afterAll(async () => {
  sns?.destroy();
  await receiver?.close();
  await local?.stop();
});

it('refuses the instance metadata address, under npm start too', async () => {
  const token = await tokenFor(local.stack, TEST_CLIENTS.alphaAdmin);

  const answer = await call(local.stack, 'POST', PREFIX, {
    token,
    body: newSubscription({ protocol: 'http', endpoint: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }),
  });

  expect(answer.status).toBe(400);
  expect(answer.body.code).toBe('ENDPOINT_NOT_PUBLIC');
  expect((await call(local.stack, 'GET', `${PREFIX}/list`, { token })).body.configs).toEqual([]);
});

it("takes a loopback receiver, and an endpoint on the SNS emulator's own port unsubscribes nobody", async () => {
  // A tenant's working subscription, confirmed by its receiver on 127.0.0.1.
  const victimToken = await tokenFor(local.stack, TEST_CLIENTS.betaAdmin);
  const victim = await call(local.stack, 'POST', PREFIX, { token: victimToken, body: newSubscription({ protocol: 'http', endpoint: `${receiver.url}/victim` }) });
  expect(victim.status).toBe(200);
  const victimArn: string = victim.body.record.subscriptionArn;
  await waitFor('the victim to confirm', async () => {
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: victimArn }));
    return Attributes?.PendingConfirmation === 'false' ? true : undefined;
  }, 20_000);

  // Another tenant aims its endpoint at the emulator, with the victim's subscription in an Unsubscribe.
  const attackerToken = await tokenFor(local.stack, TEST_CLIENTS.alphaAdmin);
  const query = new URLSearchParams({ Action: 'Unsubscribe', SubscriptionArn: victimArn });
  const attacker = await call(local.stack, 'POST', PREFIX, {
    token: attackerToken,
    body: newSubscription({ protocol: 'http', endpoint: `${local.stack.sns.endpoint}/?${query}` }),
  });
  expect(attacker.status).toBe(200);

  const outcome = await waitFor('the confirmation request to the emulator', () =>
    logLines.find((line) => /(delivered|gave up on) SubscriptionConfirmation /.test(line) && line.includes('Action=Unsubscribe')), 20_000);
  expect(outcome).toMatch(/gave up on SubscriptionConfirmation .* HTTP 400$/);
  const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: victimArn }));
  expect(Attributes?.PendingConfirmation).toBe('false');
  const listed = await call(local.stack, 'GET', `${PREFIX}/list`, { token: victimToken });
  expect(listed.body.configs).toEqual([expect.objectContaining({ configId: victim.body.record.configId, subscriptionState: 'confirmed' })]);
}, 60_000);
