/**
 * The local authorization endpoint and the token endpoint's authorization_code and refresh_token
 * grants, as the admin page uses them: a sign-in by a shipped user, a code bound to its client,
 * redirect URI and S256 challenge, used once; tokens carrying the portal claim; refresh tokens
 * rotated. Each refusal is asked for on its own.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ADMIN_PATH, ADMIN_SETTINGS_PATH, LOCAL_PAGE_CLIENT_ID } from '../../infra/local/admin/admin-site';
import { AUTHORIZATION_PATH } from '../../shared/contract/token-endpoint';
import { API_PREFIXES } from '../../shared/operations';
import { call, requestToken, startTestStack, TEST_CLIENTS, type TestStack } from '../support/local-stack-client';

let local: TestStack;
let redirectUri: string;
const { alphaAdmin, alphaReader } = TEST_CLIENTS;
const BOTH_SCOPES = 'webhooks.config:read webhooks.config:write';

beforeAll(async () => {
  local = await startTestStack();
  redirectUri = local.stack.apiUrl + ADMIN_PATH;
}, 60_000);

afterAll(async () => {
  await local?.stop();
});

const newVerifier = () => randomBytes(32).toString('base64url');
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function authorizationParameters(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: LOCAL_PAGE_CLIENT_ID,
    redirect_uri: redirectUri,
    scope: BOTH_SCOPES,
    state: 'state-1',
    code_challenge: challengeOf(newVerifier()),
    code_challenge_method: 'S256',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const authorizationUrl = (parameters: Record<string, string>) => `${local.stack.apiUrl}${AUTHORIZATION_PATH}?${new URLSearchParams(parameters)}`;

/** Signs in on the sign-in page's form as `user`; the answer, not followed. */
function signIn(parameters: Record<string, string>, user: { clientId: string; clientSecret: string }, password = user.clientSecret) {
  return fetch(local.stack.apiUrl + AUTHORIZATION_PATH, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...parameters, username: user.clientId, password, decision: 'allow' }),
  });
}

/** The code a sign-in gives back, with its verifier. */
async function codeFor(user = alphaAdmin, scope = BOTH_SCOPES): Promise<{ code: string; verifier: string }> {
  const verifier = newVerifier();
  const answer = await signIn(authorizationParameters({ code_challenge: challengeOf(verifier), scope }), user);
  expect(answer.status).toBe(303);
  const location = new URL(answer.headers.get('location')!);
  expect(location.origin + location.pathname).toBe(redirectUri);
  expect(location.searchParams.get('state')).toBe('state-1');
  return { code: location.searchParams.get('code')!, verifier };
}

const exchange = (code: string, verifier: string | undefined, overrides: Record<string, string> = {}) =>
  requestToken(local.stack, {
    grant_type: 'authorization_code',
    client_id: LOCAL_PAGE_CLIENT_ID,
    redirect_uri: redirectUri,
    code,
    ...(verifier === undefined ? {} : { code_verifier: verifier }),
    ...overrides,
  });

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());

describe('the authorization endpoint', () => {
  it('shows a sign-in page listing the shipped users', async () => {
    const response = await fetch(authorizationUrl(authorizationParameters()));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await response.text();
    expect(html).toContain(`<option value="${alphaAdmin.clientId}"`);
    expect(html).toContain(`<option value="${alphaReader.clientId}"`);
    expect(html).not.toContain(alphaAdmin.clientSecret);
  });

  it.each([
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request', /code_challenge is required/],
    ['the plain method', { code_challenge_method: 'plain' }, 'invalid_request', /S256/],
    ['no method', { code_challenge_method: undefined }, 'invalid_request', /S256/],
    ['a challenge that is no SHA-256', { code_challenge: 'short' }, 'invalid_request', /base64url SHA-256/],
    ['the implicit grant', { response_type: 'token' }, 'unsupported_response_type', /code/],
  ])('refuses a request with %s, back to the redirect URI with the state', async (_what, overrides, error, description) => {
    const response = await fetch(authorizationUrl(authorizationParameters(overrides)), { redirect: 'manual' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(redirectUri);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('error_description')).toMatch(description);
    expect(location.searchParams.get('state')).toBe('state-1');
    expect(location.searchParams.has('code')).toBe(false);
  });

  it.each([
    ['an unknown client', { client_id: 'nobody' }],
    ['a redirect URI not registered', { redirect_uri: 'https://attacker.example/admin/' }],
    ['no redirect URI', { redirect_uri: undefined }],
  ])('refuses %s with a page of its own, never redirecting', async (_what, overrides) => {
    const response = await fetch(authorizationUrl(authorizationParameters(overrides)), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toMatch(/client_id|redirect_uri/);
  });

  it('marks the password of a wrong sign-in and issues no code', async () => {
    const response = await signIn(authorizationParameters(), alphaAdmin, 'wrong');
    expect(response.status).toBe(401);
    expect(response.headers.get('location')).toBeNull();
    const html = await response.text();
    expect(html).toMatch(/<input id="password"[^>]*aria-invalid="true"/);
    expect(html).toContain('Wrong user or password.');
  });

  it('sends a cancelled sign-in back with access_denied', async () => {
    const response = await fetch(local.stack.apiUrl + AUTHORIZATION_PATH, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...authorizationParameters(), decision: 'cancel' }),
    });
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
  });
});

