import type { BodyReader } from '../contract/body-reader';
import { jsonBody } from './middleware/json-body';
import { validateBody } from './middleware/validate-body';
import type { HttpMiddleware } from './types';

/** How an operation reads its body: the middleware that parses and validates it. */
export interface BodyInput<Body> {
  readonly middlewares: readonly HttpMiddleware[];
  /** Carries the body's type to the operation; never read. */
  readonly reader: BodyReader<Body>;
}

/**
 * A JSON object body, read by `reader`. Only the handlers that take a body import this, so the
 * others' bundles carry neither the parser nor a validator.
 */
export function jsonInput<Body>(reader: BodyReader<Body>): BodyInput<Body> {
  return { reader, middlewares: [jsonBody(), validateBody(reader)] };
}
