/**
 * The local stack as the delivery suites use it, over HTTP: a webhook receiver, the stack with
 * SNS's retries compressed (a delivery policy's 12 retries take well under a second), an
 * EventBridge client on its event bus, one token per client, and portals emptied after each
 * test (each may hold 10 subscriptions). Registers its own jest hooks; call it at a suite's top.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import type { OAuthClient } from '../../infra/local/auth/clients';
import { API_PREFIXES } from '../../shared/operations';
import { call, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from './local-stack-client';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

export interface DeliveryStack {
  readonly local: TestStack;
  readonly stack: TestStack['stack'];
  readonly receiver: WebhookReceiver;
  readonly events: EventBridgeClient;
  token(client: OAuthClient): Promise<string>;
}

/** `retrySweepIntervalMs`: how often the local stack's retry sweep runs (2 s unless given). */
export function useDeliveryStack({ retrySweepIntervalMs }: { retrySweepIntervalMs?: number } = {}): DeliveryStack {
  let local: TestStack | undefined;
  let receiver: WebhookReceiver | undefined;
  let events: EventBridgeClient | undefined;
  const tokens = new Map<string, string>();
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the delivery stack is used before its beforeAll ran');
    return value;
  };
  const delivery: DeliveryStack = {
    get local() {
      return started(local);
    },
    get stack() {
      return started(local).stack;
    },
    get receiver() {
      return started(receiver);
    },
    get events() {
      return started(events);
    },
    async token(client) {
      if (!tokens.has(client.clientId)) tokens.set(client.clientId, await tokenFor(started(local).stack, client));
      return tokens.get(client.clientId)!;
    },
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    local = await startTestStack({ eventRetryDelayMs: 50, snsDelivery: { deliveryBackoffMs: 5 }, ...(retrySweepIntervalMs && { retrySweepIntervalMs }) });
    const { stack } = local;
    events = new EventBridgeClient({ endpoint: stack.events.endpoint, region: stack.region, credentials: LOCAL_CREDENTIALS });
  }, 90_000);

  afterEach(async () => {
    const api = API_PREFIXES[0];
    for (const client of [TEST_CLIENTS.alphaAdmin, TEST_CLIENTS.betaAdmin]) {
      const token = await delivery.token(client);
      const listed = await call(delivery.stack, 'GET', `${api}/list`, { token });
      for (const { configId } of listed.body.configs as { configId: string }[]) {
        expect((await call(delivery.stack, 'DELETE', `${api}/${configId}`, { token })).status).toBe(200);
      }
    }
  });

  afterAll(async () => {
    events?.destroy();
    await local?.stop();
    await receiver?.close();
  });

  return delivery;
}
