import { UnauthorizedError } from '../errors';
import type { HttpMiddleware } from '../types';

// Portal ids become DynamoDB keys and SNS tag values; SNS tags allow only these characters
// (and no '#': partitions named with one hold the idempotency records).
export const PORTAL_ID_PATTERN = /^[A-Za-z0-9_.:/=+@-]{1,128}$/;

/**
 * Takes the caller's portal from the JWT claims the API Gateway authorizer verified. There is
 * no fallback: a request without the claim is refused, never served for a default portal.
 */
export function portalFromClaims(claimName: string): HttpMiddleware {
  return {
    name: 'portalFromClaims',
    before: (request) => {
      const claims = request.event.requestContext?.authorizer?.jwt?.claims;
      const value = claims?.[claimName];
      if (typeof value !== 'string' || value === '') {
        throw new UnauthorizedError(
          `The access token carries no ${claimName} claim; use a token issued for a portal.`,
          'MISSING_PORTAL_CLAIM',
        );
      }
      if (!PORTAL_ID_PATTERN.test(value)) {
        throw new UnauthorizedError(
          `The access token's ${claimName} claim is not a valid portal id.`,
          'INVALID_PORTAL_CLAIM',
        );
      }
      request.context.portalId = value;
    },
  };
}
