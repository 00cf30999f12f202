/**
 * Which waiting messages the local queue hands out next, as an SQS fair queue chooses them (Amazon
 * SQS Developer Guide, "How Amazon SQS fair queues work",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html):
 * tenants are told apart by MessageGroupId, a message without one being a tenant of its own; a
 * tenant holding more than 10% of the messages in flight and at least 30 of them is a noisy
 * neighbour; while one is, the quiet tenants' messages are returned first, and the noisy ones'
 * after them, those of the noisy tenant with the fewest in flight first. Nothing is dropped or
 * held back: with no quiet message waiting, the noisy ones go as usual. (The page's second
 * measure, a tenant's share of the consumers' processing time, is not kept here: locally every
 * portal's batch costs about the same.)
 */

/** A noisy tenant holds more than this share of the messages in flight... */
const NOISY_SHARE = 0.1;
/** ...and at least this many of them. */
const NOISY_AT_LEAST = 30;

export interface FairCandidate {
  /** Its MessageGroupId; none: a tenant of its own. */
  groupId?: string;
}

/** The groups that are noisy neighbours, given how many messages each has in flight. */
export function noisyGroups(inFlightByGroup: ReadonlyMap<string, number>): Set<string> {
  let total = 0;
  for (const count of inFlightByGroup.values()) total += count;
  const noisy = new Set<string>();
  for (const [group, count] of inFlightByGroup) if (count >= NOISY_AT_LEAST && count > total * NOISY_SHARE) noisy.add(group);
  return noisy;
}

/**
 * Up to `count` of the waiting messages (in the order they wait), quiet tenants' first. `inFlight`
 * counts the messages in flight of each group; messages without a group are never in it (each is
 * its own tenant, one message in flight at most, so never noisy).
 */
export function fairBatch<Message extends FairCandidate>(waiting: readonly Message[], inFlight: ReadonlyMap<string, number>, count: number): Message[] {
  const noisy = noisyGroups(inFlight);
  if (noisy.size === 0) return waiting.slice(0, count);
  const quiet: Message[] = [];
  const held: Message[] = [];
  for (const message of waiting) {
    if (message.groupId !== undefined && noisy.has(message.groupId)) held.push(message);
    else if (quiet.length < count) quiet.push(message);
  }
  if (quiet.length >= count) return quiet;
  // Among the noisy, the one with the fewest in flight first; the sort is stable, so each keeps its order.
  if (noisy.size > 1) held.sort((a, b) => (inFlight.get(a.groupId!) ?? 0) - (inFlight.get(b.groupId!) ?? 0));
  return [...quiet, ...held.slice(0, count - quiet.length)];
}
