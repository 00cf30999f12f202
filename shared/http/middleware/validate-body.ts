import type { BodyRule } from '../../contract/body-rules';
import { InvalidRequestError } from '../../contract/invalid-request';
import type { HttpMiddleware } from '../types';

/**
 * Reads `context.requestBody` by the operation's body rule and replaces it with the rule's
 * output (trimmed, normalized, unknown fields dropped). A body that breaks the rules is refused
 * with every problem at once (InvalidRequestError).
 */
export function validateBody(rule: BodyRule<unknown>): HttpMiddleware {
  return {
    name: 'validateBody',
    before: (request) => {
      const reading = rule.read(request.context.requestBody);
      if (reading.problems) throw new InvalidRequestError(reading.problems);
      request.context.requestBody = reading.value;
    },
  };
}
