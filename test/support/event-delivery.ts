/**
 * What the delivery suites do over the local stack's front doors (test/local/stack.event-delivery.test.ts):
 * subscribe an http endpoint of the receiver, put portal events on the bus, wait for the
 * dispatcher, and see what the SNS emulator handed to whom.
 */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { OAuthClient } from '../../infra/local/auth/clients';
import { API_PREFIXES } from '../../shared/operations';
import type { DeliveryStack } from './delivery-stack';
import { call } from './local-stack-client';
import { waitFor } from './wait-for';

const API = API_PREFIXES[0];

export interface Created {
  configId: string;
  topicArn: string;
  subscriptionArn: string;
  path: string;
}

/** The calls, on the delivery stack of the suite (useDeliveryStack). */
export function eventDeliveryCalls(delivery: DeliveryStack) {
  /** Creates an http subscription to the receiver at `/hooks/<label>` and waits until it is confirmed. */
  async function subscribe(client: OAuthClient, label: string, kinds: string[], { confirm = true } = {}): Promise<Created> {
    const path = `/hooks/${label}-${Math.random().toString(36).slice(2, 8)}`;
    if (!confirm) delivery.receiver.unconfirmedPaths.add(path);
    const created = await call(delivery.stack, 'POST', API, {
      token: await delivery.token(client),
      body: { name: label, protocol: 'http', endpoint: delivery.receiver.url + path, events: kinds },
    });
    expect(created.status).toBe(200);
    const record = { ...created.body.record, path } as Created;
    if (confirm) await waitFor(`${label} confirmed`, async () => ((await isListedConfirmed(client, record.configId)) ? true : undefined));
    return record;
  }

  async function isListedConfirmed(client: OAuthClient, configId: string): Promise<boolean> {
    const listed = await call(delivery.stack, 'GET', `${API}/list`, { token: await delivery.token(client) });
    return listed.body.configs.find((entry: { configId: string }) => entry.configId === configId)?.confirmed === true;
  }

  /** Puts portal events on the bus as a platform service would; answers their EventBridge ids. */
  async function putPortalEvents(...entries: { kind: string; portalId: string; data?: Record<string, unknown> }[]): Promise<string[]> {
    const answer = await delivery.events.send(
      new PutEventsCommand({
        Entries: entries.map(({ kind, portalId, data = {} }) => ({
          EventBusName: delivery.stack.eventBusName,
          Source: 'portal.events',
          DetailType: kind,
          Detail: JSON.stringify({ portalId, ...data }),
        })),
      }),
    );
    expect(answer.FailedEntryCount).toBe(0);
    return answer.Entries!.map((entry) => entry.EventId!);
  }

  /** Waits until the dispatcher has worked through everything queued (so every Publish was made). */
  async function dispatched(): Promise<void> {
    await waitFor('the event queue to drain', () => (delivery.stack.eventQueue.depth === 0 ? true : undefined));
  }

  /** What the SNS emulator handed to subscribers (recorded at Publish time, before any HTTP POST). */
  async function recordedDeliveries(): Promise<{ subscriptionArn: string; type: string; body: string }[]> {
    const response = await fetch(`${delivery.stack.sns.endpoint}/_emulator/deliveries`, { signal: AbortSignal.timeout(5_000) });
    return ((await response.json()) as { deliveries: { subscriptionArn: string; type: string; body: string }[] }).deliveries;
  }

  /** The subscriptions an event was handed to, by event id. */
  async function recipientsOf(eventId: string, subscriptions: Created[]): Promise<Created[]> {
    const deliveries = await recordedDeliveries();
    return subscriptions.filter((subscription) =>
      deliveries.some(
        (delivery) =>
          delivery.subscriptionArn === subscription.subscriptionArn &&
          delivery.type === 'Notification' &&
          JSON.parse(JSON.parse(delivery.body).Message).eventId === eventId,
      ),
    );
  }

  async function arrivedAt(subscription: Created, eventId: string) {
    return waitFor(`event ${eventId} at ${subscription.path}`, () =>
      delivery.receiver.notificationsAt(subscription.path).find((entry) => entry.message?.eventId === eventId),
    );
  }

  async function setStatus(client: OAuthClient, configId: string, status: 0 | 1) {
    const answer = await call(delivery.stack, 'PUT', `${API}/activate`, { token: await delivery.token(client), body: { config_id: configId, status } });
    expect(answer.status).toBe(200);
  }

  return { subscribe, isListedConfirmed, putPortalEvents, dispatched, recordedDeliveries, recipientsOf, arrivedAt, setStatus };
}
