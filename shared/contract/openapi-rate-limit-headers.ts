/**
 * The RateLimit-* headers in the OpenAPI document: declared on every answer of every operation
 * (owasp:api4:2023-rate-limit asks it of each 2XX and 4XX), whatever routes the operations table holds. The fields of
 * draft-ietf-httpapi-ratelimit-headers-06 (https://datatracker.ietf.org/doc/html/draft-ietf-httpapi-ratelimit-headers-06),
 * as shared/http/middleware/portal-rate-limit.ts sends them: required on the success (2XX) of a route limited
 * per portal (every one of its successes consulted the bucket), optional elsewhere, since API Gateway's
 * own answers (401, 403, 413, its stage throttle's 429), the local gateway's that stand in for them
 * (and its 431), and the service's refusals made before the bucket is consulted carry none.
 */

import { MAX_PORTAL_BURST } from '../setting-rules';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is plain JSON
type Json = any;

/** Seconds until a bucket is full again, at most: the largest burst at the least rate, one a minute. */
const MAX_RESET_SECONDS = MAX_PORTAL_BURST * 60;
const integer = (minimum: number, maximum: number) => ({ type: 'integer', format: 'int32', minimum, maximum });

const ABSENT =
  ' Sent by the service on every answer of a route limited per portal once the portal\'s bucket was consulted: ' +
  'its success (200, or 202 for recover), a 400, 409 or 429 of the operation, a 500 or 503. Absent from API Gateway\'s own answers (401, 403, 413, ' +
  'its stage throttle\'s 429 `{message}`) and the local gateway\'s that stand in for them (and its 431), from a 400 ' +
  'or 401 refused before the bucket is consulted (the body\'s or the token\'s checks, which spend no token), and on ' +
  'a route with no per-portal limit (none today).';

const FIELDS = {
  'RateLimit-Limit': {
    description: 'The portal\'s burst on this route: how many requests it may send at once when its bucket is full (draft-ietf-httpapi-ratelimit-headers-06, RateLimit-Limit).',
    schema: integer(1, MAX_PORTAL_BURST),
    example: 25,
  },
  'RateLimit-Remaining': {
    description: 'How many more requests the portal may send on this route now; 0 on its 429 (draft-ietf-httpapi-ratelimit-headers-06, RateLimit-Remaining).',
    schema: integer(0, MAX_PORTAL_BURST),
    example: 24,
  },
  'RateLimit-Reset': {
    description:
      'Seconds until the portal\'s bucket on this route is full again (RateLimit-Limit requests); one request comes back every ' +
      '60 / (rate a minute) seconds before that, and a `RATE_LIMITED` 429\'s Retry-After says when the next one does (draft-ietf-httpapi-ratelimit-headers-06, RateLimit-Reset).',
    schema: integer(0, MAX_RESET_SECONDS),
    example: 3,
  },
} as const;

/** The header components: each field, optional, with when it is absent. */
export const RATE_LIMIT_HEADER_COMPONENTS: Record<string, Json> = Object.fromEntries(
  Object.entries(FIELDS).map(([name, field]) => [name, { ...field, description: field.description + ABSENT, required: false }]),
);

const optional = Object.fromEntries(Object.keys(FIELDS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const required = Object.fromEntries(
  Object.entries(FIELDS).map(([name, field]) => [name, { ...field, description: `${field.description} Sent on every success (2XX) of this route.`, required: true }]),
);

/**
 * `responses` (status -> response object) with the RateLimit-* headers added to each answer, beside
 * the headers it has (Retry-After): required on the 2XX of a route limited per portal.
 */
export function withRateLimitHeaders(responses: Record<string, Json>, limitedPerPortal: boolean): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const headers = limitedPerPortal && status.startsWith('2') ? required : optional;
      return [status, { ...response, headers: { ...response.headers, ...headers } }];
    }),
  );
}
