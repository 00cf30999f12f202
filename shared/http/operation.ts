import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { portalChangeLimit, portalClaim, portalReadLimit, portalSendLimit, tableName } from '../environment';
import { logger, withInvocationLogging } from '../logger';
import { documentClient } from '../aws/dynamodb';
import type { Operation, OperationId } from '../operations';
import { successResponse } from './envelope';
import { errorEnvelope } from './middleware/error-envelope';
import { portalFromClaims } from './middleware/portal-from-claims';
import { portalRateLimit, rateLimitHeaders } from './middleware/portal-rate-limit';
import { requestLog } from './middleware/request-log';
import type { BodyInput } from './json-input';
import type { HttpEvent, HttpMiddleware, HttpResult, OperationContext } from './types';

export interface OperationInput<Body> {
  /** The caller's portal, from the token. */
  portalId: string;
  /** The validated request body (undefined for operations that take none). */
  body: Body;
  event: HttpEvent;
  context: Context;
}

export type OperationResult = { message: string } & Record<string, unknown>;

export interface OperationSpec<Body> {
  /** How the body is read (jsonInput(rule)); operations without one ignore any body sent. */
  body?: BodyInput<Body>;
  /**
   * Makes requests with an Idempotency-Key header run at most once per portal and key
   * (shared/http/idempotency.ts). Passed in by the operations that want it, so the others'
   * bundles do not carry the idempotency library.
   */
  idempotency?: IdempotentRuns;
  /**
   * The portal's rate limit: sendLimitPerPortal for the operations that make SNS send (the
   * operations table's `limitedPerPortal`), changeLimitPerPortal or readLimitPerPortal for the
   * others (its `portalBudget`); every operation passes the one the table names (checked at cold start).
   */
  portalLimit?: (operation: Operation) => HttpMiddleware;
  /** 202 for an operation that answers once its work is started (a recovery); 200 otherwise. */
  successStatus?: 202;
  /** The operation itself; its result becomes the 200 (or successStatus) envelope `{success: true, ...}`. */
  run: (input: OperationInput<Body>) => Promise<OperationResult>;
}

/** What an idempotent request is recognized by: its portal and key; and compared by: its body. */
export interface IdempotentRequest {
  portalId: string;
  idempotencyKey: string;
  /** The validated body. */
  body: unknown;
}

export interface IdempotentRuns {
  /** Reads the Idempotency-Key header into the context (middleware/idempotency-key.ts). */
  readonly middleware: HttpMiddleware;
  /**
   * Runs `operation` for the first request with this portal and key and remembers its result;
   * answers a repeated request with that result instead of running it again. Only successful
   * results are remembered: when `operation` throws, the key is free again.
   */
  runOnce(request: IdempotentRequest, context: Context, operation: () => Promise<OperationResult>): Promise<OperationResult>;
}

/**
 * The per-portal limit of the routes that make SNS send, with this function's settings
 * (PORTAL_SEND_BURST, PORTAL_SEND_RATE_PER_MINUTE): what their handlers pass as `portalLimit`.
 */
export const sendLimitPerPortal = (operation: Operation): HttpMiddleware =>
  portalRateLimit({ client: documentClient, tableName, operation, ...portalSendLimit });

/** The per-portal limit of the routes that change a subscription (PORTAL_CHANGE_BURST, PORTAL_CHANGE_RATE_PER_MINUTE; the operations table's `portalBudget` 'change'). */
export const changeLimitPerPortal = (operation: Operation): HttpMiddleware => {
  if (operation.portalBudget !== 'change') throw new Error(`${operation.id}: the operations table does not give it the change budget.`);
  return portalRateLimit({ client: documentClient, tableName, operation, ...portalChangeLimit });
};

/** The per-portal limit of the reading routes (PORTAL_READ_BURST, PORTAL_READ_RATE_PER_MINUTE; `portalBudget` 'read'). */
export const readLimitPerPortal = (operation: Operation): HttpMiddleware => {
  if (operation.portalBudget !== 'read') throw new Error(`${operation.id}: the operations table does not give it the read budget.`);
  return portalRateLimit({ client: documentClient, tableName, operation, ...portalReadLimit });
};

/** A Lambda handler as the runtime calls it. */
export type HttpHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

/**
 * Wraps an operation in the middleware chain every handler shares: the invocation's Lambda
 * context and operation on each of its log lines, one log line per request, error → envelope, portal from the token's claims, and for
 * operations with a body, JSON parsing and validation; on the routes that make AWS calls, the
 * portal's rate limit (the operations table's `limitedPerPortal` or `portalBudget`) and its RateLimit-* headers. Idempotent operations also read the
 * Idempotency-Key header, and run through `spec.idempotency` when a request has one: inside
 * the error envelope, so that what is remembered is only ever a success, never an error answer.
 */
export function httpOperation<Body = undefined>(operation: Operation & { readonly id: OperationId }, spec: OperationSpec<Body>): HttpHandler {
  // Every route that makes an AWS call is limited per portal: by the sending routes' settings, or
  // by its budget; the table says which, and the handler passes that limit (and only then).
  const limited = operation.limitedPerPortal || operation.portalBudget !== undefined;
  if ((operation.limitedPerPortal && operation.portalBudget !== undefined) || limited !== (spec.portalLimit !== undefined)) {
    throw new Error(`${operation.id}: its handler must pass a portalLimit exactly when the operations table gives it limitedPerPortal or a portalBudget (not both).`);
  }
  // Half a second before the function's timeout, answer a 503 (a TimeoutError, see
  // error-envelope.ts) rather than let Lambda cut the request off without an answer.
  const chain = middy<HttpEvent, HttpResult, Error, OperationContext>({ timeoutEarlyInMillis: 500 }).use(requestLog(logger));
  // Ahead of the error envelope, so the envelope's answers (a 400 or 429 once the bucket was consulted) carry RateLimit-* too.
  if (spec.portalLimit) chain.use(rateLimitHeaders);
  chain.use(errorEnvelope(logger)).use(portalFromClaims(portalClaim));
  // Passed in by the handlers that need them, so no other bundle carries their code.
  if (spec.idempotency) chain.use(spec.idempotency.middleware);
  for (const middleware of spec.body?.middlewares ?? []) chain.use(middleware);
  // After the body's checks, so a request refused for its body spends no token and writes nothing.
  if (spec.portalLimit) chain.use(spec.portalLimit(operation));
  const { idempotency } = spec;
  const handler = chain.handler(async (event, context) => {
    const { portalId, requestBody, idempotencyKey } = context;
    const run = () => spec.run({ portalId, body: requestBody as Body, event, context });
    const result =
      idempotency && idempotencyKey !== undefined
        ? await idempotency.runOnce({ portalId, idempotencyKey, body: requestBody }, context, run)
        : await run();
    return successResponse(result, spec.successStatus);
  });
  // The chain fills OperationContext's fields before the operation runs.
  return withInvocationLogging(operation.id, handler as unknown as HttpHandler);
}
