/** Floor of activate: one conditional UpdateItem. */
import type { Context } from 'aws-lambda';
import { changeRecordFloor } from './change-record-floor';
import { type FloorEvent, bodyOf, ok, portalOf } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const { config_id: configId, status } = bodyOf<{ config_id: string; status: number }>(event);
  await changeRecordFloor(portalOf(event), configId, 'status', status);
  return ok({ message: status === 1 ? 'Subscription activated.' : 'Subscription deactivated.' });
}
