/**
 * The retry sweep: finds the work that is due (due-work.ts), one Query per shard, and does each
 * piece once however many sweeps run: a piece is claimed first (a conditional write, for
 * CLAIM_LEASE_MS), and deleted only once done, so a sweep that fails or crashes half-way leaves it
 * to the next sweep after the claim lapsed (nothing lost; at least once, as every delivery).
 * - `retry`: while the subscription is activated, the dead letter is claimed as a replay claims it
 *   (so a replay and a retry never both send it), published again to the subscription's own topic
 *   with its original body and `event` attribute, then removed in one transaction with its due
 *   work, its count, and its ledger's new retry count. Should it fail again, SNS dead-letters it
 *   anew and the recorder gives it the next wait of the schedule (recorder.ts). A subscription
 *   deleted or deactivated meanwhile stops the schedule: the dead letter stays, with no next retry.
 * - `failing`: the notice of a new streak, unless a success or an activation ended the streak.
 * - `disable`: a subscription still failing DISABLE_FAILING_AFTER after its streak began (no
 *   success since) is deactivated with disabledReason `failing` and disabledAt, then the notice.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { SNSClient } from '@aws-sdk/client-sns';
import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { mapWithConcurrency } from '../aws/bounded-concurrency';
import type { DispatchDeps } from '../delivery/dispatch';
import { isTopicGone, publishBody } from '../delivery/publish';
import type { RecordTable } from '../subscriptions/repository';
import { EXPIRY_ATTRIBUTE, retryDuePartitionOf, subscriptionKeyOf } from '../subscriptions/table';
import {
  DISABLED_AT_ATTRIBUTE,
  DISABLED_FOR_FAILING,
  DISABLED_REASON_ATTRIBUTE,
  DUE_SHARDS,
  type DueWork,
  FAILING_SINCE_ATTRIBUTE,
  NEVER_DISABLED_PROTOCOLS,
  NEXT_RETRY_ATTRIBUTE,
} from './due-work';
import { DISABLED_EVENT_KIND, FAILING_EVENT_KIND, sendNotice, type SubscriptionNotice } from './notices';
import { CLAIM_LEASE_MS } from './replay';
import { claim, ledgerItemOf, removalOf, toKept, unclaim } from './store';

export interface SweepDeps {
  table: RecordTable;
  sns: SNSClient;
  repository: DispatchDeps['repository'];
  settings: { readonly disableFailingAfterMs: number };
}

export type WorkOutcome = 'retried' | 'notified' | 'disabled' | 'dropped' | 'stopped' | 'busy' | 'failed';

export interface SweepOutcome {
  /** How many pieces ended each way. */
  counts: Partial<Record<WorkOutcome, number>>;
  /** Pieces that failed, to be tried again by a later sweep: what and why. */
  failures: { work: DueWork; error: unknown }[];
  /** Whether the time ran out before every due piece was looked at. */
  unfinished: boolean;
}

/** Pieces read per Query page, and in progress at a time. */
const PAGE_SIZE = 100;
const IN_FLIGHT = 10;

/** Does the work due by `now`, until `deadline` (epoch ms); the rest is the next sweep's. */
export async function sweepDueWork(deps: SweepDeps, now = Date.now(), deadline = now + 45_000): Promise<SweepOutcome> {
  const outcome: SweepOutcome = { counts: {}, failures: [], unfinished: false };
  const claimant = randomUUID();
  const dueBefore = `${new Date(now).toISOString()}~`;
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
    let startKey: Record<string, unknown> | undefined;
    do {
      if (Date.now() >= deadline) {
        outcome.unfinished = true;
        return outcome;
      }
      const page = await deps.table.db.send(
        new QueryCommand({
          TableName: deps.table.tableName,
          KeyConditionExpression: 'portalId = :shard AND sk < :dueBefore',
          ExpressionAttributeValues: { ':shard': retryDuePartitionOf(shard), ':dueBefore': dueBefore },
          ConsistentRead: true,
          Limit: PAGE_SIZE,
          ExclusiveStartKey: startKey,
        }),
      );
      startKey = page.LastEvaluatedKey;
      const works = (page.Items ?? []) as DueWork[];
      const results = await mapWithConcurrency(works, IN_FLIGHT, async (work): Promise<WorkOutcome> => {
        try {
          if (!(await claimWork(deps.table, work, claimant, now))) return 'busy';
          return await doWork(deps, work, claimant, now);
        } catch (error) {
          outcome.failures.push({ work, error });
          return 'failed';
        }
      });
      for (const result of results) outcome.counts[result] = (outcome.counts[result] ?? 0) + 1;
    } while (startKey);
  }
  return outcome;
}

