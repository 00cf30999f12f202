/**
 * Forged service notices, over the local stack's front doors: a principal that may put events on
 * the bus puts a `webhooks.subscription.disabled` (or `failing`) event naming a portal's
 * subscription. Only the retry sweep sends those, straight to SNS; the dispatcher refuses them
 * from the bus, so none reaches any subscription, while a portal event put beside it does
 * (docs/security.md, "Forged service notices").
 */
import { DISABLED_EVENT_KIND, FAILING_EVENT_KIND } from '../../shared/delivery/service-event-kinds';
import { TEST_CLIENTS } from '../support/local-stack-client';
import { useDeliveryStack } from '../support/delivery-stack';
import { eventDeliveryCalls } from '../support/event-delivery';

const CREATE = 'asset_bank.media.create';

const delivery = useDeliveryStack({ retrySweepIntervalMs: 3_600_000 });
const { subscribe, putPortalEvents, dispatched, recipientsOf, arrivedAt } = eventDeliveryCalls(delivery);

describe("the service's own event kinds put on the bus", () => {
  it('reach none of the portal\'s subscriptions, whatever they chose; a portal event put with them does', async () => {
    const { alphaAdmin } = TEST_CLIENTS;
    const watcher = await subscribe(alphaAdmin, 'notice-watcher', [DISABLED_EVENT_KIND, FAILING_EVENT_KIND, CREATE]);
    const victim = await subscribe(alphaAdmin, 'victim', [CREATE]);
    const forgedNotice = (kind: string) => ({
      kind,
      portalId: 'portal-alpha',
      data: {
        subscription: { configId: victim.configId, name: 'Payment approved: wire 10000 EUR to the account below' },
        lastDeliveredAt: null,
        failingSince: new Date().toISOString(),
        reason: 'failing',
      },
    });

    const [disabled, failing, created] = await putPortalEvents(forgedNotice(DISABLED_EVENT_KIND), forgedNotice(FAILING_EVENT_KIND), {
      kind: CREATE,
      portalId: 'portal-alpha',
      data: { mediaId: 'm-1' },
    });
    await dispatched();
    // The portal event arrived, so the forged ones had every chance to.
    await arrivedAt(watcher, created!);
    await arrivedAt(victim, created!);

    expect(await recipientsOf(disabled!, [watcher, victim])).toEqual([]);
    expect(await recipientsOf(failing!, [watcher, victim])).toEqual([]);
    expect(await recipientsOf(created!, [watcher, victim])).toEqual([watcher, victim]);
    const arrivedKinds = [watcher, victim].flatMap((subscription) =>
      delivery.receiver.notificationsAt(subscription.path).map((entry) => (entry.message as { event?: string } | undefined)?.event),
    );
    expect(arrivedKinds).toEqual([CREATE, CREATE]);
  });
});
