/** Floor of GET /recoveries: the portal's token (UpdateItem), GetItem (the record must be the caller's), one Query page newest first. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { type FloorEvent, TABLE_NAME, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  await takePortalToken(portalId, 'listRecoveries');
  const { config_id: configId, limit = '20' } = event.queryStringParameters ?? {};
  await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key: { portalId, sk: `subscription#${configId}` }, ConsistentRead: true }));
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':portalId': portalId, ':prefix': `recovery#${configId}#` },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: Number(limit),
    }),
  );
  return ok({
    message: `${Items.length} recoveries.`,
    recoveries: Items.map(({ recoveryId, since, until, selection, recoveryState, createdAt, updatedAt, matched, sent, failed }) => ({
      recoveryId, configId, since, until, status: selection, state: recoveryState, createdAt, updatedAt, matched, sent, failed,
    })),
  });
}
