/** Floor of update: one conditional UpdateItem. */
import type { Context } from 'aws-lambda';
import { changeRecordFloor } from './change-record-floor';
import { type FloorEvent, bodyOf, ok, portalOf } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  const portalId = portalOf(event);
  const { config_id: configId, events } = bodyOf<{ config_id: string; events: string[] }>(event);
  await changeRecordFloor(portalId, configId, 'events', events);
  return ok({ message: 'Subscription events updated.', record: { configId, events, portalId } });
}
