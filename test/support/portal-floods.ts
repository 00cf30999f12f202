/**
 * What the fairness suites of the local stack share: portals subscribed over HTTP to the webhook
 * receiver, and their events put on the local bus, ten a PutEvents.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { OAuthClient } from '../../infra/local/auth/clients';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import { call, type TestStack, tokenFor } from './local-stack-client';
import { waitFor } from './wait-for';
import type { WebhookReceiver } from './webhook-receiver';

const API = API_PREFIXES[0];
export const FLOOD_EVENT = 'asset_bank.media.create';

export interface PortalFloods {
  /**
   * `count` http subscriptions of the client's portal to the receiver at `/hooks/<portal>/<n>`,
   * confirmed; `answering`: the status those paths answer (400: SNS gives up at once). Answers
   * their config ids and paths.
   */
  subscribe(client: OAuthClient, count: number, answering?: number): Promise<{ configIds: string[]; paths: string[] }>;
  /** `count` events of the portal (media m-<from> on), in one PutEvents; none refused. */
  put(portalId: string, from: number, count: number): Promise<void>;
  /** `events` events of the portal, ten a PutEvents, four PutEvents at a time. */
  flood(portalId: string, events: number): Promise<void>;
  /** The dead letters list counts for the client's portal, over all its subscriptions. */
  deadLettersCounted(client: OAuthClient): Promise<number>;
  close(): void;
}

export function portalFloods(local: TestStack, receiver: WebhookReceiver): PortalFloods {
  const events = new EventBridgeClient({ endpoint: local.stack.events.endpoint, region: local.stack.region, credentials: LOCAL_CREDENTIALS });
  const floods: PortalFloods = {
    async subscribe(client, count, answering) {
      const token = await tokenFor(local.stack, client);
      const configIds: string[] = [];
      const paths: string[] = [];
      for (let n = 0; n < count; n++) {
        const path = `/hooks/${client.portalId}/${n}`;
        if (answering !== undefined) receiver.statusOf.set(path, answering);
        const created = await call(local.stack, 'POST', API, { token, body: { name: `${client.portalId} ${n}`, protocol: 'http', endpoint: receiver.url + path, events: [FLOOD_EVENT] } });
        expect(created.status).toBe(200);
        configIds.push(created.body.record.configId);
        paths.push(path);
      }
      await waitFor(`${client.portalId}'s subscriptions confirmed`, async () => {
        const listed = await call(local.stack, 'GET', `${API}/list`, { token });
        const confirmed = listed.status === 200 ? (listed.body.configs as { confirmed?: boolean }[]).filter((entry) => entry.confirmed === true) : [];
        return confirmed.length === count ? true : undefined;
      }, 30_000, 200);
      return { configIds, paths };
    },
    async put(portalId, from, count) {
      const answer = await events.send(
        new PutEventsCommand({
          Entries: Array.from({ length: count }, (_, n) => ({
            EventBusName: local.stack.eventBusName,
            Source: 'portal.events',
            DetailType: FLOOD_EVENT,
            Detail: JSON.stringify({ portalId, mediaId: `m-${from + n}` }),
          })),
        }),
      );
      expect(answer.FailedEntryCount).toBe(0);
    },
    async flood(portalId, count) {
      let next = 0;
      const sender = async () => {
        for (let batch = next++; batch < count / 10; batch = next++) await floods.put(portalId, batch * 10, 10);
      };
      await Promise.all(Array.from({ length: 4 }, sender));
    },
    async deadLettersCounted(client) {
      const listed = await call(local.stack, 'GET', `${API}/list`, { token: await tokenFor(local.stack, client) });
      expect(listed.status).toBe(200);
      return (listed.body.configs as { deadLetters: number }[]).reduce((sum, entry) => sum + entry.deadLetters, 0);
    },
    close: () => events.destroy(),
  };
  return floods;
}
