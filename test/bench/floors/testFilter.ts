/**
 * Floor of POST /test-filter: the portal's token taken (its one AWS call); the body parsed and its
 * filter tried on its data with the least matching there is (each key's list of exact values), no
 * validation of the language.
 */
import type { Context } from 'aws-lambda';
import { type FloorEvent, bodyOf, ok, portalOf, takePortalToken } from './floor-http';

export async function handler(event: FloorEvent, _context: Context) {
  await takePortalToken(portalOf(event), 'testFilter');
  const { filter, data } = bodyOf<{ filter: Record<string, unknown[]>; data: Record<string, unknown> }>(event);
  const miss = Object.keys(filter).find((key) => !filter[key]!.includes(data[key]));
  return ok({ message: miss ? `${miss} decided it.` : 'matches.', matches: miss === undefined, decidingKey: miss ?? null });
}