const WORK_CLAIM = { '#until': 'claimedUntil', '#by': 'claimedBy' };

/** Claims a piece of work for this sweep until the lease ends; false when another sweep holds it, or it is done. */
async function claimWork(table: RecordTable, work: DueWork, claimant: string, now: number): Promise<boolean> {
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { portalId: work.portalId, sk: work.sk },
        UpdateExpression: 'SET #until = :until, #by = :by',
        ConditionExpression: 'attribute_exists(sk) AND (attribute_not_exists(#until) OR #until <= :now OR #by = :by)',
        ExpressionAttributeNames: WORK_CLAIM,
        ExpressionAttributeValues: { ':until': now + CLAIM_LEASE_MS, ':by': claimant, ':now': now },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Deletes a piece of work once done, if this sweep still holds it. */
async function finish(table: RecordTable, work: DueWork, claimant: string): Promise<void> {
  try {
    await table.db.send(
      new DeleteCommand({
        TableName: table.tableName,
        Key: { portalId: work.portalId, sk: work.sk },
        ConditionExpression: '#by = :by',
        ExpressionAttributeNames: { '#by': WORK_CLAIM['#by'] },
        ExpressionAttributeValues: { ':by': claimant },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

async function read(table: RecordTable, portalId: string, sk: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: { portalId, sk }, ConsistentRead: true }));
  if (Item && typeof Item[EXPIRY_ATTRIBUTE] === 'number' && Item[EXPIRY_ATTRIBUTE] * 1000 <= Date.now()) return undefined;
  return Item;
}

async function doWork(deps: SweepDeps, work: DueWork, claimant: string, now: number): Promise<WorkOutcome> {
  const record = await read(deps.table, work.subscriptionPortalId, subscriptionKeyOf(work.configId));
  if (work.kind === 'retry') return retry(deps, work, claimant, record);
  if (!record || record[FAILING_SINCE_ATTRIBUTE] !== work.failingSince) {
    // Deleted, or its streak ended (a success, an activation) and maybe another began: not this one's work.
    await finish(deps.table, work, claimant);
    return 'dropped';
  }
  if (work.kind === 'failing') {
    await sendNotice(deps, noticeOf(FAILING_EVENT_KIND, work, record, { reason: 'dead-letter', occurredAt: work.failingSince! }));
    await finish(deps.table, work, claimant);
    return 'notified';
  }
  return disable(deps, work, claimant, record, now);
}

function noticeOf(kind: SubscriptionNotice['kind'], work: DueWork, record: Record<string, unknown>, extra: Pick<SubscriptionNotice, 'reason' | 'occurredAt' | 'disabledAt'>): SubscriptionNotice {
  return {
    kind,
    portalId: work.subscriptionPortalId,
    configId: work.configId,
    name: String(record.name ?? ''),
    lastDeliveredAt: typeof record.lastDeliveredAt === 'string' ? record.lastDeliveredAt : null,
    failingSince: work.failingSince!,
    ...extra,
  };
}

async function retry(deps: SweepDeps, work: DueWork, claimant: string, record: Record<string, unknown> | undefined): Promise<WorkOutcome> {
  const { table } = deps;
  const item = await read(table, work.subscriptionPortalId, work.letterSk!);
  if (!item) {
    // Replayed, expired or pushed out by the cap meanwhile: nothing left to send.
    await finish(table, work, claimant);
    return 'dropped';
  }
  const letter = toKept(item, work.subscriptionPortalId);
  if (!record || record.status !== 1 || typeof record.topicArn !== 'string') return stop(deps, work, claimant, letter);
  if (!(await claim(table, letter, claimant, Date.now() + CLAIM_LEASE_MS))) return 'busy';
  try {
    await publishBody(deps.sns, record.topicArn, letter.message, letter.event);
  } catch (error) {
    await unclaim(table, letter, claimant).catch(() => undefined);
    if (isTopicGone(error)) return stop(deps, work, claimant, letter);
    throw error;
  }
  try {
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          ...removalOf(table, letter),
          { Put: { TableName: table.tableName, Item: ledgerItemOf(letter, { retries: letter.retries + 1, cancelled: false }) } },
          { Delete: { TableName: table.tableName, Key: { portalId: work.portalId, sk: work.sk } } },
        ],
      }),
    );
  } catch (error) {
    // Removed meanwhile (a replay that took it after this claim lapsed, the subscription deleted): its work is over.
    if (!(error instanceof TransactionCanceledException && error.CancellationReasons?.some((reason) => reason.Code === 'ConditionalCheckFailed'))) throw error;
    await finish(table, work, claimant);
  }
  return 'retried';
}

