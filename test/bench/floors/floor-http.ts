/**
 * What every floor handler needs from an API Gateway event and nothing more: the portal claim,
 * the parsed body, a 200 answer. No validation, no error envelope, no logging: a floor is the
 * least code that can make its operation's calls (docs/performance.md).
 */
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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

/** The message log's write of one message published (the message and its owner by message id), as the service makes it. */
export async function logMessage(message: { portalId: string; configId: string; messageId: string; eventId: string; event: string; occurredAt: string; body: string }): Promise<void> {
  const sentAt = new Date().toISOString();
  const sk = `message#${message.configId}#${sentAt}#${message.messageId}`;
  const items = [
    { ...message, sk, sentAt, deliveryState: 'pending', attempts: 0 },
    { portalId: `message-id#${message.messageId}`, sk: 'message', subscriptionPortalId: message.portalId, configId: message.configId, messageId: message.messageId, messageSk: sk, event: message.event, eventId: message.eventId },
  ];
  await documentClient.send(new BatchWriteCommand({ RequestItems: { [TABLE_NAME]: items.map((Item) => ({ PutRequest: { Item } })) } }));
}
