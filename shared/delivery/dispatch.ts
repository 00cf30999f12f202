import type { SNSClient } from '@aws-sdk/client-sns';
import { type FilterPolicy, filterMatches } from '../filters/filter-policy';
import { ACTIVATED, type Subscription } from '../subscriptions/model';
import type { SubscriptionRepository } from '../data/subscription-repository';
import { MAX_PUBLISH_BYTES, publishInputFor, publishSizeOf } from './message';
import type { PortalEvent } from './portal-event';
import type { DeliveryProgress } from '../data/delivery-progress';
import { type BatchEntry, batchesOf, isTopicGone, publishBatch } from './publish';
import { logPublished, type MessageLog, type PublishedMessage } from './logged-publish';

export interface DispatchDeps {
  repository: Pick<SubscriptionRepository, 'listFor'>;
  sns: SNSClient;
  progress: Pick<DeliveryProgress, 'deliveredTo' | 'add'>;
  /** Where each message SNS accepted is logged, with its body (shared/data/messages.ts). */
  messages: MessageLog;
}

/** Filters by their JSON text, parsed once for every batch of the function's life (a portal's few, over and over). */
const parsedFilters = new Map<string, FilterPolicy>();
const MAX_PARSED_FILTERS = 1_000;

function parsedFilter(text: string): FilterPolicy {
  let policy = parsedFilters.get(text);
  if (!policy) {
    policy = JSON.parse(text) as FilterPolicy;
    if (parsedFilters.size >= MAX_PARSED_FILTERS) parsedFilters.clear();
    parsedFilters.set(text, policy);
  }
  return policy;
}

/**
 * Whether the event's `data` matches the subscription's filter (none: every event). Decided here,
 * from the record the batch's one Query read: no AWS call, and a changed filter applies to the
 * next event (SNS's own filter policies take up to 15 minutes: docs/delivery.md).
 */
export function passesFilter(subscription: Pick<Subscription, 'filter'>, data: Record<string, unknown>): boolean {
  return subscription.filter === undefined || filterMatches(parsedFilter(subscription.filter), data);
}

/**
 * The subscriptions an event goes to: activated, listing its kind, and (for a portal event, not a
 * service notice) whose filter its `data` matches.
 */
export function recipientsOf(subscriptions: readonly Subscription[], event: Pick<PortalEvent, 'kind' | 'data'>, { unfiltered = false } = {}): Subscription[] {
  return subscriptions.filter(
    (subscription) => subscription.status === ACTIVATED && subscription.events.includes(event.kind) && (unfiltered || passesFilter(subscription, event.data)),
  );
}

/**
 * How long after its event's time a message can still be its event's first try. A message the
 * dead-letter queue redrives is new to SQS (receive count 1), but it comes at least four
 * visibility timeouts (4 x 180 s) after its event: a message older than this window has its
 * event's progress read whatever its receive count says.
 */
export const FIRST_TRY_WINDOW_MS = 10 * 60 * 1000;

/** Whether an earlier try may have reached some of the event's recipients. */
export function mayFollowEarlierTry(receiveCount: number, event: PortalEvent, now = Date.now()): boolean {
  // Written so that a missing count (NaN) counts as a retry.
  return !(receiveCount <= 1) || now - Date.parse(event.occurredAt) > FIRST_TRY_WINDOW_MS;
}

/** One event of a batch, and whether an earlier try may have reached some of its recipients. */
export interface QueuedEvent {
  event: PortalEvent;
  afterEarlierTry: boolean;
  /** A subscription never to get it, whatever it chose: the failing one a notice is about (shared/dead-letters/notices.ts). */
  except?: string;
  /** A service notice (shared/dead-letters/notices.ts): the recipients' filters, about portal events' data, do not apply. */
  unfiltered?: boolean;
}

/** A recipient whose Publish failed, with SNS's error. */
export interface FailedPublish {
  configId: string;
  topicArn: string;
  error: unknown;
}

export type DispatchOutcome =
  /** Not published to anyone: its recipients (or whom an earlier try reached) could not be read. */
  | { unread: unknown }
  /** Never published: SNS would refuse it whatever the tries. */
  | { refused: string }
  | {
      /** Recipients that got the event now. */
      delivered: string[];
      /** Recipients that got it on an earlier try, not published to again. */
      deliveredEarlier: string[];
      /** Recipients whose topic no longer exists (their subscription was deleted meanwhile): skipped. */
      gone: { configId: string; topicArn: string }[];
      /** Recipients to try again. */
      failed: FailedPublish[];
      /** Set when the delivered recipients could not be recorded: a retry publishes to them again. */
      progressNotSaved?: unknown;
    };