describe('the authorization_code grant', () => {
  it('gives the right verifier a token with the portal claim and a refresh token, which work on the API', async () => {
    const { code, verifier } = await codeFor();
    const answer = await exchange(code, verifier);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: BOTH_SCOPES,
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(claimsOf(answer.body.access_token)).toMatchObject({
      iss: local.stack.issuer,
      aud: local.stack.audience,
      sub: alphaAdmin.clientId,
      client_id: LOCAL_PAGE_CLIENT_ID,
      portal_id: alphaAdmin.portalId,
      scope: BOTH_SCOPES,
    });
    const listed = await call(local.stack, 'GET', `${API_PREFIXES[0]}/list`, { token: answer.body.access_token });
    expect(listed.status).toBe(200);
  });

  it('grants a user only the scopes they have', async () => {
    const { code, verifier } = await codeFor(alphaReader);
    const answer = await exchange(code, verifier);
    expect(answer.body.scope).toBe('webhooks.config:read');
  });

  it.each([
    ['no code_verifier', undefined, {}],
    ['a wrong code_verifier', newVerifier(), {}],
    ['the challenge itself as verifier', 'use-challenge', {}],
    ['another redirect URI', 'right', { redirect_uri: 'http://127.0.0.1:1/admin/' }],
  ])('refuses a code with %s, and the code is spent', async (_what, given, overrides) => {
    const { code, verifier } = await codeFor();
    const sent = given === 'right' ? verifier : given === 'use-challenge' ? challengeOf(verifier) : given;
    const refused = await exchange(code, sent, overrides);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange(code, verifier)).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a code presented by another client', async () => {
    const { code, verifier } = await codeFor();
    const answer = await exchange(code, verifier, { client_id: alphaAdmin.clientId });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses a code used twice, and revokes the refresh token the first use gave', async () => {
    const { code, verifier } = await codeFor();
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    const second = await exchange(code, verifier);
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({ error: 'invalid_grant' });
    const refreshed = await requestToken(local.stack, { grant_type: 'refresh_token', client_id: LOCAL_PAGE_CLIENT_ID, refresh_token: first.body.refresh_token });
    expect(refreshed.body).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('the refresh_token grant', () => {
  const refresh = (refreshToken: string, overrides: Record<string, string> = {}) =>
    requestToken(local.stack, { grant_type: 'refresh_token', client_id: LOCAL_PAGE_CLIENT_ID, refresh_token: refreshToken, ...overrides });

  it('gives a new access token and a new refresh token, and the old one is spent', async () => {
    const { code, verifier } = await codeFor();
    const first = (await exchange(code, verifier)).body;
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(claimsOf(second.body.access_token)).toMatchObject({ sub: alphaAdmin.clientId, portal_id: alphaAdmin.portalId, scope: BOTH_SCOPES });
    expect((await refresh(first.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
  });

  it('narrows to fewer scopes, never more', async () => {
    const reader = await codeFor(alphaReader);
    const readerTokens = (await exchange(reader.code, reader.verifier)).body;
    expect((await refresh(readerTokens.refresh_token, { scope: 'webhooks.config:write' })).body).toMatchObject({ error: 'invalid_scope' });

    const admin = await codeFor();
    const adminTokens = (await exchange(admin.code, admin.verifier)).body;
    expect((await refresh(adminTokens.refresh_token, { scope: 'webhooks.config:read' })).body.scope).toBe('webhooks.config:read');
  });

  it.each([
    ['an unknown refresh token', { refresh_token: 'nothing-issued' }, 400, 'invalid_grant'],
    ['another client', { client_id: alphaAdmin.clientId }, 401, 'invalid_client'],
    ['a client secret from a public client', { client_secret: 'x' }, 400, 'invalid_request'],
  ])('refuses %s', async (_what, overrides, status, error) => {
    const { code, verifier } = await codeFor();
    const tokens = (await exchange(code, verifier)).body;
    const answer = await refresh(tokens.refresh_token, overrides);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error });
  });
});

it("serves the page's settings, naming the endpoints, the page's client and its redirect URI", async () => {
  const settings = await (await fetch(local.stack.apiUrl + ADMIN_SETTINGS_PATH)).json();
  expect(settings).toEqual({
    apiBaseUrl: '',
    openApiDocument: '/openapi.json',
    issuer: local.stack.issuer,
    authorizationEndpoint: local.stack.issuer + AUTHORIZATION_PATH,
    tokenEndpoint: local.stack.tokenUrl,
    clientId: LOCAL_PAGE_CLIENT_ID,
    redirectUri,
    scopes: BOTH_SCOPES,
    portalClaim: 'portal_id',
    developerSignIn: true,
  });
});
