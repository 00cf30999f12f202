import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { config } from '../environment';
import { logger } from '../logger';
import type { OperationId } from '../operations';
import { successResponse } from './envelope';
import { errorEnvelope } from './middleware/error-envelope';
import { jsonBody } from './middleware/json-body';
import { portalFromClaims } from './middleware/portal-from-claims';
import { requestLog } from './middleware/request-log';
import { validateBody } from './middleware/validate-body';
import type { HttpEvent, HttpResult, OperationContext } from './types';

export interface OperationInput<Body> {
  /** The caller's portal, from the token. */
  portalId: string;
  /** The validated request body (undefined for operations that take none). */
  body: Body;
  event: HttpEvent;
  context: Context;
}

export interface OperationSpec<Body> {
  /** Schema of the JSON body; operations without one ignore any body sent. */
  body?: z.ZodMiniType<Body>;
  /** The operation itself; its result becomes the 200 envelope `{success: true, ...}`. */
  run: (input: OperationInput<Body>) => Promise<{ message: string } & Record<string, unknown>>;
}

/** A Lambda handler as the runtime calls it. */
export type HttpHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

/**
 * Wraps an operation in the middleware chain every handler shares: Lambda context in the
 * logs, one log line per request, error → envelope, portal from the token's claims, and for
 * operations with a body, JSON parsing and validation.
 */
export function httpOperation<Body = undefined>(operationId: OperationId, spec: OperationSpec<Body>): HttpHandler {
  // Half a second before the function's timeout, answer a 503 (a TimeoutError, see
  // error-envelope.ts) rather than let Lambda cut the request off without an answer.
  const chain = middy<HttpEvent, HttpResult, Error, OperationContext>({ timeoutEarlyInMillis: 500 })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    // Per invocation, not per module: where several handlers share a process (the local
    // stack, tests), each line still names the operation it belongs to.
    .use({ before: () => logger.appendKeys({ operation: operationId }) })
    .use(requestLog(logger))
    .use(errorEnvelope(logger))
    .use(portalFromClaims(config.portalClaim));
  if (spec.body) {
    chain.use(jsonBody()).use(validateBody(spec.body));
  }
  const handler = chain.handler(async (event, context) => {
    const result = await spec.run({ portalId: context.portalId, body: context.requestBody as Body, event, context });
    return successResponse(result);
  });
  // The chain fills OperationContext's fields before the operation runs.
  return handler as unknown as HttpHandler;
}
