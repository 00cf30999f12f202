import type { BodyReader } from '../contract/body-reader';
import type { BodyInput } from './json-input';
import { validateBody } from './middleware/validate-body';
import type { HttpMiddleware } from './types';

/** Hands the query parameters (all strings, as API Gateway passes them) to validation as the request's input. */
const queryParameters: HttpMiddleware = {
  name: 'queryParameters',
  before: (request) => {
    request.context.requestBody = { ...(request.event.queryStringParameters ?? {}) };
  },
};

/**
 * The query string of a GET, read by `reader` like a body (its schema in schemas.ts, compiled at
 * build time): the operation receives the reader's output as its `body`.
 */
export function queryInput<Query>(reader: BodyReader<Query>): BodyInput<Query> {
  return { reader, middlewares: [queryParameters, validateBody(reader)] };
}
