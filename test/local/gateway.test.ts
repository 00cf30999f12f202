/**
 * The gateway emulation alone, with stand-in handlers that echo what they were given: the
 * routes of the operations table, the payload 2.0 event and Lambda context as API Gateway and
 * the Lambda runtime shape them, and the handler's answer passed through faithfully.
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { type Gateway, startGateway } from '../../infra/local/gateway/gateway';
import { createJwtAuthorizer } from '../../infra/local/gateway/jwt-authorizer';
import type { OperationHandler } from '../../infra/local/operation-handlers';
import { generateSigningKey, keySetOf, type SigningKey } from '../../infra/local/auth/signing-key';
import { OPERATIONS } from '../../shared/operations';
import { forgeToken, TEST_CLIENTS } from '../support/local-stack-client';

const ISSUER = 'http://127.0.0.1:1/test-issuer';
const AUDIENCE = 'webhooks-api';

/** What the echo handler reports: the event and the context it was invoked with. */
interface Echo {
  event: APIGatewayProxyEventV2WithJWTAuthorizer;
  context: Omit<Context, 'getRemainingTimeInMillis'> & { remainingTimeInMillis: number };
}

let key: SigningKey;
let gateway: Gateway;
/** What the stand-in handler of each operation answers; by default, the echo. */
const answers = new Map<string, (event: APIGatewayProxyEventV2WithJWTAuthorizer, context: Context) => Promise<unknown>>();

function echoHandler(operationId: string): OperationHandler {
  return async (event, context) => {
    const answer = answers.get(operationId);
    if (answer) return answer(event, context);
    const { getRemainingTimeInMillis, ...rest } = context;
    const echo = { event, context: { ...rest, remainingTimeInMillis: getRemainingTimeInMillis() } };
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(echo) };
  };
}

/** The token claims the gateway's authorizer accepts, for a stand-in stack at ISSUER. */
const fakeStack = { issuer: ISSUER, audience: AUDIENCE } as Parameters<typeof forgeToken>[0];

interface SendOptions {
  /** Default: a valid token of alpha-admin; null: none. */
  token?: string | null;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

async function send(method: string, path: string, init: SendOptions = {}) {
  const token = init.token === undefined ? await forgeToken(fakeStack, key, TEST_CLIENTS.alphaAdmin) : init.token;
  return fetch(gateway.url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers },
    body: init.body,
    signal: AbortSignal.timeout(10_000),
  });
}

async function echoOf(response: Response): Promise<Echo> {
  expect(response.status).toBe(200);
  return (await response.json()) as Echo;
}

beforeAll(async () => {
  key = await generateSigningKey();
  gateway = await startGateway({
    port: 0,
    handlers: new Map(OPERATIONS.map((operation) => [operation.id, echoHandler(operation.id)])),
    authorize: createJwtAuthorizer({ issuer: ISSUER, audience: [AUDIENCE], keySet: keySetOf(key) }),
    region: 'eu-central-1',
    functionTimeoutMs: 500,
  });
});

afterAll(async () => {
  await gateway?.close();
});

afterEach(() => answers.clear());

describe('routes', () => {
  const routes = OPERATIONS.flatMap((operation) => operation.paths.map((path) => ({ operation, path })));

  it('has one route per operation and prefix: 32', () => {
    expect(routes).toHaveLength(32);
  });

  it.each(routes.map(({ operation, path }) => [`${operation.method} ${path}`, operation.handler, operation, path] as const))(
    '%s invokes %s',
    async (routeKey, _handler, operation, path) => {
      const rawPath = path.replace('{configId}', '0190a4a0-0000-7000-8000-000000000000');
      const { event, context } = await echoOf(await send(operation.method, rawPath));
      expect(event.routeKey).toBe(routeKey);
      expect(event.requestContext.routeKey).toBe(routeKey);
      expect(event.rawPath).toBe(rawPath);
      expect(context.functionName).toBe(operation.handler);
    },
  );
});

