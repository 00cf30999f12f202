import { MAX_BATCH_ENTRIES } from '../../shared/delivery/publish';
import type { DispatchShape } from './plan';

/**
 * What each function is held to: the ratios to its floor, and the fewest AWS calls
 * its operation can make, with the one extra call a function may make when it says why.
 */

/** Dead letters each replay invocation of the bench sends again, and each recorder batch holds. */
export const REPLAYED_PER_INVOCATION = 3;
export const RECORDED_PER_BATCH = 10;
/** Dead letters each forwarder batch holds: the delivery dead-letter queue's batch size on AWS. */
export const FORWARDED_PER_BATCH = 10;
/** Delivery status records in each subscription event the attempts consumer is invoked with. */
export const ATTEMPTS_PER_EVENT = 10;

export const TARGETS = {
  /** Bundle size and module load time, function / floor (every function's, createSubscription's included). */
  bundle: 1.15,
  load: 1.15,
  /** Median warm invocation, function / floor. */
  warmMedian: 1.2,
  /** List at scale: time per record at the largest portal / at the middle one, the function's over the floor's. */
  listPerRecordFlatness: 1.5,
  /**
   * Cold start (module load + first invocation), function / the same handler as NodejsFunction
   * builds it by default: every function's, missed only when the whole interval is over it.
   */
  coldStartVsCdkDefault: 0.7,
  /** List of the largest portal (10,000 records, every endpoint confirmed): warm median, ms (issue 22). */
  listLargestWarmMedianMs: 1_000,
} as const;

export interface CallMinimum {
  /** The calls no implementation of the operation can do without, by action. */
  required: Record<string, number>;
  /** One call beyond them that the function makes on purpose, and why. */
  extra?: { action: string; reason: string };
}

/** Update, activate and rename: the conditional write of the record, and nothing in SNS; and the portal's rate limit. */
const CHANGE_RECORD: CallMinimum = { required: { UpdateItem: 2 } };

/**
 * By function. `queryPages` is how many Query pages DynamoDB needs for the portal (its 1 MB
 * pages, as the floor reads them); `dispatch` the batch the dispatcher is invoked with.
 */
