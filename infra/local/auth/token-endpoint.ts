/**
 * A local stand-in for the platform's authorization server: the token endpoint
 * (`POST /v6/authentication/oauth2/token`) for the client_credentials grant (RFC 6749 §4.4) of
 * the clients of the clients file, the authorization_code grant with PKCE (§4.1, RFC 7636) of
 * the public clients (the admin page) whose codes the authorization endpoint
 * (authorization-endpoint.ts) hands out, and the refresh_token grant (§6) of their refresh tokens;
 * and the key set and discovery document API Gateway's JWT authorizer reads from an issuer.
 *
 * A token carries `iss`, `aud`, `sub` (the client, or the person who signed in), `client_id`,
 * `iat`, `exp`, `jti`, the portal claim (named by PORTAL_CLAIM) = the client's (or person's)
 * portal, and `scope` = its scopes, or the ones the request's `scope` names (each must be one of them).
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { SignJWT } from 'jose';
import { BodyTooLargeError, readBody, sendJson } from '../gateway/http-body';
import type { OAuthClient } from './clients';
import { AUTHORIZATION_PATH, TOKEN_PATH } from '../../../shared/contract/token-endpoint';
import { authorizationEndpoint, type PublicClient } from './authorization-endpoint';
import { createGrantStore, type Grant, GrantRefusal } from './authorization-grants';
import { keySetOf, SIGNING_ALGORITHM, type SigningKey } from './signing-key';

export const JWKS_PATH = '/.well-known/jwks.json';
export const DISCOVERY_PATH = '/.well-known/openid-configuration';

const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;
/** A token request is a few form fields. */
const MAX_TOKEN_REQUEST_BYTES = 16 * 1024;
const FORM_MEDIA_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

export interface OAuthServerOptions {
  /** The issuer URL, e.g. http://127.0.0.1:3000; the endpoints below are paths under it. */
  readonly issuer: string;
  readonly audience: string;
  /** Name of the claim holding the client's portal (the service's PORTAL_CLAIM). */
  readonly portalClaim: string;
  readonly signingKey: SigningKey;
  readonly clients: readonly OAuthClient[];
  readonly tokenLifetimeSeconds?: number;
  /** Who may use the authorization code grant; the clients file's entries are the people who sign in. */
  readonly publicClients?: readonly PublicClient[];
  /** The stylesheet of the sign-in page (a path of the same origin). */
  readonly signInStylesheet?: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  /** Only to a person's sign-in (authorization_code, refresh_token). */
  refresh_token?: string;
}

export interface OAuthServer {
  readonly tokenUrl: string;
  readonly authorizationUrl: string;
  readonly jwksUrl: string;
  /** The token endpoint, the key set and the discovery document, by path. */
  readonly routes: Readonly<Record<string, RequestListener>>;
  /** What the token endpoint answers a client asking for `scopes` (default: all of its scopes). */
  issueToken(client: OAuthClient, scopes?: readonly string[]): Promise<TokenResponse>;
}

