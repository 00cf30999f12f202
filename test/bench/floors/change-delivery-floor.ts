/** What update and activate floors share: the conditional write, the filter, the re-read. */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SetSubscriptionAttributesCommand } from '@aws-sdk/client-sns';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { TABLE_NAME } from './floor-http';

export async function changeDeliveryFloor(portalId: string, configId: string, name: 'events' | 'status', value: unknown) {
  const Key = { portalId, sk: `subscription#${configId}` };
  const { Attributes } = await documentClient.send(
    new UpdateCommand({
      TableName: TABLE_NAME,
      Key,
      UpdateExpression: `SET #${name} = :${name}`,
      ConditionExpression: 'attribute_exists(sk)',
      ExpressionAttributeNames: { [`#${name}`]: name },
      ExpressionAttributeValues: { [`:${name}`]: value },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const events: string[] = Attributes!.status === 1 ? [...Attributes!.events, 'webhooks.test'] : ['webhooks.test'];
  await snsClient.send(
    new SetSubscriptionAttributesCommand({
      SubscriptionArn: Attributes!.subscriptionArn,
      AttributeName: 'FilterPolicy',
      AttributeValue: JSON.stringify({ event: events }),
    }),
  );
  await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true }));
  return Attributes!;
}