/** Whether the event's queue must hand it out again: some recipient is still owed it. */
export function needsRetry(outcome: DispatchOutcome): boolean {
  return 'unread' in outcome || ('failed' in outcome && outcome.failed.length > 0);
}

/** What one event of a portal's share of the batch is to do, once its recipients are known. */
interface EventPlan {
  position: number;
  event: PortalEvent;
  recipients: Subscription[];
  earlier: Set<string>;
  delivered: string[];
  gone: { configId: string; topicArn: string }[];
  failed: FailedPublish[];
}

/** One entry of a PublishBatch: an event for one recipient. */
interface RecipientEntry extends BatchEntry {
  plan: EventPlan;
  subscription: Subscription;
}

/**
 * Dispatches a batch of events; answers each one's outcome, in the batch's order. An event
 * present twice (same eventId) is published once, both copies answering its outcome. Per portal:
 * one Query of its partition for all of its events; then, per recipient, its events go out
 * together, up to 10 per PublishBatch (in the batch's order), the recipients concurrently. A
 * portal's failure (its Query, a topic's Publish) touches only its own events, and a failed
 * entry only that event for that recipient: the event's retry goes to the recipients it did not
 * reach. After an earlier try (mayFollowEarlierTry), the recipients recorded as served are
 * skipped (one GetItem per such event, alongside the Query); when some recipients of an event
 * fail and others get it, those that got it are recorded (one UpdateItem). Every message SNS
 * accepted is logged, the portal's together, 12 to a BatchWriteItem, before the outcomes are answered.
 */
export async function dispatchPortalEvents(deps: DispatchDeps, batch: readonly QueuedEvent[]): Promise<DispatchOutcome[]> {
  // An event SQS or EventBridge handed over twice in one batch (at-least-once, both) goes out once:
  // its first position is dispatched, and its copies share that outcome (and are retried with it).
  const firstPositionOf = new Map<string, number>();
  const unique: QueuedEvent[] = [];
  const dispatchedAs = batch.map((queued) => {
    const first = firstPositionOf.get(queued.event.eventId);
    if (first !== undefined) {
      // A copy that may follow an earlier try makes the event's dispatch read what that try reached.
      if (queued.afterEarlierTry) unique[first] = { ...unique[first]!, afterEarlierTry: true };
      return first;
    }
    firstPositionOf.set(queued.event.eventId, unique.length);
    unique.push(queued);
    return unique.length - 1;
  });
  const outcomes = await dispatchUniqueEvents(deps, unique);
  return dispatchedAs.map((position) => outcomes[position]!);
}

/** dispatchPortalEvents for a batch without two events of one id. */
async function dispatchUniqueEvents(deps: DispatchDeps, batch: readonly QueuedEvent[]): Promise<DispatchOutcome[]> {
  const outcomes = new Array<DispatchOutcome>(batch.length);
  const positionsByPortal = new Map<string, number[]>();
  batch.forEach(({ event }, position) => positionsByPortal.set(event.portalId, [...(positionsByPortal.get(event.portalId) ?? []), position]));
  await Promise.all(
    [...positionsByPortal].map(async ([portalId, positions]) => {
      try {
        for (const [position, outcome] of await dispatchForPortal(deps, portalId, positions, batch)) outcomes[position] = outcome;
      } catch (error) {
        // Whatever went wrong is this portal's: only its events are retried, not the whole batch
        // (the other portals' events, delivered, have no progress record to spare their recipients).
        for (const position of positions) outcomes[position] = { unread: error };
      }
    }),
  );
  return outcomes;
}

