import { PORTAL_ID_PATTERN } from '../../subscriptions/portal-id';
import { UnauthorizedError } from '../errors';
import type { HttpMiddleware } from '../types';

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