describe('the payload 2.0 event', () => {
  it('is shaped as API Gateway shapes it', async () => {
    const body = JSON.stringify({ config_id: 'x', name: 'n' });
    const response = await send('PUT', '/webhooks/api/subscriptions/rename?b=2&a=1&a=3&e=%20x', {
      headers: {
        'Content-Type': 'application/json',
        'X-Custom': 'one',
        Cookie: 'session=abc; theme=dark',
        'User-Agent': 'curl/8.0',
      },
      body,
    });
    const { event, context } = await echoOf(response);
    expect(response.headers.get('apigw-requestid')).toBe(event.requestContext.requestId);

    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'PUT /webhooks/api/subscriptions/rename',
      rawPath: '/webhooks/api/subscriptions/rename',
      rawQueryString: 'b=2&a=1&a=3&e=%20x',
      cookies: ['session=abc', 'theme=dark'],
      queryStringParameters: { a: '1,3', b: '2', e: ' x' },
      body,
      isBase64Encoded: false,
    });
    expect(event.pathParameters).toBeUndefined();
    expect(event.headers).toMatchObject({
      'content-type': 'application/json',
      'x-custom': 'one',
      'user-agent': 'curl/8.0',
      'content-length': String(body.length),
    });
    expect(event.headers.cookie).toBeUndefined();
    expect(event.headers).toMatchObject({
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-port': String(new URL(gateway.url).port),
      'x-forwarded-proto': 'http',
      'x-amzn-trace-id': expect.stringMatching(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/),
    });
    expect(event.headers.authorization).toMatch(/^Bearer /);

    const { requestContext } = event;
    expect(requestContext).toMatchObject({
      accountId: expect.stringMatching(/^\d{12}$/),
      apiId: expect.any(String),
      domainName: '127.0.0.1',
      routeKey: 'PUT /webhooks/api/subscriptions/rename',
      stage: '$default',
      http: {
        method: 'PUT',
        path: '/webhooks/api/subscriptions/rename',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'curl/8.0',
      },
    });
    expect(requestContext.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(Math.abs(requestContext.timeEpoch - Date.now())).toBeLessThan(10_000);

    expect(context).toMatchObject({
      functionName: 'renameSubscription',
      functionVersion: '$LATEST',
      invokedFunctionArn: expect.stringMatching(/^arn:aws:lambda:eu-central-1:\d{12}:function:renameSubscription$/),
      awsRequestId: requestContext.requestId,
      memoryLimitInMB: '256',
    });
    expect(context.remainingTimeInMillis).toBeGreaterThan(0);
    expect(context.remainingTimeInMillis).toBeLessThanOrEqual(500);
  });

  it('carries the verified claims as strings, as API Gateway renders them, and the token scopes', async () => {
    const token = await forgeToken(fakeStack, key, TEST_CLIENTS.alphaAdmin, {
      groups: ['admins', 'ops'],
      verified: true,
      nested: { a: 1 },
      nothing: null,
    });
    const { event } = await echoOf(await send('GET', '/v7/webhooks/public/api/subscriptions/list', { token }));
    const { claims, scopes } = event.requestContext.authorizer.jwt;
    expect(claims).toMatchObject({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'alpha-admin',
      client_id: 'alpha-admin',
      portal_id: 'portal-alpha',
      scope: 'webhooks.config:read webhooks.config:write',
      exp: expect.stringMatching(/^\d+$/),
      iat: expect.stringMatching(/^\d+$/),
      groups: '[admins ops]',
      verified: 'true',
      nested: '{"a":1}',
    });
    expect(claims).not.toHaveProperty('nothing');
    expect(scopes).toEqual(['webhooks.config:read', 'webhooks.config:write']);
  });

  it('decodes the {configId} path parameter', async () => {
    const { event } = await echoOf(await send('DELETE', '/v7/webhooks/public/api/subscriptions/a%20b'));
    expect(event.pathParameters).toEqual({ configId: 'a b' });
    expect(event.rawPath).toBe('/v7/webhooks/public/api/subscriptions/a%20b');
  });

  it.each([
    ['application/octet-stream', true],
    ['application/x-www-form-urlencoded', true],
    ['text/plain; charset=utf-8', false],
    ['application/json; charset=utf-8', false],
    [undefined, true],
  ])('passes a %s body base64-encoded: %s', async (contentType, base64) => {
    const bytes = Buffer.from([0x7b, 0x22, 0xc3, 0xa9, 0x22, 0x7d]); // {"é"}
    const { event } = await echoOf(
      await send('POST', '/webhooks/api/subscriptions', { headers: contentType ? { 'content-type': contentType } : {}, body: bytes }),
    );
    expect(event.isBase64Encoded).toBe(base64);
    expect(event.body).toBe(base64 ? bytes.toString('base64') : bytes.toString('utf8'));
  });

  it('has no body field when the request has none', async () => {
    const { event } = await echoOf(await send('GET', '/webhooks/api/subscriptions/list'));
    expect(event).not.toHaveProperty('body');
    expect(event.isBase64Encoded).toBe(false);
    expect(event).not.toHaveProperty('queryStringParameters');
    expect(event).not.toHaveProperty('cookies');
  });
});

describe("the handler's answer", () => {
  const listPath = '/webhooks/api/subscriptions/list';

  it('is passed through: status, headers, cookies, body', async () => {
    answers.set('listSubscriptionsRoute', async () => ({
      statusCode: 418,
      headers: { 'Content-Type': 'text/plain', 'x-count': 3 },
      cookies: ['a=1; Path=/', 'b=2'],
      body: 'short and stout',
    }));
    const response = await send('GET', listPath);
    expect(response.status).toBe(418);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('x-count')).toBe('3');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2']);
    expect(await response.text()).toBe('short and stout');
  });

  it('is decoded when isBase64Encoded', async () => {
    const bytes = Buffer.from([1, 2, 255]);
    answers.set('listSubscriptionsRoute', async () => ({ statusCode: 200, body: bytes.toString('base64'), isBase64Encoded: true }));
    const response = await send('GET', listPath);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
  });

  it('becomes a 200 JSON answer when it is not a response object', async () => {
    answers.set('listSubscriptionsRoute', async () => ({ hello: 'world' }));
    const response = await send('GET', listPath);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ hello: 'world' });
  });

  it.each([
    ['the handler throws', async () => Promise.reject(new Error('boom'))],
    ['the handler times out', () => new Promise((resolve) => setTimeout(resolve, 700))],
    ['the status code is not one', async () => ({ statusCode: 'two hundred' })],
  ])('is 500 {"message":"Internal Server Error"} when %s', async (_what, answer) => {
    answers.set('listSubscriptionsRoute', answer);
    const response = await send('GET', listPath);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal Server Error' });
  });
});

describe('authorization before the handler', () => {
  it('is 401 without a token and 403 without the scope, and the handler is not invoked', async () => {
    let invoked = false;
    answers.set('createSubscriptionRoute', async () => {
      invoked = true;
      return { statusCode: 200, body: '' };
    });
    const unauthenticated = await send('POST', '/webhooks/api/subscriptions', { token: null, body: '{}' });
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toEqual({ message: 'Unauthorized' });

    const readOnly = await forgeToken(fakeStack, key, TEST_CLIENTS.alphaReader);
    const forbidden = await send('POST', '/webhooks/api/subscriptions', { token: readOnly, body: '{}' });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ message: 'Forbidden' });
    expect(invoked).toBe(false);
  });
});