/** An OAuth error answer (RFC 6749 §5.2). */
class OAuthError extends Error {
  constructor(
    readonly statusCode: 400 | 401 | 405,
    readonly error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope',
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export function createOAuthServer(options: OAuthServerOptions): OAuthServer {
  const lifetime = options.tokenLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
  const clientsById = new Map(options.clients.map((client) => [client.clientId, client]));
  const tokenUrl = options.issuer + TOKEN_PATH;
  const jwksUrl = options.issuer + JWKS_PATH;
  const publicClients = options.publicClients ?? [];
  const grants = createGrantStore();

  async function signedToken(grant: Grant): Promise<TokenResponse> {
    const scope = grant.scopes.join(' ');
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT({ client_id: grant.clientId, scope, [options.portalClaim]: grant.portalId })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: options.signingKey.kid, typ: 'JWT' })
      .setIssuer(options.issuer)
      .setAudience(options.audience)
      .setSubject(grant.subject)
      .setIssuedAt(now)
      .setExpirationTime(now + lifetime)
      .setJti(randomUUID())
      .sign(options.signingKey.privateKey);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: lifetime, scope };
  }

  function issueToken(client: OAuthClient, scopes: readonly string[] = client.scopes): Promise<TokenResponse> {
    return signedToken({ subject: client.clientId, clientId: client.clientId, portalId: client.portalId, scopes });
  }

  /** A public client, named by client_id; it has no secret to send (RFC 6749 §2.3, RFC 7636). */
  function publicClientOf(parameters: ReadonlyMap<string, string>): PublicClient {
    const client = publicClients.find((candidate) => candidate.clientId === parameters.get('client_id'));
    if (!client) throw new OAuthError(401, 'invalid_client', 'Unknown client: this grant is for the registered public clients.');
    if (parameters.has('client_secret')) throw new OAuthError(400, 'invalid_request', 'A public client sends no client_secret.');
    return client;
  }

  /** Access and (rotated) refresh token of a person's sign-in. */
  async function personsTokens(grant: Grant, fromCode?: string): Promise<TokenResponse> {
    return { ...(await signedToken(grant)), refresh_token: grants.issueRefreshToken(grant, fromCode) };
  }

  function redeemed(redeem: () => Grant): Grant {
    try {
      return redeem();
    } catch (error) {
      if (error instanceof GrantRefusal) throw new OAuthError(400, 'invalid_grant', error.message);
      throw error;
    }
  }

  async function codeGrant(parameters: ReadonlyMap<string, string>): Promise<TokenResponse> {
    const client = publicClientOf(parameters);
    const code = parameters.get('code');
    if (!code) throw new OAuthError(400, 'invalid_request', 'code is missing.');
    const grant = redeemed(() => grants.redeemCode(code, client.clientId, parameters.get('redirect_uri'), parameters.get('code_verifier')));
    return personsTokens(grant, code);
  }

  async function refreshGrant(parameters: ReadonlyMap<string, string>): Promise<TokenResponse> {
    const client = publicClientOf(parameters);
    const refreshToken = parameters.get('refresh_token');
    if (!refreshToken) throw new OAuthError(400, 'invalid_request', 'refresh_token is missing.');
    const grant = redeemed(() => grants.redeemRefreshToken(refreshToken, client.clientId));
    // Fewer scopes than the sign-in granted may be asked for, never more (RFC 6749 §6).
    const requested = [...new Set((parameters.get('scope') ?? '').split(' ').filter(Boolean))];
    const beyond = requested.filter((scope) => !grant.scopes.includes(scope));
    if (beyond.length > 0) throw new OAuthError(400, 'invalid_scope', `The sign-in did not grant: ${beyond.join(' ')}.`);
    return personsTokens(requested.length > 0 ? { ...grant, scopes: requested } : grant);
  }

  async function tokenRequest(request: IncomingMessage): Promise<TokenResponse> {
    if (request.method !== 'POST') {
      throw new OAuthError(405, 'invalid_request', 'The token endpoint takes POST requests.', { allow: 'POST' });
    }
    const parameters = await formParameters(request);
    const grantType = parameters.get('grant_type');
    if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is missing.');
    if (grantType === 'authorization_code') return codeGrant(parameters);
    if (grantType === 'refresh_token') return refreshGrant(parameters);
    if (grantType !== 'client_credentials') {
      throw new OAuthError(400, 'unsupported_grant_type', 'The grants are authorization_code, refresh_token and client_credentials.');
    }
    const client = authenticatedClient(request, parameters, clientsById);
    return issueToken(client, grantedScopes(client, parameters.get('scope')));
  }

  const tokenEndpoint: RequestListener = (request, response) => {
    tokenRequest(request).then(
      (token) => sendJson(request, response, 200, token, noStore()),
      (error: unknown) => answerError(request, response, error),
    );
  };
  const jwksEndpoint: RequestListener = (request, response) => {
    sendJson(request, response, 200, keySetOf(options.signingKey));
  };
  const discoveryEndpoint: RequestListener = (request, response) => {
    sendJson(request, response, 200, {
      issuer: options.issuer,
      authorization_endpoint: options.issuer + AUTHORIZATION_PATH,
      token_endpoint: tokenUrl,
      jwks_uri: jwksUrl,
      grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
      id_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
    });
  };

  const signIn = authorizationEndpoint({
    users: options.clients,
    publicClients,
    grants,
    stylesheet: options.signInStylesheet ?? '/admin/admin.css',
  });

  return {
    tokenUrl,
    authorizationUrl: options.issuer + AUTHORIZATION_PATH,
    jwksUrl,
    routes: { [TOKEN_PATH]: tokenEndpoint, [AUTHORIZATION_PATH]: signIn, [JWKS_PATH]: jwksEndpoint, [DISCOVERY_PATH]: discoveryEndpoint },
    issueToken,
  };
}

