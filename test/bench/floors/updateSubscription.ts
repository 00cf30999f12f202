/**
 * Floor of update: one conditional UpdateItem; with a throttle, also SetSubscriptionAttributes of
 * the record's SNS subscription (so the floor loads the SNS client, as the function must).
 */
import { SetSubscriptionAttributesCommand } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { snsClient } from '../../../shared/aws/sns';
import { changeRecordFloor } from './change-record-floor';
import { type FloorEvent, bodyOf, ok, portalOf } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  const { config_id: configId, events, maxReceivesPerSecond } = bodyOf<{ config_id: string; events: string[]; maxReceivesPerSecond?: number }>(event);
  const record = await changeRecordFloor(portalId, configId, 'events', events);
  if (maxReceivesPerSecond !== undefined) {
    await snsClient.send(
      new SetSubscriptionAttributesCommand({
        SubscriptionArn: record.subscriptionArn as string,
        AttributeName: 'DeliveryPolicy',
        AttributeValue: JSON.stringify({ throttlePolicy: { maxReceivesPerSecond } }),
      }),
    );
  }
  return ok({ message: 'Subscription events updated.', record: { configId, events, portalId } });
}