export const MINIMUM_CALLS: Record<string, (sizes: { records: number; queryPages: number; dispatch?: DispatchShape }) => CallMinimum> = {
  createSubscription: () => ({
    // CreateTopic sets the access policy, Subscribe the delivery and redrive policies (their Attributes).
    // UpdateItem: the portal's rate limit (its token bucket), on every route that makes SNS send.
    required: { CreateTopic: 1, Subscribe: 1, TransactWriteItems: 1, UpdateItem: 1 },
    extra: { action: 'GetItem', reason: 'limit check before anything is created in SNS' },
  }),
  updateSubscription: () => CHANGE_RECORD,
  activateSubscription: () => CHANGE_RECORD,
  renameSubscription: () => CHANGE_RECORD,
  // The write is the remove transaction with the counter.
  deleteSubscription: () => ({
    // UpdateItem: the portal's rate limit (every route takes its token).
    required: { DeleteTopic: 1, TransactWriteItems: 1, UpdateItem: 1 },
    extra: { action: 'GetItem', reason: "reads the record first: only the caller's portal's topic is deleted, and the record names it" },
  }),
  // Every bench portal's endpoints are stored confirmed: list asks SNS nothing (a pending record would cost a GetSubscriptionAttributes).
  listSubscriptions: ({ queryPages }) => ({ required: { Query: queryPages, UpdateItem: 1 } }),
  // Its record, whether its endpoint confirmed (a test nobody would get is refused), the Publish.
  // UpdateItem: the portal's rate limit.
  testSubscription: () => ({ required: { GetItem: 1, GetSubscriptionAttributes: 1, Publish: 1, UpdateItem: 1, BatchWriteItem: 1 } }),
  // The record (it must be the caller's; its dropped count), one Query page of dead letters.
  listDeadLetters: () => ({ required: { GetItem: 1, Query: 1, UpdateItem: 1 } }),
  // The record and SNS's state (deactivated or unconfirmed is refused), one Query of the kept
  // dead letters, then per message its claim (so concurrent replays send it once), its Publish and
  // the transaction removing it and its count; and the portal's rate limit.
  replayDeadLetters: () => ({
    required: {
      GetItem: 1,
      GetSubscriptionAttributes: 1,
      Query: 1,
      UpdateItem: 1 + REPLAYED_PER_INVOCATION,
      Publish: REPLAYED_PER_INVOCATION,
      TransactWriteItems: REPLAYED_PER_INVOCATION,
      // Each message sent again is logged (the message log).
      BatchWriteItem: REPLAYED_PER_INVOCATION,
    },
  }),
  // One write per dead letter: the transaction of its Put and its record's counters; the retry
  // ledgers of the batch's events (how many scheduled retries each had), read together.
  // The batch sent on in one call.
  forwardDeadLetters: () => ({ required: { SendMessageBatch: 1 } }),
  recordDeadLetters: () => ({
    // BatchGetItem x2: the batch's retry ledgers, and its messages in the message log (each logged one then marked dead-lettered).
    required: { TransactWriteItems: RECORDED_PER_BATCH, BatchGetItem: 2 },
    extra: { action: 'GetItem', reason: 'reads the record once per batch: it must exist in that portal with that topic, and the cap of 1,000' },
  }),
  // Nothing to read or send: the filter is tried in the function alone; its portal's token taken.
  testFilter: () => ({ required: { UpdateItem: 1 } }),
  // The record (it must be the caller's; its protocol), one Query page of attempts.
  listAttempts: () => ({ required: { GetItem: 1, Query: 1, UpdateItem: 1 } }),
  // One log group's records: their messages (so their portal) from the message log, then one
  // transaction of their Puts and the record's counters, and each message's delivery state.
  recordDeliveryAttempts: () => ({
    required: { BatchGetItem: 1, TransactWriteItems: 1, UpdateItem: ATTEMPTS_PER_EVENT },
    extra: { action: 'GetItem', reason: 'reads the record once per event: its counters, the latest times and the cap' },
  }),
  // A pending subscription (the bench's is): its record, its state, the Subscribe; no write, as its ARN stays.
  // UpdateItem x2: the portal's rate limit, and the turn taken before Subscribe (no new request
  // while one is pending, a few a day), a conditional write so concurrent confirms send one.
  confirmSubscription: () => ({ required: { GetItem: 1, GetSubscriptionAttributes: 1, Subscribe: 1, UpdateItem: 2 } }),
  // Per portal of the batch, one Query; per recipient, one PublishBatch per 10 of its events; per
  // portal, its messages logged 12 to a BatchWriteItem.
  dispatchPortalEvents: ({ dispatch = { events: 1, portals: 1, recipients: 1 } }) => ({
    required: {
      Query: dispatch.portals,
      PublishBatch: dispatch.portals * dispatch.recipients * Math.ceil(dispatch.events / dispatch.portals / MAX_BATCH_ENTRIES),
      BatchWriteItem: dispatch.portals * Math.ceil((dispatch.events / dispatch.portals) * dispatch.recipients / 12),
    },
  }),
  // The record, SNS's state (only a confirmed endpoint gets it), one Query page of its messages for
  // the event's latest, the Publish and its log write. UpdateItem: the portal's rate limit.
  resendMessage: () => ({ required: { GetItem: 1, GetSubscriptionAttributes: 1, Query: 1, Publish: 1, UpdateItem: 1, BatchWriteItem: 1 } }),
  // The record, SNS's state (only a confirmed endpoint gets it), the recovery and its running entry in
  // one TransactWriteItems, its first job queued. UpdateItem: the portal's rate limit.
  recoverMessages: () => ({ required: { GetItem: 1, GetSubscriptionAttributes: 1, TransactWriteItems: 1, SendMessage: 1, UpdateItem: 1 } }),
  // The record (it must be the caller's), one Query page of its recoveries.
  listRecoveries: () => ({ required: { GetItem: 1, Query: 1, UpdateItem: 1 } }),
  // The record (it must be the caller's), one Query page of messages.
  listMessages: () => ({ required: { GetItem: 1, Query: 1, UpdateItem: 1 } }),
};

export interface CallVerdict {
  total: number;
  minimum: number;
  /** Within the minimum, or one over it for the stated reason. */
  met: boolean;
  /** The reason printed when the function makes its one extra call. */
  reason?: string;
  /** Actions made more often than allowed (or not at all allowed). */
  excess: string[];
}

export function judgeCalls(counted: ReadonlyMap<string, number>, minimum: CallMinimum): CallVerdict {
  const allowed = new Map(Object.entries(minimum.required));
  if (minimum.extra) allowed.set(minimum.extra.action, (allowed.get(minimum.extra.action) ?? 0) + 1);
  const excess = [...counted].filter(([action, count]) => count > (allowed.get(action) ?? 0)).map(([action, count]) => `${action} x${count}`);
  const total = [...counted.values()].reduce((sum, count) => sum + count, 0);
  const minimumTotal = Object.values(minimum.required).reduce((sum, count) => sum + count, 0);
  const usesExtra = minimum.extra !== undefined && (counted.get(minimum.extra.action) ?? 0) > (minimum.required[minimum.extra.action] ?? 0);
  return {
    total,
    minimum: minimumTotal,
    met: excess.length === 0 && total <= minimumTotal + 1,
    ...(usesExtra && { reason: `+1 ${minimum.extra!.action}: ${minimum.extra!.reason}` }),
    excess,
  };
}
