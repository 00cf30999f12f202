/**
 * Floor of confirm: the portal's rate-limit token, GetItem (find the record), GetSubscriptionAttributes
 * (its state), the conditional UpdateItem taking the confirmation request's turn, Subscribe
 * (the endpoint again: as it is when pending, with its attributes when gone), and for a new ARN
 * the conditional UpdateItem that stores it.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { GetSubscriptionAttributesCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { type FloorEvent, TABLE_NAME, bodyOf, ok, portalOf, takePortalToken } from './floor-http';

const DEAD_LETTER_QUEUE_ARN = process.env.DELIVERY_DEAD_LETTER_QUEUE_ARN;

export async function handler(event: FloorEvent, _context: Context) {
  const Key = { portalId: portalOf(event), sk: `subscription#${bodyOf<{ config_id: string }>(event).config_id}` };
  await takePortalToken(Key.portalId, 'confirmSubscription');
  const { Item } = await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true }));
  const gone = await snsClient
    .send(new GetSubscriptionAttributesCommand({ SubscriptionArn: Item!.subscriptionArn }))
    .then(() => false, () => true);
  const at = new Date().toISOString();
  await documentClient.send(
    new UpdateCommand({
      TableName: TABLE_NAME,
      Key,
      UpdateExpression: 'SET confirmationRequestedAt = :at, confirmationRequestsDay = :day, confirmationRequestsThatDay = :count',
      ConditionExpression: 'attribute_not_exists(confirmationRequestedAt) OR confirmationRequestedAt < :at',
      ExpressionAttributeValues: { ':at': at, ':day': at.slice(0, 10), ':count': 1 },
    }),
  );
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
