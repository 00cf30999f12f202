/** Floor of list: the portal's Query pages, then GetSubscriptionAttributes per record, 10 in flight. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { GetSubscriptionAttributesCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { type FloorEvent, TABLE_NAME, ok, portalOf } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: TABLE_NAME,
        KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':portalId': portalId, ':prefix': 'subscription#' },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const states = new Array<string>(items.length);
  let next = 0;
  const lookUp = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        const { Attributes } = await snsClient.send(
          new GetSubscriptionAttributesCommand({ SubscriptionArn: items[index]!.subscriptionArn as string }),
        );
        states[index] = Attributes?.PendingConfirmation === 'false' ? 'confirmed' : 'pending';
      } catch {
        states[index] = 'unsubscribed';
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(10, items.length) }, lookUp));
  return ok({ message: `${items.length} found.`, configs: items.map((item, index) => ({ ...item, confirmed: states[index] === 'confirmed', subscriptionState: states[index] })) });
}
