/** Floor of rename: one conditional UpdateItem. */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { type FloorEvent, TABLE_NAME, bodyOf, ok, portalOf } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const { config_id: configId, name } = bodyOf<{ config_id: string; name: string }>(event);
  await documentClient.send(
    new UpdateCommand({
      TableName: TABLE_NAME,
      Key: { portalId: portalOf(event), sk: `subscription#${configId}` },
      UpdateExpression: 'SET #name = :name',
      ConditionExpression: 'attribute_exists(sk)',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ':name': name },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return ok({ message: 'Subscription renamed.' });
}
