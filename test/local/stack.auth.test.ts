/**
 * Who may do what through the local stack, checked as API Gateway's JWT authorizer checks it
 * (401 `{"message":"Unauthorized"}`, 403 `{"message":"Forbidden"}`) and then as the handlers
 * check it (a portal only reaches its own subscriptions).
 */
import { generateSigningKey } from '../../infra/local/auth/signing-key';
import { API_PREFIXES } from '../../shared/operations';
import { call, forgeToken, newSubscription, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';

const [canonical, legacy] = API_PREFIXES;
const { alphaAdmin, alphaReader, betaAdmin } = TEST_CLIENTS;

let local: TestStack;
let alphaToken: string;
/** A subscription of portal-alpha. */
let alphaConfigId: string;

beforeAll(async () => {
  local = await startTestStack();
  alphaToken = await tokenFor(local.stack, alphaAdmin);
  const created = await call(local.stack, 'POST', canonical, { token: alphaToken, body: newSubscription() });
  expect(created.status).toBe(200);
  alphaConfigId = created.body.record.configId;
}, 60_000);

afterAll(async () => {
  await local?.stop();
});

const listOf = (prefix: string) => `${prefix}/list`;

describe('the JWT authorizer refuses with 401 {"message":"Unauthorized"}', () => {
  const now = Math.floor(Date.now() / 1000);

  it('a request without a token', async () => {
    const answer = await call(local.stack, 'GET', listOf(canonical));
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ message: 'Unauthorized' });
  });

  it.each([
    ['a token that is not a JWT', 'Bearer not-a-jwt'],
    ['an empty bearer token', 'Bearer '],
  ])('%s', async (_what, authorization) => {
    const answer = await call(local.stack, 'GET', listOf(legacy), { headers: { authorization } });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ message: 'Unauthorized' });
  });

  it.each([
    ['signed by another key under the same kid', async () => {
      return forgeToken(local.stack, await generateSigningKey(), alphaAdmin, {}, { kid: local.signingKey.kid });
    }],
    ['signed by another key', async () => forgeToken(local.stack, await generateSigningKey(), alphaAdmin)],
    ['expired', async () => forgeToken(local.stack, local.signingKey, alphaAdmin, { iat: now - 7200, exp: now - 3600 })],
    ['without an expiry', async () => forgeToken(local.stack, local.signingKey, alphaAdmin, { exp: undefined })],
    ['not valid yet (nbf)', async () => forgeToken(local.stack, local.signingKey, alphaAdmin, { nbf: now + 3600 })],
    ['issued in the future (iat)', async () => forgeToken(local.stack, local.signingKey, alphaAdmin, { iat: now + 3600 })],
    ['for another audience', async () => forgeToken(local.stack, local.signingKey, alphaAdmin, { aud: 'another-api' })],
    ['from another issuer', async () => forgeToken(local.stack, local.signingKey, alphaAdmin, { iss: 'https://issuer.example.com' })],
    ['with a changed payload', async () => {
      const [header, , signature] = (await tokenFor(local.stack, alphaReader)).split('.');
      const payload = Buffer.from(JSON.stringify({ portal_id: 'portal-alpha', scope: 'webhooks.config:write' })).toString('base64url');
      return `${header}.${payload}.${signature}`;
    }],
  ])('a token %s', async (_what, makeToken) => {
    const token = await makeToken();
    const answer = await call(local.stack, 'GET', listOf(canonical), { token });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ message: 'Unauthorized' });
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('the JWT authorizer lets through, as API Gateway does', () => {
  it('a token without "Bearer "', async () => {
    const answer = await call(local.stack, 'GET', listOf(canonical), { headers: { authorization: alphaToken } });
    expect(answer.status).toBe(200);
  });

  it('a token without aud whose client_id is the audience', async () => {
    const token = await forgeToken(local.stack, local.signingKey, alphaAdmin, { aud: undefined, client_id: local.stack.audience });
    expect((await call(local.stack, 'GET', listOf(canonical), { token })).status).toBe(200);
  });

  it('a token whose scopes are in an scp array', async () => {
    const token = await forgeToken(local.stack, local.signingKey, alphaAdmin, { scope: undefined, scp: ['webhooks.config:read'] });
    expect((await call(local.stack, 'GET', listOf(canonical), { token })).status).toBe(200);
  });
});

