/**
 * What API Gateway hands a Lambda integration of an HTTP API (payload format 2.0) with a JWT
 * authorizer, built from a node:http request, and the Lambda context the runtime passes along.
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RouteMatch } from './routes';

/** The account and API id the local events name (the SNS emulator's default account). */
import { LOCAL_ACCOUNT_ID } from '../../aws/local-account';
export const LOCAL_API_ID = 'localapi';

/**
 * Bodies of these types reach the function as text; everything else, a missing content type
 * included, is base64-encoded with isBase64Encoded true, as API Gateway does for HTTP APIs.
 */
const TEXT_MEDIA_TYPES = /^(text\/[^;]+|application\/(json|xml|javascript))\s*(;|$)/i;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export interface EventInput {
  readonly request: IncomingMessage;
  readonly match: RouteMatch;
  readonly body: Buffer;
  readonly claims: Record<string, string>;
  readonly scopes: string[];
  readonly requestId: string;
  readonly receivedAt: Date;
}

export function httpApiEvent(input: EventInput): APIGatewayProxyEventV2WithJWTAuthorizer {
  const { request, match, body, claims, scopes, requestId, receivedAt } = input;
  const target = request.url ?? '/';
  const queryStart = target.indexOf('?');
  const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? '' : target.slice(queryStart + 1);
  const sourceIp = (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const { headers, cookies } = headersAndCookies(request, sourceIp, receivedAt);
  const queryStringParameters = queryParameters(rawQueryString);
  const host = (headers.host ?? '127.0.0.1').replace(/:\d+$/, '');
  const contentType = headers['content-type'];
  const isText = contentType !== undefined && TEXT_MEDIA_TYPES.test(contentType);

  return {
    version: '2.0',
    routeKey: match.route.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(queryStringParameters ? { queryStringParameters } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: LOCAL_API_ID,
      // A JWT authorizer's context holds `jwt` only (AWS's sample event, apigw-v2-request-jwt-authorizer.json).
      authorizer: { jwt: { claims, scopes } },
      domainName: host,
      domainPrefix: host.split('.')[0]!,
      http: {
        method: match.route.method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: match.route.routeKey,
      stage: '$default',
      time: clfTime(receivedAt),
      timeEpoch: receivedAt.getTime(),
    },
    ...(match.pathParameters ? { pathParameters: match.pathParameters } : {}),
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

/** A Lambda context as the runtime passes it to the operation's function. */
export function lambdaContext(
  functionName: string,
  region: string,
  timeoutMs: number,
  memoryMb: number,
  awsRequestId: string,
): Context {
  const deadline = Date.now() + timeoutMs;
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]local`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** An API Gateway request id: 11 random bytes in base64, like `JKJaXmPLvHcESHA=`. */
export function apiGatewayRequestId(): string {
  return randomBytes(11).toString('base64');
}

/**
 * Header names in lower case, repeated headers joined with commas (payload 2.0 has no
 * multi-value headers); the Cookie header moves to `cookies`, one entry per cookie. Like API
 * Gateway, adds the x-forwarded-* headers (the caller's address appended to any it sent) and
 * an X-Ray style x-amzn-trace-id.
 */
function headersAndCookies(
  request: IncomingMessage,
  sourceIp: string,
  receivedAt: Date,
): { headers: Record<string, string>; cookies: string[] } {
  const headers = new Map<string, string>();
  const cookies: string[] = [];
  for (const [name, values] of Object.entries(request.headersDistinct)) {
    if (!values) continue;
    if (name === 'cookie') {
      cookies.push(...values.flatMap((value) => value.split(';')).map((cookie) => cookie.trim()).filter(Boolean));
      continue;
    }
    headers.set(name, values.join(','));
  }
  const forwardedFor = headers.get('x-forwarded-for');
  headers.set('x-forwarded-for', forwardedFor ? `${forwardedFor}, ${sourceIp}` : sourceIp);
  headers.set('x-forwarded-port', String(request.socket.localPort ?? ''));
  headers.set('x-forwarded-proto', 'http');
  const epochSecondsHex = Math.floor(receivedAt.getTime() / 1000).toString(16);
  headers.set('x-amzn-trace-id', `Root=1-${epochSecondsHex}-${randomBytes(12).toString('hex')}`);
  // Built from a Map, so a client's header named like an Object.prototype member is just a header.
  return { headers: Object.fromEntries(headers), cookies };
}

/** Query parameters decoded, repeated ones joined with commas; undefined when there are none. */
function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    const earlier = parameters.get(name);
    parameters.set(name, earlier === undefined ? value : `${earlier},${value}`);
  }
  return parameters.size > 0 ? Object.fromEntries(parameters) : undefined;
}

/** `12/Mar/2020:19:03:58 +0000`: the request time as API Gateway writes it. */
function clfTime(date: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return (
    `${two(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`
  );
}