/** The form fields of the body; each may appear once (RFC 6749 §3.2). */
async function formParameters(request: IncomingMessage): Promise<Map<string, string>> {
  if (!FORM_MEDIA_TYPE.test(request.headers['content-type'] ?? '')) {
    throw new OAuthError(400, 'invalid_request', 'Send the parameters form-encoded (application/x-www-form-urlencoded).');
  }
  let body: Buffer;
  try {
    body = await readBody(request, MAX_TOKEN_REQUEST_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new OAuthError(400, 'invalid_request', 'The request is too large.');
    throw error;
  }
  const parameters = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    if (parameters.has(name)) throw new OAuthError(400, 'invalid_request', `${name} is given more than once.`);
    parameters.set(name, value);
  }
  return parameters;
}

/**
 * The client, authenticated by client_id and client_secret in the body (client_secret_post) or
 * by HTTP Basic (client_secret_basic), never both at once (RFC 6749 §2.3).
 */
function authenticatedClient(
  request: IncomingMessage,
  parameters: ReadonlyMap<string, string>,
  clientsById: ReadonlyMap<string, OAuthClient>,
): OAuthClient {
  const basic = basicCredentials(request.headers.authorization);
  if (basic && parameters.has('client_secret')) {
    throw new OAuthError(400, 'invalid_request', 'Authenticate either with HTTP Basic or with client_secret, not both.');
  }
  if (basic && parameters.has('client_id') && parameters.get('client_id') !== basic.clientId) {
    throw new OAuthError(400, 'invalid_request', 'client_id differs from the HTTP Basic user.');
  }
  const clientId = basic?.clientId ?? parameters.get('client_id');
  const clientSecret = basic?.clientSecret ?? parameters.get('client_secret');
  if (!clientId || !clientSecret) throw new OAuthError(400, 'invalid_request', 'client_id and client_secret are required.');

  const client = clientsById.get(clientId);
  // The secret is compared even for an unknown client, so both take the same time.
  const secretMatches = sameSecret(clientSecret, client?.clientSecret ?? '');
  if (!client || !secretMatches) {
    const challenge: Record<string, string> = basic ? { 'www-authenticate': 'Basic realm="local"' } : {};
    throw new OAuthError(401, 'invalid_client', 'Unknown client or wrong client secret.', challenge);
  }
  return client;
}

/** client_id and client_secret of an `Authorization: Basic` header, each form-encoded (RFC 6749 §2.3.1). */
function basicCredentials(authorization: string | undefined): { clientId: string; clientSecret: string } | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) throw new OAuthError(400, 'invalid_request', 'The HTTP Basic credentials have no colon.');
  try {
    const formDecode = (text: string) => decodeURIComponent(text.replaceAll('+', ' '));
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError(400, 'invalid_request', 'The HTTP Basic credentials are not form-encoded.');
  }
}

/** The requested scopes (space-separated), each one the client's; no `scope` parameter: all of them. */
function grantedScopes(client: OAuthClient, requested: string | undefined): string[] {
  const scopes = [...new Set((requested ?? '').split(' ').filter(Boolean))];
  if (scopes.length === 0) return [...client.scopes];
  const refused = scopes.filter((scope) => !client.scopes.includes(scope));
  if (refused.length > 0) {
    throw new OAuthError(400, 'invalid_scope', `The client may not have: ${refused.join(' ')}.`);
  }
  return scopes;
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected)) && expected !== '';
}

function noStore(): Record<string, string> {
  return { 'cache-control': 'no-store', pragma: 'no-cache' };
}

function answerError(request: IncomingMessage, response: ServerResponse, error: unknown): void {
  if (error instanceof OAuthError) {
    sendJson(request, response, error.statusCode, { error: error.error, error_description: error.description }, {
      ...noStore(),
      ...error.headers,
    });
    return;
  }
  sendJson(request, response, 500, { error: 'server_error' }, noStore());
}
