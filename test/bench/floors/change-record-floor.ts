/** What the update, activate and rename floors share: one conditional write of one attribute. */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../../shared/aws/dynamodb';
import { TABLE_NAME } from './floor-http';

export async function changeRecordFloor(portalId: string, configId: string, name: 'events' | 'status' | 'name', value: unknown) {
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
