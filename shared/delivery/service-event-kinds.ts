/**
 * The event kinds the service itself emits about a portal's subscriptions (shared/dead-letters/
 * notices.ts): only the retry sweep sends them, straight to SNS. They are in the catalog so that
 * subscriptions may choose them, but they never come from the bus: the dispatcher refuses any
 * event of the service's namespace (`webhooks.`) put there, so no principal that may put events
 * on the bus (or messages on its queue) can make a notice arrive SNS-signed at a tenant's
 * endpoint (docs/security.md, "Forged service notices").
 */
export const FAILING_EVENT_KIND = 'webhooks.subscription.failing';
export const DISABLED_EVENT_KIND = 'webhooks.subscription.disabled';

/** The service's namespace: every kind in it is the service's own, today's and those to come. */
export const SERVICE_EVENT_NAMESPACE = 'webhooks.';

/** Whether the kind is one only the service emits (never accepted from the bus). */
export const isServiceEventKind = (kind: string): boolean => kind.startsWith(SERVICE_EVENT_NAMESPACE);
