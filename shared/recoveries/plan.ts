/**
 * What a recovery sends: each event of its window once, oldest first, with the body of its first
 * message in the window. Several logged messages of one event (the original, retries, resends)
 * are one event. With `failed`, an event is sent when one of its messages in the window had an
 * attempt and was not delivered (`failed`, `dead-lettered`) and none of its messages from `since`
 * to when the recovery started was delivered: the endpoint has those already.
 *
 * The plan is read again at the start of each slice, from the message log (one Query of the window
 * and on to the recovery's start): the recovery's own messages are sent after that, so they never
 * change it, and the slice goes on after the cursor, the key of the last event done.
 */
import { messagesOf } from '../data/messages';
import type { StoredRecovery } from '../data/recoveries';
import type { RecordTable } from '../data/table';

export interface PlannedEvent {
  eventId: string;
  /** The sort key of the event's first message in the window: its body is what is sent. */
  sk: string;
}

interface Seen {
  sk?: string;
  failed: boolean;
  delivered: boolean;
}

/** Events a recovery holds at most: their ids are kept in memory while a slice plans. */
export const MAX_RECOVERY_EVENTS = 100_000;

export class WindowTooLargeError extends Error {
  override readonly name = 'WindowTooLargeError';
  constructor() {
    super(`The window holds more than ${MAX_RECOVERY_EVENTS.toLocaleString('en')} events; recover it in shorter windows.`);
  }
}

/** Every event the recovery sends, oldest first (`matched` is their number), and those still to send after its cursor. */
export async function planRecovery(table: RecordTable, recovery: Pick<StoredRecovery, 'portalId' | 'configId' | 'since' | 'until' | 'status' | 'createdAt' | 'cursor'>): Promise<{ matched: number; toSend: PlannedEvent[] }> {
  const seen = new Map<string, Seen>();
  const messages = messagesOf(table, recovery.portalId, recovery.configId, { since: recovery.since, until: recovery.createdAt, newestFirst: false, pageSize: undefined });
  for await (const message of messages) {
    let event = seen.get(message.eventId);
    if (!event) {
      if (seen.size >= MAX_RECOVERY_EVENTS) throw new WindowTooLargeError();
      event = { failed: false, delivered: false };
      seen.set(message.eventId, event);
    }
    const inWindow = message.sentAt <= recovery.until;
    if (inWindow && event.sk === undefined) event.sk = message.sk;
    if (message.status === 'delivered') event.delivered = true;
    if (inWindow && (message.status === 'failed' || message.status === 'dead-lettered')) event.failed = true;
  }
  const chosen: PlannedEvent[] = [];
  for (const [eventId, event] of seen) {
    if (event.sk === undefined) continue;
    if (recovery.status === 'failed' && (!event.failed || event.delivered)) continue;
    chosen.push({ eventId, sk: event.sk });
  }
  // The map holds events in the order their first message was read: oldest first already.
  return { matched: chosen.length, toSend: recovery.cursor === undefined ? chosen : chosen.filter(({ sk }) => sk > recovery.cursor!) };
}
