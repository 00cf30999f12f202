/**
 * API Gateway (HTTP API) on one machine: a node:http server on 127.0.0.1 with the routes of the
 * operations table, each behind the JWT authorizer, invoking the operation's Lambda handler with
 * a payload 2.0 event and answering what the handler returns, as API Gateway would:
 *
 * - 404 `{"message":"Not Found"}` for a path or method with no route;
 * - 401 / 403 from the JWT authorizer (jwt-authorizer.ts);
 * - 413 `{"message":"Request Entity Too Large"}` for a body over API Gateway's 10 MB payload
 *   limit (read as a stream and dropped past the limit, so no upload can fill the memory);
 * - 431 `{"message":"Request Header Fields Too Large"}` for a request line and header values
 *   over API Gateway's 10,240 bytes, whatever the path (docs/local.md, "How local differs from AWS");
 * - 500 `{"message":"Internal Server Error"}` when the handler throws, times out, or answers
 *   something that is not a response;
 * - every answer carries an `apigw-requestid` header, the event's requestId.
 */
import type { Context } from 'aws-lambda';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiGatewayRequestId, httpApiEvent, lambdaContext } from './event';
import { matchRoute } from './routes';
import { BodyTooLargeError, readBody, sendJson, sendResponse } from './http-body';
import type { JwtAuthorizer } from './jwt-authorizer';
import type { OperationHandlers } from '../operation-handlers';

/** API Gateway's payload limit for HTTP APIs (10 MB); the handlers refuse anything over 64 KiB themselves. */
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/**
 * API Gateway's limit for HTTP APIs on the request line and the header values together: 10,240
 * bytes, a quota AWS does not raise. Header names are not counted, as AWS words it.
 */
export const MAX_REQUEST_LINE_AND_HEADER_BYTES = 10_240;

const HEADERS_TOO_LARGE = { statusCode: 431, body: { message: 'Request Header Fields Too Large' } } as const;

/**
 * Node refuses a header section over its maxHeaderSize (16 KiB by default) before the gateway
 * sees the request, by resetting the connection; raised to 1 MiB, so that the gateway reads the
 * headers whole, measures API Gateway's limit itself and answers. Over even this, the 431 is
 * written from the parser's error (see clientError below), but the client may see the
 * connection reset before it reads it: Node's parser leaves the rest of the request unread.
 */
const NODE_MAX_HEADER_BYTES = 1024 * 1024;

/** The functions' timeout and memory, as infra/aws/service-function.ts deploys them. */
const FUNCTION_TIMEOUT_MS = 10_000;
const FUNCTION_MEMORY_MB = 256;

export interface GatewayOptions {
  /** 0: a free port. */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  readonly handlers: OperationHandlers;
  readonly authorize: JwtAuthorizer;
  /** Region the Lambda context's ARN names. */
  readonly region: string;
  /** Exact paths served by these listeners instead of the API, with no authorizer (the local OAuth server). */
  readonly publicRoutes?: Readonly<Record<string, RequestListener>>;
  /** One line per request, and handler failures. */
  readonly log?: (line: string) => void;
  readonly functionTimeoutMs?: number;
}

export interface Gateway {
  /** e.g. http://127.0.0.1:3000 */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** What a handler answered, as the HTTP answer API Gateway makes of it. */
interface HttpAnswer {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const log = options.log ?? (() => undefined);
  const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_BYTES }, (request, response) => {
    const startedAt = performance.now();
    response.once('finish', () => {
      log(`${request.method} ${request.url} -> ${response.statusCode} (${Math.round(performance.now() - startedAt)} ms)`);
    });
    serve(options, request, response).catch((error: unknown) => {
      log(`gateway failure: ${(error as Error).stack ?? String(error)}`);
      sendJson(request, response, 500, { message: 'Internal Server Error' });
    });
  });
  // Malformed HTTP must not take the gateway down. Headers too large for Node's parser get the
  // 431 of API Gateway rather than a dropped connection; anything else is dropped.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code !== 'HPE_HEADER_OVERFLOW' || !socket.writable) return socket.destroy();
    log(`request headers over ${NODE_MAX_HEADER_BYTES} bytes -> ${HEADERS_TOO_LARGE.statusCode}`);
    const body = JSON.stringify(HEADERS_TOO_LARGE.body);
    socket.end(
      `HTTP/1.1 ${HEADERS_TOO_LARGE.statusCode} ${STATUS_CODES[HEADERS_TOO_LARGE.statusCode]}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `apigw-requestid: ${apiGatewayRequestId()}\r\nconnection: close\r\n\r\n${body}`,
    );
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Keep-alive connections (curl, fetch) would otherwise hold close() open.
      server.closeAllConnections();
    });
    return closing;
  };
  return { url: `http://${host}:${port}`, port, close };
}

