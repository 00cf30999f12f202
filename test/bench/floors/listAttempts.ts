/** Floor of GET /attempts: GetItem (the record must be the caller's; its protocol), one Query page newest first. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { type FloorEvent, TABLE_NAME, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  await takePortalToken(portalId, 'listAttempts');
  const { config_id: configId, limit = '50' } = event.queryStringParameters ?? {};
  await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key: { portalId, sk: `subscription#${configId}` }, ConsistentRead: true }));
  const { Items = [], LastEvaluatedKey } = await documentClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':portalId': portalId, ':prefix': `attempt#${configId}#` },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: Number(limit),
    }),
  );
  return ok({
    message: `${Items.length} attempts.`,
    attempts: Items.map(({ at, status, statusCode, dwellTimeMs, attempts, messageId, eventId }) => ({ at, status, statusCode, dwellTimeMs, attempts, messageId, eventId: eventId ?? null })),
    nextCursor: LastEvaluatedKey ? Buffer.from(String(LastEvaluatedKey.sk)).toString('base64url') : null,
  });
}
