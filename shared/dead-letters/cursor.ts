/**
 * The `cursor` of GET /dead-letters: the sort key of the last dead letter of a page, base64url.
 * Opaque to callers, and never trusted: it is read back only as a key of the very subscription
 * asked for, in the caller's own partition (the partition key is never part of it), so no cursor
 * can lead to another subscription's dead letters or another portal's.
 */
import { deadLetterPrefixOf } from '../data/table';

export const cursorOf = (sortKey: string) => Buffer.from(sortKey, 'utf8').toString('base64url');

/** The sort key a cursor names, if it names one of the subscription's dead letters; undefined otherwise. */
export function sortKeyOfCursor(cursor: string, configId: string): string | undefined {
  const sortKey = Buffer.from(cursor, 'base64url').toString('utf8');
  const rest = sortKey.startsWith(deadLetterPrefixOf(configId)) ? sortKey.slice(deadLetterPrefixOf(configId).length) : undefined;
  // `<failedAt>#<messageId>`: an ISO time, then SNS's message id.
  return rest !== undefined && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[A-Za-z0-9-]{1,100}$/.test(rest) && cursorOf(sortKey) === cursor
    ? sortKey
    : undefined;
}
