/**
 * The `cursor` of GET /messages: the sort key of the last message of a page, base64url. Read back
 * only as a key of the very subscription asked for, in the caller's own partition, as the
 * attempts' cursor is (shared/attempts/cursor.ts).
 */
import { messagePrefixOf } from '../data/table';

export const messageCursorOf = (sortKey: string) => Buffer.from(sortKey, 'utf8').toString('base64url');

/** The sort key a cursor names, if it names one of the subscription's messages; undefined otherwise. */
export function sortKeyOfMessageCursor(cursor: string, configId: string): string | undefined {
  const sortKey = Buffer.from(cursor, 'base64url').toString('utf8');
  const prefix = messagePrefixOf(configId);
  const rest = sortKey.startsWith(prefix) ? sortKey.slice(prefix.length) : undefined;
  return rest !== undefined && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[A-Za-z0-9-]{1,100}$/.test(rest) && messageCursorOf(sortKey) === cursor
    ? sortKey
    : undefined;
}
