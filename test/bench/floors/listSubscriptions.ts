/**
 * Floor of list: the portal's Query pages, then GetSubscriptionAttributes (10 in flight) only for
 * the records whose stored state is neither confirmed nor unsubscribed. The bench's portals are
 * all confirmed, so it makes its Queries alone, as the function should.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { GetSubscriptionAttributesCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../../shared/aws/dynamodb';
import { snsClient } from '../../../shared/aws/sns';
import { type FloorEvent, TABLE_NAME, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  await takePortalToken(portalId, 'listSubscriptions');
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
  const states = items.map((item) => item.subscriptionState as string | undefined);
  const unsettled = states.flatMap((state, index) => (state === 'confirmed' || state === 'unsubscribed' ? [] : [index]));
  let next = 0;
  const lookUp = async () => {
    while (next < unsettled.length) {
      const index = unsettled[next++]!;
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
  await Promise.all(Array.from({ length: Math.min(10, unsettled.length) }, lookUp));
  // The answer's fields only, as the function answers them (the whole items would be 3 times the bytes).
  const configs = items.map(({ configId, name, endpoint, protocol, events, status }, index) => ({
    configId,
    name,
    endpoint,
    protocol,
    events,
    status,
    confirmed: states[index] === 'confirmed',
    subscriptionState: states[index],
  }));
  return ok({ message: `${items.length} found.`, configs });
}
