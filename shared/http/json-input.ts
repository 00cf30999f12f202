import type { BodyRule } from '../contract/body-rules';
import { jsonBody } from './middleware/json-body';
import { validateBody } from './middleware/validate-body';
import type { HttpMiddleware } from './types';

/** How an operation reads its body: the middleware that parses and validates it. */
export interface BodyInput<Body> {
  readonly middlewares: readonly HttpMiddleware[];
  /** Carries the body's type to the operation; never read. */
  readonly rule: BodyRule<Body>;
}

/**
 * A JSON object body, read by `rule`. Only the handlers that take a body import this, so the
 * others' bundles carry neither the parser nor the rules.
 */
export function jsonInput<Body>(rule: BodyRule<Body>): BodyInput<Body> {
  return { rule, middlewares: [jsonBody(), validateBody(rule)] };
}
