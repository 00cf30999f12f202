/**
 * The local stack used the way a developer uses it with curl: a token from the token
 * endpoint, then every operation over HTTP under both prefixes, and the gateway's own answers
 * (404, 413). The stack runs in memory on free ports.
 */
import { GetTopicAttributesCommand, NotFoundException, SNSClient } from '@aws-sdk/client-sns';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { API_PREFIXES } from '../../shared/operations';
import { call, newSubscription, requestToken, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';

let local: TestStack;
let adminToken: string;

beforeAll(async () => {
  local = await startTestStack();
  adminToken = await tokenFor(local.stack, TEST_CLIENTS.alphaAdmin);
}, 60_000);

afterAll(async () => {
  await local?.stop();
});

describe.each(API_PREFIXES.map((prefix) => [prefix]))('the API under %s', (prefix) => {
  it('creates, lists, renames, updates, deactivates, activates and deletes a subscription', async () => {
    const { stack } = local;
    const token = adminToken;

    // Create
    const created = await call(stack, 'POST', prefix, { token, body: newSubscription({ name: 'Hooks' }) });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
    expect(created.body).toMatchObject({
      success: true,
      record: {
        name: 'Hooks',
        endpoint: 'ops@example.com',
        protocol: 'email',
        events: ['asset_bank.media.create', 'asset_bank.media.updated'],
        portalId: 'portal-alpha',
        status: 1,
      },
    });
    const { configId, topicArn, subscriptionArn } = created.body.record;
    expect(configId).toMatch(/^[0-9a-f-]{36}$/);
    expect(topicArn).toMatch(/^arn:aws:sns:/);
    expect(subscriptionArn).toContain(topicArn);

    const listed = async () => {
      const answer = await call(stack, 'GET', `${prefix}/list`, { token });
      expect(answer.status).toBe(200);
      expect(answer.body.success).toBe(true);
      return (answer.body.configs as { configId: string }[]).find((config) => config.configId === configId);
    };
    expect(await listed()).toEqual({
      configId,
      name: 'Hooks',
      endpoint: 'ops@example.com',
      protocol: 'email',
      events: ['asset_bank.media.create', 'asset_bank.media.updated'],
      status: 1,
      // Nobody clicked the e-mail's confirmation link.
      confirmed: false,
      subscriptionState: 'pending',
      // Nothing was delivered, so nothing failed.
      deadLetters: 0,
      deadLettersRetrying: 0,
      lastDeadLetterAt: null,
      deadLettersDropped: 0,
      deliveredLast24h: 0,
      failedLast24h: 0,
      lastDeliveredAt: null,
      lastFailedAt: null,
      disabledReason: null,
      disabledAt: null,
    });

    // Rename
    const renamed = await call(stack, 'PUT', `${prefix}/rename`, { token, body: { config_id: configId, name: 'Renamed hooks' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ success: true });
    expect(await listed()).toMatchObject({ name: 'Renamed hooks' });

    // Update (replace the events)
    const updated = await call(stack, 'PUT', prefix, { token, body: { config_id: configId, events: ['workflow.job.create'] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      success: true,
      record: { configId, events: ['workflow.job.create'], portalId: 'portal-alpha' },
    });
    expect(await listed()).toMatchObject({ events: ['workflow.job.create'] });

    // Deactivate, then activate
    const deactivated = await call(stack, 'PUT', `${prefix}/activate`, { token, body: { config_id: configId, status: 0 } });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body).toEqual({ success: true, message: 'Subscription deactivated.' });
    expect(await listed()).toMatchObject({ status: 0 });
    const activated = await call(stack, 'PUT', `${prefix}/activate`, { token, body: { configId, status: 1 } });
    expect(activated.status).toBe(200);
    expect(activated.body).toEqual({ success: true, message: 'Subscription activated.' });
    expect(await listed()).toMatchObject({ status: 1 });

    // Delete: gone from the list, and its topic from SNS
    const deleted = await call(stack, 'DELETE', `${prefix}/${configId}`, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ success: true });
    expect(await listed()).toBeUndefined();
    const sns = new SNSClient({ endpoint: stack.sns.endpoint, region: stack.region, credentials: LOCAL_CREDENTIALS });
    await expect(sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }))).rejects.toBeInstanceOf(NotFoundException);
    sns.destroy();

    // Deleting again: the id is unknown now
    const again = await call(stack, 'DELETE', `${prefix}/${configId}`, { token });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ success: false, code: 'SUBSCRIPTION_NOT_FOUND' });
  });

  it("answers the handler's 400 envelope for a bad body, unchanged", async () => {
    const answer = await call(local.stack, 'POST', prefix, { token: adminToken, body: '{"name":' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, code: 'MALFORMED_JSON' });
  });
});

