/** What the update, activate and rename floors share: the portal's token, then one conditional write of one attribute. */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../../shared/aws/dynamodb';
import { TABLE_NAME, takePortalToken } from './floor-http';

export async function changeRecordFloor(portalId: string, configId: string, name: 'events' | 'status' | 'name', value: unknown) {
  await takePortalToken(portalId, `change-${name}`);
  const { Attributes } = await documentClient.send(
    new UpdateCommand({
      TableName: TABLE_NAME,
      Key: { portalId, sk: `subscription#${configId}` },
      UpdateExpression: `SET #${name} = :${name}`,
      ConditionExpression: 'attribute_exists(sk)',
      ExpressionAttributeNames: { [`#${name}`]: name },
      ExpressionAttributeValues: { [`:${name}`]: value },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return Attributes!;
}