/** The subscription was deleted or deactivated: the dead letter stays, for a replay, with no next retry. */
async function stop(deps: SweepDeps, work: DueWork, claimant: string, letter: { portalId: string; sk: string }): Promise<WorkOutcome> {
  try {
    await deps.table.db.send(
      new UpdateCommand({
        TableName: deps.table.tableName,
        Key: { portalId: letter.portalId, sk: letter.sk },
        UpdateExpression: 'REMOVE #next',
        ConditionExpression: 'attribute_exists(sk)',
        ExpressionAttributeNames: { '#next': NEXT_RETRY_ATTRIBUTE },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  await finish(deps.table, work, claimant);
  return 'stopped';
}

async function disable(deps: SweepDeps, work: DueWork, claimant: string, record: Record<string, unknown>, now: number): Promise<WorkOutcome> {
  const failingSince = work.failingSince!;
  const succeededSince = typeof record.lastDeliveredAt === 'string' && record.lastDeliveredAt > failingSince;
  const alreadyDisabled = record.status === 0 && record[DISABLED_REASON_ATTRIBUTE] === DISABLED_FOR_FAILING && typeof record[DISABLED_AT_ATTRIBUTE] === 'string';
  if (succeededSince || NEVER_DISABLED_PROTOCOLS.includes(String(record.protocol)) || (record.status !== 1 && !alreadyDisabled)) {
    await finish(deps.table, work, claimant);
    return 'dropped';
  }
  if (now < Date.parse(failingSince) + deps.settings.disableFailingAfterMs) return 'busy';
  const disabledAt = alreadyDisabled ? String(record[DISABLED_AT_ATTRIBUTE]) : new Date(now).toISOString();
  if (!alreadyDisabled) {
    try {
      await deps.table.db.send(
        new UpdateCommand({
          TableName: deps.table.tableName,
          Key: { portalId: work.subscriptionPortalId, sk: subscriptionKeyOf(work.configId) },
          UpdateExpression: 'SET #status = :deactivated, #reason = :reason, #at = :at',
          // Still activated, still this streak, and no success logged since it began.
          ConditionExpression: '#status = :activated AND #since = :since AND (attribute_not_exists(#delivered) OR #delivered <= :since)',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#reason': DISABLED_REASON_ATTRIBUTE,
            '#at': DISABLED_AT_ATTRIBUTE,
            '#since': FAILING_SINCE_ATTRIBUTE,
            '#delivered': 'lastDeliveredAt',
          },
          ExpressionAttributeValues: { ':deactivated': 0, ':activated': 1, ':reason': DISABLED_FOR_FAILING, ':at': disabledAt, ':since': failingSince },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      await finish(deps.table, work, claimant);
      return 'dropped';
    }
  }
  // Once disabled, a notice that failed is sent again by the next sweep (alreadyDisabled).
  await sendNotice(deps, noticeOf(DISABLED_EVENT_KIND, work, record, { reason: DISABLED_FOR_FAILING, occurredAt: disabledAt, disabledAt }));
  await finish(deps.table, work, claimant);
  return 'disabled';
}
