/**
 * The checks API Gateway's HTTP API JWT authorizer makes, against the local token endpoint's
 * key set, with its answers: 401 `{"message":"Unauthorized"}` (with a `www-authenticate`
 * header saying why) when the token is missing or fails any check, 403 `{"message":"Forbidden"}`
 * when it is valid but carries none of the route's scopes.
 *
 * The token comes from the Authorization header, alone or after `Bearer `. Checked: the
 * signature (RS256, by the key whose `kid` the token names), `iss` equal to the issuer, `aud`
 * one of the audiences (or, only when there is no `aud`, `client_id`), `exp` present and in
 * the future, `nbf` and `iat` not in the future, and `scope` / `scp` holding one of the route's
 * scopes.
 */
import { createLocalJWKSet, decodeProtectedHeader, errors, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose';
import { SIGNING_ALGORITHM } from '../auth/signing-key';

export interface JwtAuthorizerOptions {
  /** The `iss` every token must carry. */
  readonly issuer: string;
  /** The `aud` values accepted (any one of them). */
  readonly audience: readonly string[];
  /** The keys tokens are verified with (the issuer's JWKS). */
  readonly keySet: JSONWebKeySet;
}

export type AuthorizerDecision =
  | {
      readonly allowed: true;
      /** The token's claims as API Gateway passes them to the integration: every value a string. */
      readonly claims: Record<string, string>;
      /** The token's scopes. */
      readonly scopes: string[];
    }
  | {
      readonly allowed: false;
      readonly statusCode: 401 | 403;
      readonly headers: Record<string, string>;
      readonly body: { message: 'Unauthorized' | 'Forbidden' };
    };

export type JwtAuthorizer = (authorization: string | undefined, routeScopes: readonly string[]) => Promise<AuthorizerDecision>;

export function createJwtAuthorizer(options: JwtAuthorizerOptions): JwtAuthorizer {
  const keys = createLocalJWKSet(options.keySet);
  const audiences = new Set(options.audience);

  return async function authorize(authorization, routeScopes) {
    const token = authorization?.trim().replace(/^Bearer\s+/i, '');
    if (!token) return unauthorized();

    let payload: JWTPayload;
    try {
      // A token must name its key, as API Gateway looks the key up in the JWKS by kid.
      if (typeof decodeProtectedHeader(token).kid !== 'string') return unauthorized('the token has no kid header');
      ({ payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        algorithms: [SIGNING_ALGORITHM],
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      return unauthorized(reasonOf(error));
    }
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000) {
      return unauthorized('the token was issued in the future');
    }
    if (!hasValidAudience(payload, audiences)) return unauthorized('the token does not have a valid audience');

    const scopes = scopesOf(payload);
    if (routeScopes.length > 0 && !routeScopes.some((scope) => scopes.includes(scope))) {
      return forbidden(routeScopes);
    }
    return { allowed: true, claims: claimsAsApiGatewayPassesThem(payload), scopes };
  };
}

/** `aud` decides when present (a string or an array); only without it does `client_id`. */
function hasValidAudience(payload: JWTPayload, audiences: ReadonlySet<string>): boolean {
  if (payload.aud !== undefined) {
    const values = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    return values.some((value) => audiences.has(value));
  }
  return typeof payload.client_id === 'string' && audiences.has(payload.client_id);
}

/** `scp` (an array or a space-separated string) or else `scope` (space-separated). */
function scopesOf(payload: JWTPayload): string[] {
  const source = payload.scp ?? payload.scope;
  if (Array.isArray(source)) return source.filter((scope): scope is string => typeof scope === 'string');
  return typeof source === 'string' ? source.split(' ').filter(Boolean) : [];
}

/**
 * Claim values as strings, the way API Gateway renders them into
 * `requestContext.authorizer.jwt.claims`: strings as they are, numbers and booleans as text,
 * arrays as `[a b]`, objects as JSON; null claims are left out.
 */
export function claimsAsApiGatewayPassesThem(payload: JWTPayload): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') claims[name] = value;
    else if (Array.isArray(value)) claims[name] = `[${value.map(String).join(' ')}]`;
    else if (typeof value === 'object') claims[name] = JSON.stringify(value);
    else claims[name] = String(value);
  }
  return claims;
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'the token does not have a valid issuer';
    if (error.claim === 'nbf') return 'the token is not valid yet';
    if (error.claim === 'exp') return 'the token has no expiration time';
    return `the token has an invalid ${error.claim} claim`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token was not signed by a key of the issuer';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token signing algorithm is not supported';
  return 'the token is not a valid JWT';
}

function unauthorized(reason?: string): AuthorizerDecision {
  const challenge = reason ? `Bearer scope="" error="invalid_token" error_description="${reason}"` : 'Bearer';
  return { allowed: false, statusCode: 401, headers: { 'www-authenticate': challenge }, body: { message: 'Unauthorized' } };
}

function forbidden(routeScopes: readonly string[]): AuthorizerDecision {
  const wanted = routeScopes.join(' ');
  const challenge = `Bearer scope="${wanted}" error="insufficient_scope" error_description="expected scopes: [${wanted}]"`;
  return { allowed: false, statusCode: 403, headers: { 'www-authenticate': challenge }, body: { message: 'Forbidden' } };
}