/** One portal's events of the batch (at `positions`): their outcomes by position. */
async function dispatchForPortal(
  { repository, sns, progress, messages }: DispatchDeps,
  portalId: string,
  positions: readonly number[],
  batch: readonly QueuedEvent[],
): Promise<Map<number, DispatchOutcome>> {
  const outcomes = new Map<number, DispatchOutcome>();
  const [subscriptions, ...earlierReads] = await Promise.allSettled([
    repository.listFor(portalId),
    ...positions.map((position) =>
      batch[position]!.afterEarlierTry ? progress.deliveredTo(batch[position]!.event.eventId) : Promise.resolve(new Set<string>()),
    ),
  ]);
  if (subscriptions.status === 'rejected') {
    for (const position of positions) outcomes.set(position, { unread: subscriptions.reason });
    return outcomes;
  }

  const plans: EventPlan[] = [];
  const entriesByTopic = new Map<string, RecipientEntry[]>();
  positions.forEach((position, index) => {
    const earlier = earlierReads[index]!;
    if (earlier.status === 'rejected') {
      outcomes.set(position, { unread: earlier.reason });
      return;
    }
    const { event, except, unfiltered } = batch[position]!;
    const recipients = recipientsOf(subscriptions.value, event, { unfiltered }).filter((subscription) => subscription.configId !== except);
    const inputs = recipients.map((subscription) =>
      publishInputFor(subscription.topicArn, {
        event: event.kind,
        portalId: event.portalId,
        configId: subscription.configId,
        occurredAt: event.occurredAt,
        eventId: event.eventId,
        data: event.data,
      }),
    );
    const largest = Math.max(0, ...inputs.map((input) => publishSizeOf(input)));
    if (largest > MAX_PUBLISH_BYTES) {
      outcomes.set(position, { refused: `its message would be ${largest} bytes, over SNS's limit of ${MAX_PUBLISH_BYTES}` });
      return;
    }
    const plan: EventPlan = { position, event, recipients, earlier: earlier.value, delivered: [], gone: [], failed: [] };
    plans.push(plan);
    recipients.forEach((subscription, recipient) => {
      if (plan.earlier.has(subscription.configId)) return;
      // The event's position in the batch: unique in any request (SNS refuses duplicate Ids whole).
      const entry = { id: `event-${position}`, input: inputs[recipient]!, plan, subscription };
      entriesByTopic.set(subscription.topicArn, [...(entriesByTopic.get(subscription.topicArn) ?? []), entry]);
    });
  });

  const published: PublishedMessage[] = [];
  await Promise.all([...entriesByTopic].map(([topicArn, entries]) => publishToRecipient(sns, topicArn, entries, published)));
  // Inline, before SQS is told the batch is done: a function that dies here has its batch retried,
  // which publishes only to whom it did not reach, so a message is unlogged only if logging fails.
  await logPublished(messages, published);

  await Promise.all(
    plans.map(async (plan) => {
      const { event, recipients, earlier, delivered, gone, failed } = plan;
      let progressNotSaved: unknown;
      // Also when only earlier tries reached some: the write renews the record's expiry, which a
      // redrive from the events dead-letter queue needs (a redriven message is new to SQS, its 14
      // days start again: SQS Developer Guide, "Configure a dead-letter queue redrive").
      if (failed.length > 0 && (delivered.length > 0 || earlier.size > 0)) {
        try {
          await progress.add(event.eventId, delivered);
        } catch (error) {
          progressNotSaved = error;
        }
      }
      // In the order of the portal's records, whichever recipient's answer came first.
      const inRecipientOrder = (configIds: Set<string>) => recipients.map(({ configId }) => configId).filter((configId) => configIds.has(configId));
      outcomes.set(plan.position, {
        delivered: inRecipientOrder(new Set(delivered)),
        deliveredEarlier: inRecipientOrder(earlier),
        gone,
        failed,
        ...(progressNotSaved !== undefined && { progressNotSaved }),
      });
    }),
  );
  return outcomes;
}

/**
 * One recipient's entries, in batches one after the other (so its events leave in the batch's
 * order), each result recorded on its event. A topic found gone is gone for the rest too.
 */
async function publishToRecipient(sns: SNSClient, topicArn: string, entries: readonly RecipientEntry[], published: PublishedMessage[]): Promise<void> {
  let topicGone = false;
  for (const batch of batchesOf(entries)) {
    const recipientOf = ({ subscription }: RecipientEntry) => ({ configId: subscription.configId, topicArn });
    if (topicGone) {
      for (const entry of batch) entry.plan.gone.push(recipientOf(entry));
      continue;
    }
    try {
      const results = await publishBatch(sns, topicArn, batch);
      const sentAt = new Date().toISOString();
      batch.forEach((entry, index) => {
        const result = results[index]!;
        if ('messageId' in result) {
          entry.plan.delivered.push(entry.subscription.configId);
          published.push(publishedOf(entry, result.messageId, sentAt));
        } else entry.plan.failed.push({ ...recipientOf(entry), error: result.error });
      });
    } catch (error) {
      topicGone = isTopicGone(error);
      for (const entry of batch) {
        if (topicGone) entry.plan.gone.push(recipientOf(entry));
        else entry.plan.failed.push({ ...recipientOf(entry), error });
      }
    }
  }
}

/** The message log's entry of an entry SNS accepted. */
function publishedOf({ plan: { event }, subscription, input }: RecipientEntry, messageId: string, sentAt: string): PublishedMessage {
  return {
    portalId: event.portalId,
    configId: subscription.configId,
    messageId,
    eventId: event.eventId,
    event: event.kind,
    occurredAt: event.occurredAt,
    sentAt,
    body: input.Message,
  };
}
