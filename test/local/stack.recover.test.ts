/**
 * POST /recover and GET /recoveries over HTTP against the local stack, as a tenant uses them after
 * an outage: an endpoint fails for a while, then recovers; a recovery since the outage began sends
 * it exactly the events it missed, once each, through the local recovery queue and the same worker
 * as on AWS; a repeat with the same Idempotency-Key sends nothing more; another portal is told the
 * subscription does not exist; the refusals a caller can fix are 400.
 */
import { API_PREFIXES } from '../../shared/operations';
import { call, TEST_CLIENTS } from '../support/local-stack-client';
import { useDeliveryStack } from '../support/delivery-stack';
import { waitFor } from '../support/wait-for';
import { eventDeliveryCalls } from '../support/event-delivery';

const CREATE = 'asset_bank.media.create';
const [API, LEGACY] = API_PREFIXES;

const delivery = useDeliveryStack({ retrySweepIntervalMs: 3_600_000 });
const { subscribe, putPortalEvents, dispatched } = eventDeliveryCalls(delivery);

/** The eventIds of the notifications that arrived at the path, from the `from`-th on. */
const eventIdsAt = (path: string, from = 0) => delivery.receiver.notificationsAt(path).slice(from).map((entry) => String(entry.message?.eventId));

describe('POST /recover', () => {
  it('sends an endpoint that failed for a while exactly the events it missed, once each; a repeat of the key sends nothing', async () => {
    const { alphaAdmin, betaAdmin } = TEST_CLIENTS;
    const token = await delivery.token(alphaAdmin);
    const subscription = await subscribe(alphaAdmin, 'recover', [CREATE]);
    const before = await putPortalEvents({ kind: CREATE, portalId: 'portal-alpha', data: { n: 1 } }, { kind: CREATE, portalId: 'portal-alpha', data: { n: 2 } });
    await dispatched();
    await waitFor('the events before the outage', () => (eventIdsAt(subscription.path).length === 2 ? true : undefined));

    const outageStart = new Date().toISOString();
    delivery.receiver.failingPaths.add(subscription.path);
    const missed = await putPortalEvents(...[3, 4, 5, 6, 7].map((n) => ({ kind: CREATE, portalId: 'portal-alpha', data: { n } })));
    await dispatched();
    // The log's order (sentAt) is the recovery's: the dispatcher's batches run side by side, so not always the put order.
    const missedInLogOrder = await waitFor('the missed events dead-lettered', async () => {
      const failed = await call(delivery.stack, 'GET', `${API}/messages?config_id=${subscription.configId}&status=failed`, { token });
      return failed.body.messages?.length === missed.length ? (failed.body.messages as { eventId: string }[]).map(({ eventId }) => eventId).reverse() : undefined;
    });
    expect([...missedInLogOrder].sort()).toEqual([...missed].sort());
    delivery.receiver.failingPaths.delete(subscription.path);
    const [after] = await putPortalEvents({ kind: CREATE, portalId: 'portal-alpha', data: { n: 8 } });
    await dispatched();
    await waitFor('the event after the outage', () => (eventIdsAt(subscription.path).includes(after!) ? true : undefined));
    const arrivedBefore = delivery.receiver.notificationsAt(subscription.path).length;

    const headers = { 'Idempotency-Key': `recover-${subscription.configId}` };
    const body = { config_id: subscription.configId, since: outageStart };
    const answer = await call(delivery.stack, 'POST', `${API}/recover`, { token, body, headers });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ success: true, configId: subscription.configId, since: outageStart, status: 'failed', state: 'running', recoveryId: expect.any(String) });

    const done = await waitFor('the recovery done', async () => {
      const listed = await call(delivery.stack, 'GET', `${LEGACY}/recoveries?config_id=${subscription.configId}`, { token });
      return listed.body.recoveries?.[0]?.state === 'done' ? listed.body : undefined;
    });
    expect(done.recoveries).toEqual([
      expect.objectContaining({ recoveryId: answer.body.recoveryId, state: 'done', matched: missed.length, sent: missed.length, failed: 0, until: answer.body.until }),
    ]);
    await waitFor('the recovered events at the endpoint', () => (eventIdsAt(subscription.path, arrivedBefore).length >= missed.length ? true : undefined));
    // Oldest first, each once, and none of those it had already.
    expect(eventIdsAt(subscription.path, arrivedBefore)).toEqual(missedInLogOrder);
    expect(before.some((eventId) => eventIdsAt(subscription.path, arrivedBefore).includes(eventId))).toBe(false);

    const repeat = await call(delivery.stack, 'POST', `${LEGACY}/recover`, { token, body, headers });
    expect([repeat.status, repeat.body.recoveryId]).toEqual([202, answer.body.recoveryId]);
    const listed = await call(delivery.stack, 'GET', `${API}/recoveries?config_id=${subscription.configId}`, { token });
    expect(listed.body.recoveries).toHaveLength(1);

    const foreignToken = await delivery.token(betaAdmin);
    const foreign = await call(delivery.stack, 'POST', `${API}/recover`, { token: foreignToken, body });
    const foreignList = await call(delivery.stack, 'GET', `${API}/recoveries?config_id=${subscription.configId}`, { token: foreignToken });
    expect([foreign.status, foreign.body.code, foreignList.status, foreignList.body.code]).toEqual([400, 'SUBSCRIPTION_NOT_FOUND', 400, 'SUBSCRIPTION_NOT_FOUND']);
    // A moment for anything the repeat or the foreign calls might have queued: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(eventIdsAt(subscription.path, arrivedBefore)).toEqual(missedInLogOrder);
  });

  it('refuses a window in the wrong order, one older than the log keeps, and a deactivated subscription (400)', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const token = await delivery.token(alphaAdmin);
    const subscription = await subscribe(alphaAdmin, 'recover-refused', [CREATE]);
    const recover = (body: Record<string, unknown>) => call(delivery.stack, 'POST', `${API}/recover`, { token, body: { config_id: subscription.configId, ...body } });
    const reversed = await recover({ since: '2026-11-24T10:00:00Z', until: '2026-11-24T09:00:00Z' });
    const future = await recover({ since: new Date(Date.now() + 3_600_000).toISOString() });
    const tooOld = await recover({ since: new Date(Date.now() - 31 * 86_400_000).toISOString() });
    const badStatus = await recover({ since: new Date().toISOString(), status: 'pending' });
    await call(delivery.stack, 'PUT', `${API}/activate`, { token, body: { config_id: subscription.configId, status: 0 } });
    const deactivated = await recover({ since: new Date(Date.now() - 60_000).toISOString() });

    expect([reversed.status, reversed.body.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(reversed.body.message).toMatch(/since must not be after until/);
    expect([future.status, future.body.code]).toEqual([400, 'INVALID_REQUEST']);
    expect([tooOld.status, tooOld.body.code]).toEqual([400, 'WINDOW_NOT_KEPT']);
    expect([badStatus.status, badStatus.body.code]).toEqual([400, 'INVALID_REQUEST']);
    expect([deactivated.status, deactivated.body.code]).toEqual([400, 'SUBSCRIPTION_DEACTIVATED']);
    const listed = await call(delivery.stack, 'GET', `${API}/recoveries?config_id=${subscription.configId}`, { token });
    expect([listed.status, listed.body.recoveries]).toEqual([200, []]);
  });
});
