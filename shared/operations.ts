/**
 * The operations table: the one list of the service's operations. The CDK stack builds its
 * routes, functions and authorization scopes from it, and so does the local gateway, so a
 * route can never exist in one and not the other. Imports nothing, so infra code can read it
 * without pulling handler code in.
 */

/** Every path exists under both prefixes: the canonical one first, then the legacy one. */
export const API_PREFIXES = [
  '/v7/webhooks/public/api/subscriptions',
  '/webhooks/api/subscriptions',
] as const;

const READ = 'webhooks.config:read';
const WRITE = 'webhooks.config:write';
export const SCOPES = { read: READ, write: WRITE } as const;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Scope = (typeof SCOPES)[keyof typeof SCOPES];

export interface Operation {
  /** Operation id of the interface description. */
  readonly id: string;
  /** Name of the handler module in `functions/` and of the Lambda function. */
  readonly handler: string;
  readonly method: HttpMethod;
  /** Path after the prefix; `{configId}` is a path parameter. */
  readonly subPath: string;
  /** The path under each prefix, canonical first. */
  readonly paths: readonly string[];
  /** OAuth scope a token must carry for this route. */
  readonly scope: Scope;
  /**
   * The route makes SNS send something (a confirmation request, a message): each portal may call
   * it only so often (PORTAL_SEND_BURST, PORTAL_SEND_RATE_PER_MINUTE), so no portal can take the
   * others' capacity or drive SNS's cost (shared/http/middleware/portal-rate-limit.ts).
   */
  readonly limitedPerPortal: boolean;
  /**
   * The per-portal limit of a route that makes no SNS send but other AWS calls the caller chooses
   * (DynamoDB, and SNS reads or settings): a budget for its use, of settings. Every route that makes
   * an AWS call is limited per portal, by this or by `limitedPerPortal` (docs/security.md, "Rate limits").
   */
  readonly portalBudget?: PortalBudget;
}

/**
 * Which settings a route's per-portal limit is: `change` PORTAL_CHANGE_BURST and
 * PORTAL_CHANGE_RATE_PER_MINUTE, `read` PORTAL_READ_BURST and PORTAL_READ_RATE_PER_MINUTE.
 */
export type PortalBudget = 'change' | 'read';

function operation<const Id extends string>(
  id: Id,
  handler: string,
  method: HttpMethod,
  subPath: string,
  scope: Scope,
  { limitedPerPortal = false, portalBudget }: { limitedPerPortal?: boolean; portalBudget?: PortalBudget } = {},
): Operation & { readonly id: Id } {
  return { id, handler, method, subPath, paths: API_PREFIXES.map((prefix) => prefix + subPath), scope, limitedPerPortal, ...(portalBudget && { portalBudget }) };
}

/** The routes that make SNS send. */
const SENDS = { limitedPerPortal: true };
/**
 * The routes that change one subscription (update, activate, rename, delete: a DynamoDB write and
 * an SNS call or two each): a person's edits, a script's sweep over a portal's subscriptions
 * (10 by default) at once, never a loop.
 */
const CHANGES = { portalBudget: 'change' } as const;
/**
 * The routes that read (list, dead letters, attempts: a Query, and for list a
 * GetSubscriptionAttributes per pending subscription; test-filter, nothing): a page polling every
 * few seconds, a script waiting for a confirmation, paging through a subscription's records.
 */
const READS = { portalBudget: 'read' } as const;

/*
 * One const per operation, each a call marked pure (of arguments esbuild can see have no side
 * effects: plain names, no property reads): a handler imports its own (httpOperation), so its
 * bundle holds that entry and not the table.
 */
export const createSubscriptionRoute = /* @__PURE__ */ operation('createSubscriptionRoute', 'createSubscription', 'POST', '', WRITE, SENDS);
export const updateSubscriptionRoute = /* @__PURE__ */ operation('updateSubscriptionRoute', 'updateSubscription', 'PUT', '', WRITE, CHANGES);
export const activateSubscriptionRoute = /* @__PURE__ */ operation('activateSubscriptionRoute', 'activateSubscription', 'PUT', '/activate', WRITE, CHANGES);
export const listSubscriptionsRoute = /* @__PURE__ */ operation('listSubscriptionsRoute', 'listSubscriptions', 'GET', '/list', READ, READS);
export const renameSubscriptionRoute = /* @__PURE__ */ operation('renameSubscriptionRoute', 'renameSubscription', 'PUT', '/rename', WRITE, CHANGES);
export const deleteSubscriptionRoute = /* @__PURE__ */ operation('deleteSubscriptionRoute', 'deleteSubscription', 'DELETE', '/{configId}', WRITE, CHANGES);
export const testSubscriptionRoute = /* @__PURE__ */ operation('testSubscriptionRoute', 'testSubscription', 'POST', '/test', WRITE, SENDS);
export const confirmSubscriptionRoute = /* @__PURE__ */ operation('confirmSubscriptionRoute', 'confirmSubscription', 'POST', '/confirm', WRITE, SENDS);
export const listDeadLettersRoute = /* @__PURE__ */ operation('listDeadLettersRoute', 'listDeadLetters', 'GET', '/dead-letters', READ, READS);
export const replayDeadLettersRoute = /* @__PURE__ */ operation('replayDeadLettersRoute', 'replayDeadLetters', 'POST', '/replay', WRITE, SENDS);
export const listAttemptsRoute = /* @__PURE__ */ operation('listAttemptsRoute', 'listAttempts', 'GET', '/attempts', READ, READS);
export const listMessagesRoute = /* @__PURE__ */ operation('listMessagesRoute', 'listMessages', 'GET', '/messages', READ, READS);
export const resendMessageRoute = /* @__PURE__ */ operation('resendMessageRoute', 'resendMessage', 'POST', '/resend', WRITE, SENDS);
export const recoverMessagesRoute = /* @__PURE__ */ operation('recoverMessagesRoute', 'recoverMessages', 'POST', '/recover', WRITE, SENDS);
export const listRecoveriesRoute = /* @__PURE__ */ operation('listRecoveriesRoute', 'listRecoveries', 'GET', '/recoveries', READ, READS);
/**
 * Reads nothing and sends nothing: a filter tried on an example `data` (docs/delivery.md, "Filters"). Limited
 * on the read budget all the same, so that its answers' RateLimit-* headers say a limit it has
 * (docs/decisions/rate-limit-headers.md).
 */
