import { BadRequestError } from '../errors';
import type { HttpMiddleware } from '../types';

/** API Gateway (payload 2.0) delivers header names in lower case. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

// Printable ASCII, space included; at least one character that is not a space.
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

/**
 * Reads the optional Idempotency-Key header into `context.idempotencyKey`. Without the header
 * nothing is set and the request is served as any other; a header that is there but empty,
 * blank, longer than 255 characters or not printable ASCII is refused with a 400.
 */
export function idempotencyKey(): HttpMiddleware {
  return {
    name: 'idempotencyKey',
    before: (request) => {
      const value = request.event.headers?.[IDEMPOTENCY_KEY_HEADER];
      request.context.idempotencyKey = undefined;
      if (value === undefined) return;
      if (!IDEMPOTENCY_KEY_PATTERN.test(value) || value.trim() === '') {
        throw new BadRequestError(
          'The Idempotency-Key header must be 1-255 printable ASCII characters (letters, digits, punctuation or spaces, ' +
            'not only spaces); send a new random value, such as a UUID, for each distinct create.',
          'INVALID_IDEMPOTENCY_KEY',
        );
      }
      request.context.idempotencyKey = value;
    },
  };
}
