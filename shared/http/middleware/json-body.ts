import { BadRequestError } from '../errors';
import type { HttpMiddleware } from '../types';

export const MAX_BODY_BYTES = 64 * 1024;

// application/json, or any media type with a +json suffix, with optional parameters.
const JSON_MEDIA_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/**
 * Reads the request body as a JSON object into `context.requestBody`. Refuses, with a 400 the
 * caller can act on: bodies over 64 KiB, a declared non-JSON content type, a missing body,
 * malformed JSON, and JSON that is not an object.
 */
export function jsonBody(): HttpMiddleware {
  return {
    name: 'jsonBody',
    before: (request) => {
      const { event } = request;
      const contentType = event.headers?.['content-type'];
      if (contentType !== undefined && !JSON_MEDIA_TYPE.test(contentType)) {
        throw new BadRequestError(
          `The request body must be JSON: send it with content-type application/json (got ${JSON.stringify(contentType.slice(0, 100))}).`,
          'UNSUPPORTED_CONTENT_TYPE',
        );
      }
      const raw = event.body ?? '';
      const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
      if (bytes.length > MAX_BODY_BYTES) {
        throw new BadRequestError('The request body is larger than 64 KiB.', 'BODY_TOO_LARGE');
      }
      const text = bytes.toString('utf8');
      if (text.trim() === '') {
        throw new BadRequestError('The request needs a JSON object body.', 'MISSING_BODY');
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new BadRequestError('The request body is not valid JSON.', 'MALFORMED_JSON');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new BadRequestError('The request body must be a JSON object.', 'BODY_NOT_OBJECT');
      }
      request.context.requestBody = parsed;
    },
  };
}
