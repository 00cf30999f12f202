/**
 * Delivery status records joined to the message log. SNS's record names a topic and a message id,
 * and anyone who may write CloudWatch Logs in the account can put a record in a log group named like
 * one of the service's; a record is the service's only when its message id is one the service
 * published to that very topic (shared/data/messages.ts). The portal the attempt is kept for is the
 * one its message was logged for, which only the service writes: not the topic's tag, which another
 * principal could remove or change.
 */
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import type { DeliveryAttempt } from '../data/attempts';
import { removeRetrying } from '../data/dead-letters';
import { messageAttempted, messageDeadLettered, type MessageOwner, ownersOf } from '../data/messages';
import type { RecordTable } from '../data/table';
import { TEST_EVENT_KIND } from '../delivery/message';

/** The log line of records dropped for naming no message the service published to their topic. */
export const UNKNOWN_MESSAGE_DROPPED = 'delivery status records dropped: no message the service published to their topic has their id';

/** One subscription's joined attempts, each beside its message. */
export interface JoinedAttempts {
  portalId: string;
  configId: string;
  topicArn: string;
  attempts: DeliveryAttempt[];
  owners: MessageOwner[];
}

const UPDATES_IN_FLIGHT = 10;

/**
 * How long after SNS logged it a record naming no logged message is looked up again: SNS may deliver
 * (and log) a message before its publisher's log write, made right after SNS accepted it, has
 * landed. Past this, an unknown id is one the service never logged.
 */
export const YOUNG_RECORD_MS = 30_000;
/** The waits before the second and third look-up of young unknown records. */
const LOOK_AGAIN_AFTER_MS = [300, 1_500];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a record of `at` (ISO 8601) is young enough that its message's log write may not have landed yet. */
export const isYoung = (at: string, now = Date.now()) => now - Date.parse(at) < YOUNG_RECORD_MS;

/**
 * The logged messages of the records (ownersOf), looked up again (after 0.3 s, then 1.5 s) for the
 * young records whose message was not found yet.
 */
export async function ownersLookingAgain(table: RecordTable, records: readonly { messageId: string; at: string }[], now = Date.now()): Promise<Map<string, MessageOwner>> {
  const owners = records.length === 0 ? new Map<string, MessageOwner>() : await ownersOf(table, records.map(({ messageId }) => messageId));
  for (const wait of LOOK_AGAIN_AFTER_MS) {
    const young = records.filter(({ messageId, at }) => !owners.has(messageId) && isYoung(at, now));
    if (young.length === 0) break;
    await sleep(wait);
    for (const [messageId, owner] of await ownersOf(table, young.map(({ messageId }) => messageId))) owners.set(messageId, owner);
  }
  return owners;
}

/** Splits the attempts into those of a message the service published to their topic (by subscription) and the others. */
export async function joinToMessages(table: RecordTable, attempts: readonly DeliveryAttempt[], now = Date.now()): Promise<{ joined: JoinedAttempts[]; unknown: DeliveryAttempt[] }> {
  const owners = await ownersLookingAgain(table, attempts, now);
  const unknown: DeliveryAttempt[] = [];
  const groups = new Map<string, JoinedAttempts>();
  for (const attempt of attempts) {
    const owner = owners.get(attempt.messageId);
    if (!owner || owner.configId !== attempt.configId) {
      unknown.push(attempt);
      continue;
    }
    const key = `${owner.portalId}#${attempt.topicArn}`;
    const group = groups.get(key) ?? { portalId: owner.portalId, configId: owner.configId, topicArn: attempt.topicArn, attempts: [], owners: [] };
    group.attempts.push({ ...attempt, eventId: owner.eventId, testEvent: owner.event === TEST_EVENT_KIND });
    group.owners.push(owner);
    groups.set(key, group);
  }
  return { joined: [...groups.values()], unknown };
}

/** Sets each joined attempt's outcome on its message (the latest wins; a dead-lettered one stays so). */
export async function markMessagesAttempted(table: RecordTable, { attempts, owners }: JoinedAttempts): Promise<void> {
  const pairs = attempts.map((attempt, index) => ({ attempt, owner: owners[index]! }));
  await mapWithConcurrency(pairs, UPDATES_IN_FLIGHT, ({ attempt, owner }) => messageAttempted(table, owner, attempt));
}

/**
 * The dead letters whose scheduled retry these attempts delivered leave (they stayed kept, shown as
 * retrying, while the retry was out: shared/dead-letters/retries.ts). Answers how many left.
 */
export async function endDeliveredRetries(table: RecordTable, { attempts, owners }: JoinedAttempts): Promise<number> {
  const delivered = owners.filter((owner, index) => owner.retryOf !== undefined && attempts[index]!.status === 'delivered');
  const left = await mapWithConcurrency(delivered, UPDATES_IN_FLIGHT, (owner) => removeRetrying(table, { portalId: owner.portalId, configId: owner.configId, sk: owner.retryOf! }));
  return left.filter(Boolean).length;
}

/**
 * Marks the logged message of a dead letter dead-lettered, when it is one the service published to
 * that subscription; false otherwise. `owners`: the batch's messages read together (ownersOf), so a
 * batch costs one read, not one a letter; without it, this letter's alone.
 */
export async function markMessageDeadLettered(
  table: RecordTable,
  letter: { messageId: string; configId: string; failedAt: string },
  owners?: ReadonlyMap<string, MessageOwner>,
): Promise<boolean> {
  const owner = (owners ?? (await ownersOf(table, [letter.messageId]))).get(letter.messageId);
  if (!owner || owner.configId !== letter.configId) return false;
  return messageDeadLettered(table, owner, letter.failedAt);
}
