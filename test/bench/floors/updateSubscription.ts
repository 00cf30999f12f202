/** Floor of update: UpdateItem, SetSubscriptionAttributes, GetItem (the re-check). */
import type { Context } from 'aws-lambda';
import { changeDeliveryFloor } from './change-delivery-floor';
import { type FloorEvent, bodyOf, ok, portalOf } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  const { config_id: configId, events } = bodyOf<{ config_id: string; events: string[] }>(event);
  await changeDeliveryFloor(portalId, configId, 'events', events);
  return ok({ message: 'Subscription events updated.', record: { configId, events, portalId } });
}
