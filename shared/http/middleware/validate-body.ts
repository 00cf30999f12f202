import type { BodyReader } from '../../contract/body-reader';
import { InvalidRequestError } from '../../contract/invalid-request';
import type { HttpMiddleware } from '../types';

/**
 * Reads `context.requestBody` with the operation's body reader and replaces it with the
 * reader's output (trimmed, normalized, unknown fields dropped). A body that breaks the contract
 * is refused with every problem at once (InvalidRequestError).
 */
export function validateBody(reader: BodyReader<unknown>): HttpMiddleware {
  return {
    name: 'validateBody',
    before: (request) => {
      const reading = reader.read(request.context.requestBody);
      if (reading.problems) throw new InvalidRequestError(reading.problems);
      request.context.requestBody = reading.value;
    },
  };
}
