/**
 * What every floor handler needs from an API Gateway event and nothing more: the portal claim,
 * the parsed body, a 200 answer. No validation, no error envelope, no logging: a floor is the
 * least code that can make its operation's calls (docs/performance.md).
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type FloorEvent = APIGatewayProxyEventV2WithJWTAuthorizer;

export const TABLE_NAME = process.env.TABLE_NAME!;

export function portalOf(event: FloorEvent): string {
  return event.requestContext.authorizer.jwt.claims.portal_id as string;
}

export function bodyOf<Body>(event: FloorEvent): Body {
  return JSON.parse(event.body!) as Body;
}

export function ok(body: Record<string, unknown>): APIGatewayProxyStructuredResultV2 {
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ success: true, ...body }) };
}
