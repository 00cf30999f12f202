/**
 * One endpoint that fails or is slow costs the endpoints beside it nothing, over HTTP against
 * the local stack as a new user drives it: portal events put on the bus at a few hundred a
 * second reach a healthy subscription, every one, while its neighbour answers 500 (each event
 * then retried and dead-lettered, none dropped: past the 1,000 letters a subscription keeps,
 * counted) or takes 20 s to answer. The stack runs the SNS emulator's own settings: SNS's 15 s
 * timeout, its default backoff and limits.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { HTTP_DELIVERY_POLICY } from '../../shared/subscriptions/delivery-policy';
import { API_PREFIXES } from '../../shared/operations';
import { call, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const API = API_PREFIXES[0];
const CREATE = 'asset_bank.media.create';
const EVENTS = 1_500;
const EVENTS_PER_SECOND = 300;

let local: TestStack;
let receiver: WebhookReceiver;
let events: EventBridgeClient;
let token: string;
const logLines: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  local = await startTestStack({ log: (line) => logLines.push(line) });
  events = new EventBridgeClient({ endpoint: local.stack.events.endpoint, region: local.stack.region, credentials: LOCAL_CREDENTIALS });
  token = await tokenFor(local.stack, TEST_CLIENTS.alphaAdmin);
}, 90_000);

afterEach(async () => {
  const listed = await call(local.stack, 'GET', `${API}/list`, { token });
  for (const { configId } of listed.body.configs as { configId: string }[]) {
    expect((await call(local.stack, 'DELETE', `${API}/${configId}`, { token })).status).toBe(200);
  }
});

afterAll(async () => {
  events?.destroy();
  await local?.stop();
  await receiver?.close();
});

interface Created {
  configId: string;
  subscriptionArn: string;
  path: string;
}

/** An http subscription of portal-alpha to the receiver at `/hooks/<label>`, confirmed. */
async function subscribe(label: string): Promise<Created> {
  const path = `/hooks/${label}-${Math.random().toString(36).slice(2, 8)}`;
  const created = await call(local.stack, 'POST', API, {
    token,
    body: { name: label, protocol: 'http', endpoint: receiver.url + path, events: [CREATE] },
  });
  expect(created.status).toBe(200);
  const record = { ...created.body.record, path } as Created;
  await waitFor(`${label} confirmed`, async () => {
    const listed = await call(local.stack, 'GET', `${API}/list`, { token });
    return listed.body.configs.some((entry: { configId: string; confirmed: boolean }) => entry.configId === record.configId && entry.confirmed)
      ? true
      : undefined;
  });
  return record;
}

/** Puts `count` portal events on the bus at about `perSecond`, ten per PutEvents; answers their ids. */
async function putAtRate(count: number, perSecond: number): Promise<string[]> {
  const ids: string[] = [];
  const started = Date.now();
  for (let batch = 0; batch < count / 10; batch++) {
    // Paced against the clock: batch n goes out at n * 10 / perSecond seconds.
    const due = started + (batch * 10 * 1_000) / perSecond;
    if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    const answer = await events.send(
      new PutEventsCommand({
        Entries: Array.from({ length: 10 }, (_, n) => ({
          EventBusName: local.stack.eventBusName,
          Source: 'portal.events',
          DetailType: CREATE,
          Detail: JSON.stringify({ portalId: 'portal-alpha', mediaId: `m-${batch * 10 + n}` }),
        })),
      }),
    );
    expect(answer.FailedEntryCount).toBe(0);
    ids.push(...answer.Entries!.map((entry) => entry.EventId!));
  }
  return ids;
}

/** Waits until every event reached the subscription's endpoint at least once. */
async function allArrivedAt(subscription: Created, eventIds: string[]): Promise<void> {
  const missing = () => {
    const arrived = new Set(receiver.notificationsAt(subscription.path).map((entry) => entry.message?.eventId));
    return eventIds.filter((eventId) => !arrived.has(eventId));
  };
  try {
    await waitFor(`all ${eventIds.length} events at ${subscription.path}`, () => (missing().length === 0 ? true : undefined), 90_000, 200);
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${missing().length} never arrived`);
  }
}

interface DeadLetterListing {
  deadLetters: { subscriptionArn: string; attempts: number; reason: string; body: string }[];
  overflow: { subscriptionArn: string; notKept: number }[];
}

async function deadLettersOf(subscription: Created) {
  const response = await fetch(`${local.stack.sns.endpoint}/_emulator/dead-letters`, { signal: AbortSignal.timeout(5_000) });
  const listing = (await response.json()) as DeadLetterListing;
  return {
    kept: listing.deadLetters.filter((letter) => letter.subscriptionArn === subscription.subscriptionArn),
    notKept: listing.overflow.find((entry) => entry.subscriptionArn === subscription.subscriptionArn)?.notKept ?? 0,
  };
}

describe(`${EVENTS} events at ${EVENTS_PER_SECOND} a second`, () => {
  it('all reach a healthy endpoint beside one that answers 500, whose every event is retried and dead-lettered', async () => {
    const failing = await subscribe('failing');
    const healthy = await subscribe('healthy');
    receiver.failingPaths.add(failing.path);

    const eventIds = await putAtRate(EVENTS, EVENTS_PER_SECOND);

    await allArrivedAt(healthy, eventIds);
    const attempts = HTTP_DELIVERY_POLICY.healthyRetryPolicy.numRetries + 1;
    await waitFor(
      'every event of the failing endpoint dead-lettered',
      async () => {
        const { kept, notKept } = await deadLettersOf(failing);
        return kept.length + notKept === EVENTS ? kept : undefined;
      },
      90_000,
      500,
    );
    // Each event once: the latest 1,000 letters kept, the older ones counted.
    const { kept, notKept } = await deadLettersOf(failing);
    const keptIds = new Set(kept.map((letter) => JSON.parse(JSON.parse(letter.body).Message).eventId as string));
    expect(keptIds.size).toBe(kept.length);
    expect(eventIds.filter((eventId) => keptIds.has(eventId))).toHaveLength(kept.length);
    expect([kept.length, notKept]).toEqual([1_000, EVENTS - 1_000]);
    for (const letter of kept) expect(letter).toMatchObject({ attempts, reason: 'HTTP 500' });
    expect(logLines.filter((line) => /^\[sns\] (dropped|gave up .*limit)/.test(line))).toEqual([]);
  }, 180_000);

  it('all reach a healthy endpoint beside one that takes 20 s to answer', async () => {
    const slow = await subscribe('slow');
    const healthy = await subscribe('healthy');
    receiver.delayOf.set(slow.path, 20_000);

    const eventIds = await putAtRate(EVENTS, EVENTS_PER_SECOND);

    await allArrivedAt(healthy, eventIds);
    expect(logLines.filter((line) => /^\[sns\] (dropped|gave up .*limit)/.test(line))).toEqual([]);
  }, 180_000);
});
