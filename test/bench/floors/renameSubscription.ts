/** Floor of rename: one conditional UpdateItem. */
import type { Context } from 'aws-lambda';
import { changeRecordFloor } from './change-record-floor';
import { type FloorEvent, bodyOf, ok, portalOf } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const { config_id: configId, name } = bodyOf<{ config_id: string; name: string }>(event);
  await changeRecordFloor(portalOf(event), configId, 'name', name);
  return ok({ message: 'Subscription renamed.' });
}
