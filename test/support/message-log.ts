/**
 * What the admin page's message-log suites (test/local/admin-page.message-log.browser.test.ts,
 * admin-page.recover.browser.test.ts) do over the local stack's front doors: put portal events on
 * the bus, and read a subscription's messages as GET /messages gives them.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import { call, type TestStack } from './local-stack-client';
import { waitFor } from './wait-for';

const PREFIX = API_PREFIXES[0];
export const MEDIA_CREATE = 'asset_bank.media.create';

export interface MessageView {
  eventId: string;
  event: string;
  occurredAt: string;
  sentAt: string;
  lastAttemptAt: string | null;
  status: string;
  attempts: number;
  statusCode: number | null;
  messageId: string;
  body: { eventId: string; data?: Record<string, unknown> };
}

/** An EventBridge client on the stack's bus; destroy() it after the suite. */
export function eventsClientOf(local: TestStack): EventBridgeClient {
  return new EventBridgeClient({ endpoint: local.stack.events.endpoint, region: local.stack.region, credentials: LOCAL_CREDENTIALS });
}

/** Puts `asset_bank.media.create` events of the portal on the bus, as a platform service would (10 a call, as EventBridge takes). */
export async function putMediaEvents(local: TestStack, events: EventBridgeClient, portalId: string, data: Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < data.length; start += 10) {
    const answer = await events.send(
      new PutEventsCommand({
        Entries: data.slice(start, start + 10).map((detail) => ({
          EventBusName: local.stack.eventBusName,
          Source: 'portal.events',
          DetailType: MEDIA_CREATE,
          Detail: JSON.stringify({ portalId, ...detail }),
        })),
      }),
    );
    expect(answer.FailedEntryCount).toBe(0);
  }
}

/** Every message GET /messages keeps for the subscription, newest first (one page of 100 is all these suites make). */
export async function messagesOf(local: TestStack, token: string, configId: string, status?: string): Promise<MessageView[]> {
  const query = new URLSearchParams({ config_id: configId, limit: '100', ...(status ? { status } : {}) });
  const answer = await call(local.stack, 'GET', `${PREFIX}/messages?${query}`, { token });
  expect(answer.status).toBe(200);
  return answer.body.messages;
}

/** Waits until the subscription's messages are `count`, each as `wanted` says (their attempts joined). */
export function messagesKept(local: TestStack, token: string, configId: string, count: number, wanted: (message: MessageView) => boolean, status?: string): Promise<MessageView[]> {
  return waitFor(
    `${count} messages of ${configId}${status ? ` (${status})` : ''}`,
    async () => {
      const kept = await messagesOf(local, token, configId, status);
      return kept.length === count && kept.every(wanted) ? kept : undefined;
    },
    30_000,
    200,
  );
}

/** Creates an http subscription to `endpoint` for `asset_bank.media.create` and waits until its endpoint confirmed. */
export async function confirmedSubscription(local: TestStack, token: string, name: string, endpoint: string): Promise<string> {
  const created = await call(local.stack, 'POST', PREFIX, { token, body: { name, protocol: 'http', endpoint, events: [MEDIA_CREATE] } });
  expect(created.status).toBe(200);
  const configId: string = created.body.record.configId;
  await waitFor('the endpoint to confirm', async () =>
    (await call(local.stack, 'GET', `${PREFIX}/list`, { token })).body.configs.find(
      (entry: { configId: string; confirmed: boolean }) => entry.configId === configId && entry.confirmed,
    ),
  );
  return configId;
}