describe('the gateway', () => {
  it.each([
    ['an unknown path', 'GET', '/v7/webhooks/public/api/nothing'],
    ['the root', 'GET', '/'],
    ['a known path with another method', 'PATCH', '/webhooks/api/subscriptions/list'],
    ['POST on the list path', 'POST', '/v7/webhooks/public/api/subscriptions/list'],
    ['a trailing slash', 'GET', '/v7/webhooks/public/api/subscriptions/list/'],
    ['delete without an id', 'DELETE', '/webhooks/api/subscriptions/'],
    ['an id with a further segment', 'DELETE', '/webhooks/api/subscriptions/abc/def'],
  ])('answers 404 {"message":"Not Found"} for %s, token or not', async (_what, method, path) => {
    for (const token of [undefined, adminToken]) {
      const answer = await call(local.stack, method, path, { token });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ message: 'Not Found' });
      expect(answer.headers.get('apigw-requestid')).toBeTruthy();
    }
  });

  it('passes a body over 64 KiB to the handler, which refuses it with its 400', async () => {
    const body = JSON.stringify({ ...newSubscription(), padding: 'x'.repeat(100 * 1024) });
    const answer = await call(local.stack, 'POST', API_PREFIXES[0], { token: adminToken, body });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, code: 'BODY_TOO_LARGE' });
  });

  it('answers 413 for a body over 10 MB, declared or streamed', async () => {
    const tooLarge = Buffer.alloc(10 * 1024 * 1024 + 1, 'x');
    const declared = await call(local.stack, 'POST', API_PREFIXES[0], { token: adminToken, body: tooLarge.toString() });
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ message: 'Request Entity Too Large' });

    // No content-length: the gateway counts while reading and stops at the limit.
    const chunks = (async function* () {
      for (let sent = 0; sent <= tooLarge.length; sent += 1024 * 1024) yield tooLarge.subarray(0, 1024 * 1024);
    })();
    const response = await fetch(local.stack.apiUrl + API_PREFIXES[1], {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: ReadableStream.from(chunks),
      duplex: 'half',
      signal: AbortSignal.timeout(15_000),
    } as RequestInit).catch((error: unknown) => error as Error);
    // The gateway answers and closes the connection; depending on timing the client sees the 413 or the close.
    if (response instanceof Response) {
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ message: 'Request Entity Too Large' });
    } else {
      expect(String(response.cause ?? response)).toMatch(/socket|closed|reset|EPIPE|terminated/i);
    }

    // The gateway keeps serving.
    expect((await call(local.stack, 'GET', `${API_PREFIXES[0]}/list`, { token: adminToken })).status).toBe(200);
  });
});

describe('the token endpoint', () => {
  const { alphaAdmin, alphaReader } = TEST_CLIENTS;
  const credentials = { grant_type: 'client_credentials', client_id: alphaAdmin.clientId, client_secret: alphaAdmin.clientSecret };

  it('issues a bearer token with the client\'s scopes', async () => {
    const answer = await requestToken(local.stack, credentials);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'webhooks.config:read webhooks.config:write',
    });
    const claims = JSON.parse(Buffer.from(answer.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({
      iss: local.stack.issuer,
      aud: local.stack.audience,
      sub: alphaAdmin.clientId,
      client_id: alphaAdmin.clientId,
      portal_id: 'portal-alpha',
      scope: 'webhooks.config:read webhooks.config:write',
    });
    expect(claims.exp - claims.iat).toBe(3600);
  });

  it('accepts HTTP Basic client authentication', async () => {
    const basic = Buffer.from(`${alphaReader.clientId}:${alphaReader.clientSecret}`).toString('base64');
    const answer = await requestToken(local.stack, { grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
    expect(answer.status).toBe(200);
    expect(answer.body.scope).toBe('webhooks.config:read');
  });

  it('narrows the scopes to the ones asked for', async () => {
    const answer = await requestToken(local.stack, { ...credentials, scope: 'webhooks.config:read' });
    expect(answer.status).toBe(200);
    expect(answer.body.scope).toBe('webhooks.config:read');
  });

  it.each([
    ['a wrong secret', { ...credentials, client_secret: 'wrong' }, 401, 'invalid_client'],
    ['an unknown client', { ...credentials, client_id: 'nobody' }, 401, 'invalid_client'],
    ['another grant type', { ...credentials, grant_type: 'password' }, 400, 'unsupported_grant_type'],
    ['no grant type', { client_id: alphaAdmin.clientId, client_secret: alphaAdmin.clientSecret }, 400, 'invalid_request'],
    ['no client secret', { grant_type: 'client_credentials', client_id: alphaAdmin.clientId }, 400, 'invalid_request'],
    [
      'a scope the client lacks',
      { ...credentials, client_id: alphaReader.clientId, client_secret: alphaReader.clientSecret, scope: 'webhooks.config:write' },
      400,
      'invalid_scope',
    ],
  ])('refuses %s', async (_what, fields, status, error) => {
    const answer = await requestToken(local.stack, fields);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error });
  });

  it('refuses a JSON body: the parameters are form-encoded', async () => {
    const response = await fetch(local.stack.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(credentials),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('serves its key set and discovery document', async () => {
    const jwks = (await (await fetch(local.stack.jwksUrl)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: local.signingKey.kid })]);
    expect(jwks.keys[0]!.d).toBeUndefined();
    const discovery = await (await fetch(`${local.stack.issuer}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({ issuer: local.stack.issuer, token_endpoint: local.stack.tokenUrl, jwks_uri: local.stack.jwksUrl });
  });
});
