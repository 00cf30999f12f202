/**
 * A dead letter whose scheduled retry is out, against DynamoDB Local with the recorder handler as
 * Lambda's SQS event source calls it: it stays listed (`state` retrying, `retriedAt`) and counted
 * (`deadLetters`, and `deadLettersRetrying` beside it); the retry's own dead letter takes its place,
 * once however often SQS hands it out; a retry delivered, or one whose verdict never came, makes it
 * leave; each event is counted once throughout, also when the retry's dead letter comes before the
 * sweep has named the retry (an endpoint's 4xx, which SNS does not retry).
 */
import { randomUUID } from 'node:crypto';
import { documentClient } from '../../shared/aws/dynamodb';
import { markRetrying, removeRetrying, select } from '../../shared/data/dead-letters';
import { markRetrySending } from '../../shared/data/retry-ledgers';
import { retryKeyOf } from '../../shared/data/due-work';
import { config } from '../../shared/environment';
import { settleRetry } from '../../shared/dead-letters/retries';
import type { SweepDeps } from '../../shared/dead-letters/sweep';
import { call, freshPortal, newSubscription } from '../support/api';
import { deadLetterRecord, publishedBody, recordBatch } from '../support/dead-letters';

const table = { db: documentClient, tableName: config.tableName };

async function subscribe() {
  const portalId = freshPortal();
  const created = await call('createSubscriptionRoute', { portalId, body: newSubscription() });
  expect(created.statusCode).toBe(200);
  const { configId, topicArn } = created.body.record;
  return { portalId, configId, topicArn };
}
type Subscribed = Awaited<ReturnType<typeof subscribe>>;

async function counts(to: Subscribed) {
  const listed = await call('listSubscriptionsRoute', { portalId: to.portalId });
  const entry = listed.body.configs.find((one: { configId: string }) => one.configId === to.configId);
  return { deadLetters: entry.deadLetters, deadLettersRetrying: entry.deadLettersRetrying };
}

async function listed(to: Subscribed) {
  const answer = await call('listDeadLettersRoute', { portalId: to.portalId, query: { config_id: to.configId } });
  expect(answer.statusCode).toBe(200);
  return answer.body.deadLetters as { eventId: string; messageId: string; state: string; retriedAt: string | null; retries: number; nextRetryAt: string | null }[];
}

/** The three dead letters of three events, each with its scheduled retry sent as the sweep sends it: SNS's ids of the retries. */
async function threeBeingRetried(to: Subscribed) {
  const bodies = [1, 2, 3].map(() => publishedBody(to));
  expect(await recordBatch(bodies.map((message, index) => deadLetterRecord(to, { message, sentAt: Date.now() - 10_000 + index })))).toEqual({ batchItemFailures: [] });
  const letters = await select(table, to.portalId, to.configId, 10, () => true);
  expect(letters).toHaveLength(3);
  const retries = [];
  for (const letter of letters) {
    const retry = { messageId: randomUUID(), sentAt: new Date().toISOString() };
    const settle = { kind: 'settle' as const, dueAt: retry.sentAt, subscriptionPortalId: to.portalId, configId: to.configId, letterSk: letter.sk };
    expect(await markRetrying(table, letter, retryKeyOf(letter)!, retry, settle)).toBe(true);
    retries.push({ letter, retry, settle });
  }
  return retries;
}