describe('scopes: 403 {"message":"Forbidden"} without the route\'s scope', () => {
  it.each(API_PREFIXES.map((prefix) => [prefix]))('a read-only client lists but cannot write under %s', async (prefix) => {
    const token = await tokenFor(local.stack, alphaReader);
    expect((await call(local.stack, 'GET', listOf(prefix), { token })).status).toBe(200);

    const writes = [
      ['POST', prefix, newSubscription()],
      ['PUT', prefix, { config_id: alphaConfigId, events: ['workflow.job.create'] }],
      ['PUT', `${prefix}/activate`, { config_id: alphaConfigId, status: 0 }],
      ['PUT', `${prefix}/rename`, { config_id: alphaConfigId, name: 'Taken over' }],
      ['DELETE', `${prefix}/${alphaConfigId}`, undefined],
    ] as const;
    for (const [method, path, body] of writes) {
      const answer = await call(local.stack, method, path, { token, body });
      expect([method, path, answer.status]).toEqual([method, path, 403]);
      expect(answer.body).toEqual({ message: 'Forbidden' });
    }
  });

  it('a token narrowed to webhooks.config:read cannot create', async () => {
    const token = await tokenFor(local.stack, alphaAdmin, 'webhooks.config:read');
    const answer = await call(local.stack, 'POST', canonical, { token, body: newSubscription() });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ message: 'Forbidden' });
    expect((await call(local.stack, 'GET', listOf(canonical), { token })).status).toBe(200);
  });

  it('nothing was changed by the refused writes', async () => {
    const answer = await call(local.stack, 'GET', listOf(canonical), { token: alphaToken });
    expect(answer.body.configs).toEqual([expect.objectContaining({ configId: alphaConfigId, name: 'Media updates', status: 1 })]);
  });
});

describe("portals: another portal's subscription is answered as an unknown one", () => {
  const unknownId = '01900000-0000-7000-8000-000000000000';

  it.each([
    ['rename', 'PUT', '/rename', (id: string) => ({ config_id: id, name: 'Taken over' })],
    ['update', 'PUT', '', (id: string) => ({ config_id: id, events: ['workflow.job.create'] })],
    ['activate', 'PUT', '/activate', (id: string) => ({ config_id: id, status: 0 })],
    ['delete', 'DELETE', '/{id}', () => undefined],
  ])('%s: 400 SUBSCRIPTION_NOT_FOUND, the same as for an unknown id', async (_operation, method, subPath, bodyFor) => {
    const betaToken = await tokenFor(local.stack, betaAdmin);
    const attempt = (id: string) =>
      call(local.stack, method, legacy + subPath.replace('{id}', id), { token: betaToken, body: bodyFor(id) });
    const foreign = await attempt(alphaConfigId);
    const unknown = await attempt(unknownId);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ success: false, code: 'SUBSCRIPTION_NOT_FOUND' });
    expect(unknown.status).toBe(400);
    expect(foreign.body.message.replace(alphaConfigId, '<id>')).toBe(unknown.body.message.replace(unknownId, '<id>'));
  });

  it("portal-beta's list does not show portal-alpha's subscription, which is unchanged", async () => {
    const betaList = await call(local.stack, 'GET', listOf(canonical), { token: await tokenFor(local.stack, betaAdmin) });
    expect(betaList.body.configs).toEqual([]);
    const alphaList = await call(local.stack, 'GET', listOf(canonical), { token: alphaToken });
    expect(alphaList.body.configs).toEqual([expect.objectContaining({ configId: alphaConfigId, name: 'Media updates', status: 1 })]);
  });

  it('a valid token without a portal claim reaches the handler, which refuses it with 401', async () => {
    const token = await forgeToken(local.stack, local.signingKey, alphaAdmin, { portal_id: undefined });
    const answer = await call(local.stack, 'GET', listOf(canonical), { token });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ success: false, code: 'MISSING_PORTAL_CLAIM' });
  });
});