export const testFilterRoute = /* @__PURE__ */ operation('testFilterRoute', 'testFilter', 'POST', '/test-filter', READ, READS);

export const OPERATIONS = [
  createSubscriptionRoute,
  updateSubscriptionRoute,
  activateSubscriptionRoute,
  listSubscriptionsRoute,
  renameSubscriptionRoute,
  deleteSubscriptionRoute,
  testSubscriptionRoute,
  confirmSubscriptionRoute,
  listDeadLettersRoute,
  replayDeadLettersRoute,
  listAttemptsRoute,
  listMessagesRoute,
  resendMessageRoute,
  recoverMessagesRoute,
  listRecoveriesRoute,
  testFilterRoute,
] as const;

export type OperationId = (typeof OPERATIONS)[number]['id'];

export function operationById(id: OperationId): Operation {
  const found = OPERATIONS.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`Unknown operation ${id}`);
  return found;
}

/** Source file of an operation's Lambda handler, relative to the repository root. */
export function handlerEntryOf(op: Operation): string {
  return `functions/${op.handler}.ts`;
}

/**
 * The one function that is not an HTTP operation: it consumes the portal-events queue and
 * publishes each event to the topics of the subscriptions that chose its kind. The CDK stack
 * and the local stack both take its entry from here.
 */
export const DISPATCHER = { handler: 'dispatchPortalEvents', entry: 'functions/dispatchPortalEvents.ts' } as const;

/**
 * The consumer of the delivery dead-letter queue: sends each message SNS gave up on, unchanged, to
 * the recorder's fair queue with its portal as the message group, so one portal's flood of dead
 * letters does not hold up another's (shared/dead-letters/forwarding.ts). On AWS an SQS event
 * source; locally the same handler on the local stack's queue, sending to the SQS stand-in.
 */
export const DEAD_LETTER_FORWARDER = { handler: 'forwardDeadLetters', entry: 'functions/forwardDeadLetters.ts' } as const;

/**
 * The consumer of the dead letters by portal: keeps each message SNS gave up on in the
 * partition of the portal that owns its subscription (shared/dead-letters/), where list,
 * GET /dead-letters and POST /replay read it. On AWS an SQS event source on the fair queue the
 * forwarder sends to; locally the same handler on the local stack's fair queue.
 */
export const DEAD_LETTER_RECORDER = { handler: 'recordDeadLetters', entry: 'functions/recordDeadLetters.ts' } as const;

/**
 * The consumer of SNS's delivery status logs: keeps each delivery attempt SNS logged for a topic
 * of the service in the partition of the portal that owns its subscription (shared/attempts/),
 * where GET /attempts and list read it. On AWS a CloudWatch Logs subscription invokes it; locally
 * the SNS emulator's delivery status records are handed to the same handler in the same kind of
 * event.
 */
export const ATTEMPTS_RECORDER = { handler: 'recordDeliveryAttempts', entry: 'functions/recordDeliveryAttempts.ts' } as const;

/**
 * The scheduled function that restores the agreement of table and SNS (docs/reconciliation.md);
 * `npm run reconcile` runs the same handler against the local stack.
 */
export const RECONCILER = { handler: 'reconcileTopics', entry: 'functions/reconcileTopics.ts' } as const;

/**
 * The scheduled sweep of the work that is due (shared/dead-letters/sweep.ts): the scheduled
 * retries of dead letters (DELIVERY_RETRY_SCHEDULE), the notices of failing subscriptions and
 * their disabling (DISABLE_FAILING_AFTER). On AWS an EventBridge rule runs it every minute;
 * locally a timer runs the same handler.
 */
export const RETRY_SWEEPER = { handler: 'retryDeadLetters', entry: 'functions/retryDeadLetters.ts' } as const;

/**
 * The worker of recoveries (POST /recover): consumes the recovery jobs' queue, one job a slice of
 * work on one recovery, and queues the next slice (shared/recoveries/worker.ts). On AWS an SQS event
 * source on a fair queue keyed by portal; locally the same handler on the local stack's queue.
 */
export const RECOVERY_WORKER = { handler: 'runRecoveries', entry: 'functions/runRecoveries.ts' } as const;
