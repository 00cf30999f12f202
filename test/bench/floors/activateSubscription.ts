/** Floor of activate: UpdateItem, SetSubscriptionAttributes, GetItem (the re-check). */
import type { Context } from 'aws-lambda';
import { changeDeliveryFloor } from './change-delivery-floor';
import { type FloorEvent, bodyOf, ok, portalOf } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const { config_id: configId, status } = bodyOf<{ config_id: string; status: number }>(event);
  await changeDeliveryFloor(portalOf(event), configId, 'status', status);
  return ok({ message: status === 1 ? 'Subscription activated.' : 'Subscription deactivated.' });
}
