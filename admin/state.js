// What the page holds while it is open, and what it lets the user do: what the token's scopes
// allow, and what a subscription's state would let arrive. Every other module reads it here.

export const state = {
  /** Where the page is served: API, issuer, endpoints, client id, scopes (page-settings.js). */
  settings: undefined,
  /** From the OpenAPI document: token URL, operations (path and scope), catalog, protocols, endpoint hints. */
  description: undefined,
  api: undefined,
  /** The platform sign-in's tokens (authorization-code.js), while signed in that way. */
  session: undefined,
  /** The scopes the token grants; undefined when it names none (then the API alone decides). */
  scopes: undefined,
  clientName: '',
  subscriptions: [],
  /** How many subscriptions the portal may have, as list answers it. */
  maxSubscriptions: undefined,
  /** The subscription a dialog is open for. */
  current: undefined,
  /** While a replay the page asked for runs: its buttons are disabled, so a double click sends nothing twice. */
  replaying: false,
  /** The failed-deliveries panel, while open: `{configId, items, nextCursor, dropped}`. */
  deadLetters: undefined,
  /** The deliveries panel, while open: `{configId, items, nextCursor}`. */
  attempts: undefined,
  /**
   * The messages panel, while open: `{configId, status, items, nextCursor, sending, recoveries}`
   * (`status` the delivery state shown, '' for all; `sending` while a resend or recover is asked).
   */
  messageLog: undefined,
  /** When this page last had a confirmation request sent, by configId (the list does not say). */
  confirmationSentAt: new Map(),
};

/**
 * How long a pending endpoint's confirmation request keeps the service from sending another
 * (CONFIRMATION_REQUEST_INTERVAL_SECONDS, 5 minutes unless the operator changed it).
 */
export const CONFIRMATION_INTERVAL_MS = 5 * 60_000;

/**
 * Until when "Resend confirmation" would be refused: a pending endpoint was sent one at its
 * creation (the configId's time) or when this page asked; undefined when it may be asked now.
 */
export function confirmationCooldownEnd(subscription, createdAt, now = Date.now()) {
  if (subscription.subscriptionState !== 'pending') return undefined;
  const lastSent = Math.max(createdAt, state.confirmationSentAt.get(subscription.configId) ?? 0);
  const end = lastSent + CONFIRMATION_INTERVAL_MS;
  return end > now ? end : undefined;
}

export const subscriptionOf = (configId) => state.subscriptions.find((subscription) => subscription.configId === configId);

/** Whether the token allows an operation (by the page's name for it). */
export function can(operationName) {
  const operation = state.description.operations[operationName];
  if (!operation) return false;
  return state.scopes === undefined || !operation.scope || state.scopes.has(operation.scope);
}

/** Why nothing sent to the subscription now would arrive; undefined when it would. */
export function whyNothingArrives(subscription) {
  if (subscription.subscriptionState === 'pending') return `the endpoint of "${subscription.name}" has not confirmed its subscription yet`;
  if (subscription.subscriptionState !== 'confirmed') return `the endpoint of "${subscription.name}" unsubscribed`;
  return undefined;
}

/** Why "Send again" is off for the subscription; undefined when it is on. The API refuses the same. */
export function whyNoReplay(subscription) {
  if (subscription.status !== 1) return `Sending again is off: "${subscription.name}" is deactivated, so nothing would be delivered. Activate it first.`;
  const reason = whyNothingArrives(subscription);
  return reason ? `Sending again is off: ${reason}, so nothing would arrive.` : undefined;
}
