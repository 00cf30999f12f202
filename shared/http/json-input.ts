import type * as z from 'zod/mini';
import { jsonBody } from './middleware/json-body';
import { validateBody } from './middleware/validate-body';
import type { HttpMiddleware } from './types';

/** How an operation reads its body: the middleware that parses and validates it. */
export interface BodyInput<Body> {
  readonly middlewares: readonly HttpMiddleware[];
  /** Carries the body's type to the operation; never read. */
  readonly schema: z.ZodMiniType<Body>;
}

/**
 * A JSON object body, validated by `schema`. Only the handlers that take a body import this,
 * so the others' bundles carry neither the parser nor the validator.
 */
export function jsonInput<Body>(schema: z.ZodMiniType<Body>): BodyInput<Body> {
  return { schema, middlewares: [jsonBody(), validateBody(schema)] };
}