async function serve(options: GatewayOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const requestId = apiGatewayRequestId();
  const receivedAt = new Date();
  const rawPath = (request.url ?? '/').split('?', 1)[0]!;

  const publicRoute = options.publicRoutes?.[rawPath];
  if (publicRoute) {
    publicRoute(request, response);
    return;
  }

  const gatewayAnswer = (statusCode: number, body: unknown, headers: Record<string, string> = {}) =>
    sendJson(request, response, statusCode, body, { ...headers, 'apigw-requestid': requestId });

  // Before anything else, as API Gateway refuses such a request at its door.
  if (requestLineAndHeaderBytes(request) > MAX_REQUEST_LINE_AND_HEADER_BYTES) {
    return gatewayAnswer(HEADERS_TOO_LARGE.statusCode, HEADERS_TOO_LARGE.body);
  }

  const match = matchRoute(request.method ?? '', rawPath);
  if (!match) return gatewayAnswer(404, { message: 'Not Found' });

  const decision = await options.authorize(request.headers.authorization, [match.route.operation.scope]);
  if (!decision.allowed) return gatewayAnswer(decision.statusCode, decision.body, decision.headers);

  let body: Buffer;
  try {
    body = await readBody(request, MAX_PAYLOAD_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return gatewayAnswer(413, { message: 'Request Entity Too Large' });
    throw error;
  }

  const { claims, scopes } = decision;
  const event = httpApiEvent({ request, match, body, claims, scopes, requestId, receivedAt });
  const handler = options.handlers.get(match.route.operation.id);
  if (!handler) throw new Error(`No handler loaded for ${match.route.operation.id}`);
  const timeoutMs = options.functionTimeoutMs ?? FUNCTION_TIMEOUT_MS;
  const context = lambdaContext(match.route.operation.handler, options.region, timeoutMs, FUNCTION_MEMORY_MB, requestId);

  let answer: HttpAnswer | undefined;
  try {
    // The event and the result cross Lambda's boundary as JSON; so they do here.
    const result = await withTimeout(handler(asJson(event), context), timeoutMs, context);
    answer = httpAnswerOf(asJson(result ?? null));
    if (!answer) options.log?.(`${context.functionName} answered something that is not an HTTP API response`);
  } catch (error) {
    options.log?.(`${context.functionName} failed: ${(error as Error).stack ?? String(error)}`);
  }
  if (!answer) return gatewayAnswer(500, { message: 'Internal Server Error' });
  sendResponse(request, response, answer.statusCode, { ...answer.headers, 'apigw-requestid': requestId }, answer.body);
}

/** What API Gateway's header limit counts: the request line and every header's value, in bytes. */
function requestLineAndHeaderBytes(request: IncomingMessage): number {
  let bytes = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}`);
  // rawHeaders alternates names and values, repeated headers included.
  for (let index = 1; index < request.rawHeaders.length; index += 2) bytes += Buffer.byteLength(request.rawHeaders[index]!);
  return bytes;
}

/**
 * The answer API Gateway makes of a payload 2.0 result: `{statusCode, headers, cookies, body,
 * isBase64Encoded}` as given; any other JSON value is a 200 application/json answer holding it.
 * Undefined when the result is not a valid response.
 */
export function httpAnswerOf(result: unknown): HttpAnswer | undefined {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(result)) };
  }
  const { statusCode, headers = {}, cookies = [], body = '', isBase64Encoded = false } = result as Record<string, unknown>;
  if (!Number.isInteger(statusCode) || (statusCode as number) < 100 || (statusCode as number) > 599) return undefined;
  if (typeof headers !== 'object' || headers === null || !Array.isArray(cookies) || typeof body !== 'string') {
    return undefined;
  }
  const answerHeaders: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) answerHeaders[name.toLowerCase()] = String(value);
  if (cookies.length > 0) answerHeaders['set-cookie'] = cookies.map(String);
  return {
    statusCode: statusCode as number,
    headers: answerHeaders,
    body: isBase64Encoded === true ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8'),
  };
}

function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Lambda stops a function at its timeout; here the answer is given up (the call cannot be stopped). */
function withTimeout<T>(promise: Promise<T>, timeoutMs: number, context: Context): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${context.functionName} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timedOut]).finally(() => clearTimeout(timer));
}
