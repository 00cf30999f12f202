/** Floor of delete: GetItem (find the record), DeleteTopic, the remove transaction. */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DeleteTopicCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { type FloorEvent, TABLE_NAME, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  await takePortalToken(portalId, 'deleteSubscription');
  const Key = { portalId, sk: `subscription#${event.pathParameters!.configId}` };
  const { Item } = await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true }));
  await snsClient.send(new DeleteTopicCommand({ TopicArn: Item!.topicArn }));
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: TABLE_NAME, Key, ConditionExpression: 'attribute_exists(sk)' } },
        {
          Update: {
            TableName: TABLE_NAME,
            Key: { portalId, sk: 'portal' },
            UpdateExpression: 'ADD subscriptionCount :minusOne',
            ExpressionAttributeValues: { ':minusOne': -1 },
          },
        },
      ],
    }),
  );
  return ok({ message: 'Subscription deleted.' });
}
