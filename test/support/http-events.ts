import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { type OperationId, operationById } from '../../shared/operations';

export interface HttpEventOptions {
  /** Portal claim of the token; `null` for a token without one. */
  portalId?: string | null;
  /** JSON-encoded unless a string is given. */
  body?: unknown;
  /** Value of the `{configId}` path parameter (delete). */
  configId?: string;
  /** Query parameters (GET /dead-letters), as API Gateway passes them. */
  query?: Record<string, string>;
  /** 0: the canonical prefix, 1: the legacy one. */
  prefix?: 0 | 1;
  headers?: Record<string, string>;
  isBase64Encoded?: boolean;
  extraClaims?: Record<string, string>;
}

/** An API Gateway HTTP API payload 2.0 event, shaped as the JWT authorizer delivers it. */
export function httpEvent(operationId: OperationId, options: HttpEventOptions = {}): APIGatewayProxyEventV2WithJWTAuthorizer {
  const op = operationById(operationId);
  const route = op.paths[options.prefix ?? 0]!;
  const rawPath = options.configId === undefined ? route : route.replace('{configId}', encodeURIComponent(options.configId));
  const portalId = options.portalId === undefined ? 'portal-test' : options.portalId;
  const claims: Record<string, string> = {
    sub: 'client-test',
    iss: 'https://auth.example.test',
    scope: op.scope,
    ...(portalId === null ? {} : { portal_id: portalId }),
    ...options.extraClaims,
  };
  const body =
    options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const now = new Date();
  // API Gateway's format: 12/Mar/2026:10:15:30 +0000
  const [, day, month, year, time] = now.toUTCString().split(/,? /);
  return {
    version: '2.0',
    routeKey: `${op.method} ${route}`,
    rawPath,
    rawQueryString: options.query ? new URLSearchParams(options.query).toString() : '',
    headers: {
      'content-type': 'application/json',
      host: 'api.example.test',
      ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
      ...options.headers,
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'testapi',
      authorizer: { jwt: { claims, scopes: [op.scope] } },
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method: op.method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: randomUUID(),
      routeKey: `${op.method} ${route}`,
      stage: '$default',
      time: `${day}/${month}/${year}:${time} +0000`,
      timeEpoch: now.getTime(),
    },
    ...(options.configId === undefined ? {} : { pathParameters: { configId: options.configId } }),
    ...(options.query === undefined ? {} : { queryStringParameters: options.query }),
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: options.isBase64Encoded ?? false,
  };
}
