/**
 * Where the gateway emulation meets API Gateway's limits and path handling, with stand-in
 * handlers that echo their event: a request whose request line and header values exceed HTTP
 * API's 10,240 bytes gets API Gateway's 431 answer (not a dropped connection, up to 1 MiB),
 * and percent-encoded path segments are decoded before routing, as API Gateway routes them.
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { connect } from 'node:net';
import { type Gateway, MAX_REQUEST_LINE_AND_HEADER_BYTES, startGateway } from '../../infra/local/gateway/gateway';
import { createJwtAuthorizer } from '../../infra/local/gateway/jwt-authorizer';
import { generateSigningKey, keySetOf, type SigningKey } from '../../infra/local/auth/signing-key';
import { OPERATIONS } from '../../shared/operations';
import { forgeToken, TEST_CLIENTS } from '../support/local-stack-client';

const ISSUER = 'http://127.0.0.1:1/test-issuer';
const AUDIENCE = 'webhooks-api';
const fakeStack = { issuer: ISSUER, audience: AUDIENCE } as Parameters<typeof forgeToken>[0];

let key: SigningKey;
let gateway: Gateway;
let token: string;
/** Operations whose handler ran, in order. */
const invoked: string[] = [];

beforeAll(async () => {
  key = await generateSigningKey();
  token = await forgeToken(fakeStack, key, TEST_CLIENTS.alphaAdmin);
  gateway = await startGateway({
    port: 0,
    handlers: new Map(
      OPERATIONS.map((operation) => [
        operation.id,
        async (event: APIGatewayProxyEventV2WithJWTAuthorizer) => {
          invoked.push(operation.id);
          return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event }) };
        },
      ]),
    ),
    authorize: createJwtAuthorizer({ issuer: ISSUER, audience: [AUDIENCE], keySet: keySetOf(key) }),
    region: 'eu-central-1',
  });
});

afterAll(async () => {
  await gateway?.close();
});

beforeEach(() => {
  invoked.length = 0;
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends exactly these bytes (a whole HTTP/1.1 request asking to close) and reads the answer
 * until the gateway ends the connection; rejects if the connection is dropped (reset) instead.
 */
function rawRequest(request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(gateway.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      socket.end();
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(request);
  });
}

/** A list request whose request line and header values total exactly `bytes`. */
function listRequestOf(bytes: number): string {
  const requestLine = 'GET /webhooks/api/subscriptions/list HTTP/1.1';
  const values = { host: `127.0.0.1:${gateway.port}`, authorization: `Bearer ${token}`, connection: 'close' };
  const fixed = [requestLine, ...Object.values(values)].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  const padding = 'p'.repeat(bytes - fixed);
  return `${requestLine}\r\nhost: ${values.host}\r\nauthorization: ${values.authorization}\r\nx-padding: ${padding}\r\nconnection: close\r\n\r\n`;
}

describe("API Gateway's header limit (10,240 bytes of request line and header values)", () => {
  it('lets a request of exactly the limit through to the handler', async () => {
    const answer = await rawRequest(listRequestOf(MAX_REQUEST_LINE_AND_HEADER_BYTES));

    expect(answer.status).toBe(200);
    expect(invoked).toEqual(['listSubscriptionsRoute']);
  });

  it("answers one byte more with API Gateway's 431, before the authorizer and the handler", async () => {
    const answer = await rawRequest(listRequestOf(MAX_REQUEST_LINE_AND_HEADER_BYTES + 1));

    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['apigw-requestid']).toEqual(expect.any(String));
    expect(JSON.parse(answer.body)).toEqual({ message: 'Request Header Fields Too Large' });
    expect(invoked).toEqual([]);
  });

  it('answers 431 to a client such as fetch too, also on a path with no route and without a token', async () => {
    const response = await fetch(`${gateway.url}/no/such/route`, {
      headers: { cookie: `session=${'c'.repeat(20_000)}` },
      signal: AbortSignal.timeout(10_000),
    });

    expect(response.status).toBe(431);
    expect(await response.json()).toEqual({ message: 'Request Header Fields Too Large' });
  });

  it("answers 431, not a dropped connection, to headers of 200 KiB, over Node's own default limit of 16 KiB", async () => {
    const answer = await rawRequest(listRequestOf(200 * 1024));

    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({ message: 'Request Header Fields Too Large' });
    expect(invoked).toEqual([]);
  });
});

describe('percent-encoded paths, decoded segment by segment before routing', () => {
  async function routed(method: string, path: string) {
    const response = await fetch(gateway.url + path, {
      method,
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: (await response.json()) as { event?: APIGatewayProxyEventV2WithJWTAuthorizer; message?: string } };
  }

  it.each([
    ['GET', '/webhooks/api/subscriptions/%6Cist', 'GET /webhooks/api/subscriptions/list'],
    ['GET', '/webhooks/api/subscriptions/%6c%69%73%74', 'GET /webhooks/api/subscriptions/list'],
    ['PUT', '/v7/webhooks/public/api/subscriptions/%61ctivate', 'PUT /v7/webhooks/public/api/subscriptions/activate'],
    ['GET', '/webhooks/%61pi/subscriptions/list', 'GET /webhooks/api/subscriptions/list'],
  ])('%s %s is the route %s, with the path as sent', async (method, path, routeKey) => {
    const { status, body } = await routed(method, path);

    expect(status).toBe(200);
    expect(body.event!.routeKey).toBe(routeKey);
    expect(body.event!.rawPath).toBe(path);
  });

  it('decodes a {configId} segment, where an encoded slash stays part of the value', async () => {
    const { body } = await routed('DELETE', '/webhooks/api/subscriptions/a%2Fb');

    expect(body.event!.routeKey).toBe('DELETE /webhooks/api/subscriptions/{configId}');
    expect(body.event!.pathParameters).toEqual({ configId: 'a/b' });
  });

  it.each([
    ['an encoded slash, which never splits a segment', '/webhooks/api/subscriptions%2Flist'],
    ['a malformed escape', '/webhooks/api/subscriptions/%6'],
    ['an encoded letter of another word', '/webhooks/api/subscriptions/%6Cists'],
  ])('answers 404 to %s', async (_case, path) => {
    const { status, body } = await routed('GET', path);

    expect(status).toBe(404);
    expect(body).toEqual({ message: 'Not Found' });
    expect(invoked).toEqual([]);
  });
});