describe('a dead letter being retried', () => {
  it('stays listed as retrying and counted once, in the list and GET /dead-letters', async () => {
    const subscription = await subscribe();
    const retries = await threeBeingRetried(subscription);

    expect(await counts(subscription)).toEqual({ deadLetters: 3, deadLettersRetrying: 3 });
    const entries = await listed(subscription);
    expect(entries).toHaveLength(3);
    for (const { letter, retry } of retries) {
      expect(entries).toContainEqual(expect.objectContaining({ eventId: letter.eventId, messageId: letter.messageId, state: 'retrying', retriedAt: retry.sentAt, retries: 1, nextRetryAt: null }));
    }
  });

  it("is replaced by its retry's dead letter when the retry fails too, once however often SQS hands that out", async () => {
    const subscription = await subscribe();
    const [first] = await threeBeingRetried(subscription);
    const again = deadLetterRecord(subscription, { message: first!.letter.message, snsMessageId: first!.retry.messageId });

    expect(await recordBatch([again])).toEqual({ batchItemFailures: [] });
    expect(await recordBatch([{ ...again, receiptHandle: randomUUID() }])).toEqual({ batchItemFailures: [] });

    // Still three dead letters: the first event's is its retry's now, waiting for the next retry.
    expect(await counts(subscription)).toEqual({ deadLetters: 3, deadLettersRetrying: 2 });
    const ofFirst = (await listed(subscription)).filter((entry) => entry.eventId === first!.letter.eventId);
    expect(ofFirst).toEqual([expect.objectContaining({ messageId: first!.retry.messageId, state: 'dead-lettered', retriedAt: null, retries: 1, nextRetryAt: expect.any(String) })]);
  });

  it("holds back a retry's dead letter that comes before the sweep named the retry, and replaces the retried one once it is named", async () => {
    const subscription = await subscribe();
    const bodies = [publishedBody(subscription)];
    expect(await recordBatch(bodies.map((message) => deadLetterRecord(subscription, { message, sentAt: Date.now() - 10_000 })))).toEqual({ batchItemFailures: [] });
    const [letter] = await select(table, subscription.portalId, subscription.configId, 10, () => true);
    const retry = { messageId: randomUUID(), sentAt: new Date().toISOString() };

    // The sweep: the retry being sent (before its publish); SNS gives up on it at once and its dead
    // letter reaches the recorder before the sweep's mark.
    await markRetrySending(table, letter!, Date.now() + 60_000);
    const early = deadLetterRecord(subscription, { message: letter!.message, snsMessageId: retry.messageId });
    expect(await recordBatch([early])).toEqual({ batchItemFailures: [{ itemIdentifier: early.messageId }] });
    expect(await counts(subscription)).toEqual({ deadLetters: 1, deadLettersRetrying: 0 });

    // The sweep's mark names the retry; SQS hands the held-back record again: it takes the place of the one retried.
    const settle = { kind: 'settle' as const, dueAt: retry.sentAt, subscriptionPortalId: subscription.portalId, configId: subscription.configId, letterSk: letter!.sk };
    expect(await markRetrying(table, letter!, retryKeyOf(letter!)!, retry, settle)).toBe(true);
    expect(await recordBatch([{ ...early, receiptHandle: randomUUID() }])).toEqual({ batchItemFailures: [] });
    expect(await counts(subscription)).toEqual({ deadLetters: 1, deadLettersRetrying: 0 });
    expect(await listed(subscription)).toEqual([expect.objectContaining({ eventId: letter!.eventId, messageId: retry.messageId, state: 'dead-lettered', retries: 1 })]);
  });

  it('leaves once its retry was delivered, or once no verdict came in time, and is counted out once', async () => {
    const subscription = await subscribe();
    const [delivered, settled, replaced] = await threeBeingRetried(subscription);

    // The attempts consumer's removal when the retry's delivery is logged; a second one finds it gone.
    expect(await removeRetrying(table, { portalId: subscription.portalId, configId: subscription.configId, sk: delivered!.letter.sk })).toBe(true);
    expect(await removeRetrying(table, { portalId: subscription.portalId, configId: subscription.configId, sk: delivered!.letter.sk })).toBe(false);
    expect(await counts(subscription)).toEqual({ deadLetters: 2, deadLettersRetrying: 2 });

    // The sweep's `settle` when no verdict came.
    const deps = { table } as unknown as SweepDeps;
    const work = { ...settled!.settle, portalId: 'retry-due#0', sk: randomUUID() };
    expect(await settleRetry(deps, { work, claimant: randomUUID(), record: undefined, now: Date.now() })).toBe('settled');
    expect(await counts(subscription)).toEqual({ deadLetters: 1, deadLettersRetrying: 1 });

    // One replaced by its retry's dead letter is not settled: it is a dead letter again, waiting for the next retry.
    await recordBatch([deadLetterRecord(subscription, { message: replaced!.letter.message, snsMessageId: replaced!.retry.messageId })]);
    const late = { ...replaced!.settle, portalId: 'retry-due#0', sk: randomUUID() };
    expect(await settleRetry(deps, { work: late, claimant: randomUUID(), record: undefined, now: Date.now() })).toBe('dropped');
    expect(await counts(subscription)).toEqual({ deadLetters: 1, deadLettersRetrying: 0 });
    expect(await listed(subscription)).toEqual([expect.objectContaining({ eventId: replaced!.letter.eventId, messageId: replaced!.retry.messageId, state: 'dead-lettered' })]);
  });
});
