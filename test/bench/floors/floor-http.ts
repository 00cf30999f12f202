/**
 * What every floor handler needs from an API Gateway event and nothing more: the portal claim,
 * the parsed body, a 200 answer. No validation, no error envelope, no logging: a floor is the
 * least code that can make its operation's calls (docs/performance.md).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';

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

/**
 * The per-portal rate limit's one conditional UpdateItem (a token of the portal's bucket for the
 * route), which every route must make before it runs: part of each floor, so that its row judges
 * the service's code, and the check's own cost is that call's.
 */
export async function takePortalToken(portalId: string, operationId: string): Promise<void> {
  const now = Date.now();
  await documentClient
    .send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key: { portalId, sk: `ratelimit#${operationId}` },
        UpdateExpression: 'SET bucketFullAt = :next, idempotencyExpiresAt = :expiry',
        ConditionExpression: 'attribute_not_exists(bucketFullAt) OR bucketFullAt <= :now',
        ExpressionAttributeValues: { ':next': now + 1, ':expiry': Math.ceil(now / 1000) + 120, ':now': now },
      }),
    )
    // A floor takes the call's cost, not the limit's verdict.
    .catch(() => undefined);
}
