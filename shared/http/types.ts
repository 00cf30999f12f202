import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type { MiddlewareObj } from '@middy/core';

/** API Gateway HTTP API (payload 2.0) event with a JWT authorizer. */
export type HttpEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** What the middleware chain learns about a request and hands to the operation. */
export interface OperationContext extends Context {
  /** The caller's portal, from the token's portal claim; never from the request. */
  portalId: string;
  /** The request body: parsed JSON, then the validated input once validation ran. */
  requestBody: unknown;
  /**
   * The request's Idempotency-Key header, checked; only for idempotent operations, and
   * undefined when the request has none.
   */
  idempotencyKey?: string;
  /** The portal's token bucket for the route, once the rate limit consulted it (middleware/portal-rate-limit.ts). */
  portalBucket?: PortalBucket;
}

/** A portal's token bucket on one route: `burst` tokens, one back every `intervalMs`; full again at `fullAt` (epoch ms). */
export interface PortalBucket {
  readonly burst: number;
  readonly intervalMs: number;
  readonly fullAt: number;
}

export type HttpMiddleware = MiddlewareObj<HttpEvent, HttpResult, Error, OperationContext>;
