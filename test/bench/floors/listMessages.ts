/** Floor of GET /messages: the portal's token (UpdateItem), GetItem (the record must be the caller's), one Query page newest first. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { type FloorEvent, TABLE_NAME, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  await takePortalToken(portalId, 'listMessages');
  const { config_id: configId, limit = '50' } = event.queryStringParameters ?? {};
  await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key: { portalId, sk: `subscription#${configId}` }, ConsistentRead: true }));
  const { Items = [], LastEvaluatedKey } = await documentClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':portalId': portalId, ':prefix': `message#${configId}#` },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: Number(limit),
    }),
  );
  return ok({
    message: `${Items.length} messages.`,
    messages: Items.map(({ eventId, event, occurredAt, sentAt, deliveryState, attempts, lastAttemptAt, statusCode, messageId, body }) => ({
      eventId, event, occurredAt, sentAt, status: deliveryState, attempts, lastAttemptAt: lastAttemptAt ?? null, statusCode: statusCode ?? null, messageId, body: JSON.parse(body),
    })),
    nextCursor: LastEvaluatedKey ? Buffer.from(String(LastEvaluatedKey.sk)).toString('base64url') : null,
  });
}
