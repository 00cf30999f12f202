/**
 * Floor of confirm: GetItem (find the record), GetSubscriptionAttributes (its state), Subscribe
 * (the endpoint again: as it is when pending, with its attributes when gone), and for a new ARN
 * the conditional UpdateItem that stores it.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { GetSubscriptionAttributesCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { type FloorEvent, TABLE_NAME, bodyOf, ok, portalOf } from './floor-http';

const DEAD_LETTER_QUEUE_ARN = process.env.DELIVERY_DEAD_LETTER_QUEUE_ARN;

export async function handler(event: FloorEvent, _context: Context) {
  const Key = { portalId: portalOf(event), sk: `subscription#${bodyOf<{ config_id: string }>(event).config_id}` };
  const { Item } = await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true }));
  const gone = await snsClient
    .send(new GetSubscriptionAttributesCommand({ SubscriptionArn: Item!.subscriptionArn }))
    .then(() => false, () => true);
  const { SubscriptionArn } = await snsClient.send(
    new SubscribeCommand({
      TopicArn: Item!.topicArn,
      Protocol: Item!.protocol,
      Endpoint: Item!.endpoint,
      Attributes: gone && DEAD_LETTER_QUEUE_ARN ? { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DEAD_LETTER_QUEUE_ARN }) } : undefined,
      ReturnSubscriptionArn: true,
    }),
  );
  if (SubscriptionArn !== Item!.subscriptionArn) {
    await documentClient.send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key,
        UpdateExpression: 'SET subscriptionArn = :new',
        ConditionExpression: 'subscriptionArn = :old',
        ExpressionAttributeValues: { ':new': SubscriptionArn, ':old': Item!.subscriptionArn },
      }),
    );
  }
  return ok({ message: 'Confirmation requested.', subscriptionState: 'pending' });
}
