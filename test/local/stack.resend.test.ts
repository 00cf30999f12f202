/**
 * POST /resend over HTTP against the local stack, as a tenant uses it: a portal event put on the
 * bus reaches the endpoint, and resend delivers it once more with the same eventId and body; another
 * portal's client is told the subscription does not exist, and nothing more arrives.
 */
import { API_PREFIXES } from '../../shared/operations';
import { call, TEST_CLIENTS } from '../support/local-stack-client';
import { useDeliveryStack } from '../support/delivery-stack';
import { waitFor } from '../support/wait-for';
import { eventDeliveryCalls } from '../support/event-delivery';

const CREATE = 'asset_bank.media.create';

const delivery = useDeliveryStack({ retrySweepIntervalMs: 3_600_000 });
const { subscribe, putPortalEvents, dispatched, arrivedAt } = eventDeliveryCalls(delivery);

describe('POST /resend', () => {
  it.each(API_PREFIXES)('under %s delivers one message again with its eventId and body; another portal gets 400', async (prefix) => {
    const { alphaAdmin, betaAdmin } = TEST_CLIENTS;
    const subscription = await subscribe(alphaAdmin, 'resend', [CREATE]);
    const [eventId] = await putPortalEvents({ kind: CREATE, portalId: 'portal-alpha', data: { mediaId: 'm-resend' } });
    await dispatched();
    const first = await arrivedAt(subscription, eventId!);

    const answer = await call(delivery.stack, 'POST', `${prefix}/resend`, {
      token: await delivery.token(alphaAdmin),
      body: { config_id: subscription.configId, event_id: eventId },
    });
    const foreign = await call(delivery.stack, 'POST', `${prefix}/resend`, {
      token: await delivery.token(betaAdmin),
      body: { config_id: subscription.configId, event_id: eventId },
    });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, eventId, messageId: expect.any(String), sentAt: expect.any(String) });
    expect([foreign.status, foreign.body.code]).toEqual([400, 'SUBSCRIPTION_NOT_FOUND']);
    const both = await waitFor('the resent message at the endpoint', () => {
      const arrived = delivery.receiver.notificationsAt(subscription.path).filter((entry) => entry.message?.eventId === eventId);
      return arrived.length === 2 ? arrived : undefined;
    });
    expect(both[1]!.message).toEqual(first.message);
    expect(both[1]!.envelope.MessageId).toBe(answer.body.messageId);
    // Only these two: the foreign call, answered before them, sent nothing.
    expect(delivery.receiver.notificationsAt(subscription.path).filter((entry) => entry.message?.eventId === eventId)).toHaveLength(2);
  });
});
