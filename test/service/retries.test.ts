/**
 * A client whose answer was lost sends the request again. Rename, update, activate and delete
 * need no key for that: repeating them reaches the state one request reaches. The lost answer
 * is played both ways: the first request answered (and the client retries anyway), and the
 * first request applied with its write's answer lost on the way back (a 5xx).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import type { OperationId } from '../../shared/operations';
import { call, freshPortal, newSubscription, withoutRateLimit } from '../support/api';
import { inspectDb, portalTopicArns, subscriptionItems } from '../support/aws-state';
import { injectFault, lostAnswer } from '../support/faults';
import { TEST_ENV } from '../support/test-env';

let removeFault: (() => void) | undefined;
afterEach(() => {
  removeFault?.();
  removeFault = undefined;
});

async function createOne(portalId: string, overrides: Record<string, unknown> = {}) {
  const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription(overrides) });
  expect(answer.statusCode).toBe(200);
  return answer.body.record as { configId: string; topicArn: string };
}

async function counterOf(portalId: string) {
  const { Item } = await inspectDb.send(
    new GetCommand({ TableName: TEST_ENV.TABLE_NAME, Key: { portalId, sk: 'portal' }, ConsistentRead: true }),
  );
  return Item?.subscriptionCount ?? 0;
}

/** What the table and SNS hold for the portal. */
async function stateOf(portalId: string) {
  return {
    records: await subscriptionItems(portalId),
    topics: (await portalTopicArns(portalId)).sort(),
    counter: await counterOf(portalId),
  };
}

const changes: [string, OperationId, (configId: string) => Record<string, unknown>, Record<string, unknown>][] = [
  ['rename', 'renameSubscriptionRoute', (configId) => ({ config_id: configId, name: 'Renamed' }), { name: 'Renamed' }],
  [
    'update',
    'updateSubscriptionRoute',
    (configId) => ({ config_id: configId, events: ['workflow.job.create', 'antivirus.scan.failed'] }),
    { events: ['workflow.job.create', 'antivirus.scan.failed'] },
  ],
  ['activate (deactivating)', 'activateSubscriptionRoute', (configId) => ({ config_id: configId, status: 0 }), { status: 0 }],
];

describe.each(changes)('%s, repeated', (_name, operationId, bodyFor, expected) => {
  it('answers 200 again and leaves the state of one request', async () => {
    const portalId = freshPortal('retry');
    const { configId } = await createOne(portalId);

    const first = await call(operationId, { portalId, body: bodyFor(configId) });
    const afterOne = await stateOf(portalId);
    const second = await call(operationId, { portalId, body: bodyFor(configId) });

    expect(first.statusCode).toBe(200);
    // The same answer, but for the rate-limit headers: the repeat took its own token.
    expect(withoutRateLimit(second)).toEqual(withoutRateLimit(first));
    expect(Number(second.headers['ratelimit-remaining'])).toBeLessThanOrEqual(Number(first.headers['ratelimit-remaining']));
    expect(afterOne.records[0]).toMatchObject(expected);
    expect(await stateOf(portalId)).toEqual(afterOne);
  });

  it('after a first request applied whose answer was lost, the retry answers 200 with the same state', async () => {
    const portalId = freshPortal('retry');
    const { configId } = await createOne(portalId);
    const reference = freshPortal('retry-ref');
    const { configId: referenceId } = await createOne(reference);
    expect((await call(operationId, { portalId: reference, body: bodyFor(referenceId) })).statusCode).toBe(200);
    removeFault = injectFault(dynamoDbClient, /Update/, { afterApplying: true, failWith: lostAnswer });

    const lost = await call(operationId, { portalId, body: bodyFor(configId) });
    removeFault();
    const retry = await call(operationId, { portalId, body: bodyFor(configId) });

    expect(lost.statusCode).toBeGreaterThanOrEqual(500);
    expect(retry.statusCode).toBe(200);
    const [record] = (await stateOf(portalId)).records;
    const [referenceRecord] = (await stateOf(reference)).records;
    // What the request set, apart from what differs between any two subscriptions.
    const comparable = ({ portalId: _p, configId: _c, sk: _k, topicArn: _t, subscriptionArn: _s, createdAt: _a, subscriptionStateAt: _st, ...rest }: Record<string, unknown>) => rest;
    expect(record).toMatchObject(expected);
    expect(comparable(record!)).toEqual(comparable(referenceRecord!));
  });
});

describe('delete, repeated', () => {
  it('answers 400 SUBSCRIPTION_NOT_FOUND the second time; record and topic are gone, and counted once', async () => {
    const portalId = freshPortal('retry-delete');
    const kept = await createOne(portalId, { name: 'kept' });
    const { configId } = await createOne(portalId, { name: 'deleted' });

    const first = await call('deleteSubscriptionRoute', { portalId, configId });
    const second = await call('deleteSubscriptionRoute', { portalId, configId });

    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(400);
    expect(second.body).toEqual({
      success: false,
      code: 'SUBSCRIPTION_NOT_FOUND',
      message: `No subscription with config_id ${configId} exists for this portal.`,
    });
    expect(await stateOf(portalId)).toEqual({
      records: [expect.objectContaining({ configId: kept.configId })],
      topics: [kept.topicArn],
      counter: 1,
    });
  });

  it('a delete applied whose answer was lost is confirmed by a look-up; a retry finds nothing; the portal fills up to exactly its limit', async () => {
    const portalId = freshPortal('retry-delete');
    const ids: string[] = [];
    for (let i = 0; i < Number(TEST_ENV.MAX_SUBSCRIPTIONS_PER_PORTAL); i++) ids.push((await createOne(portalId, { name: `hook ${i}` })).configId);
    const configId = ids[4]!;
    removeFault = injectFault(dynamoDbClient, /TransactWrite/, { afterApplying: true, failWith: lostAnswer });

    const lost = await call('deleteSubscriptionRoute', { portalId, configId });
    removeFault();
    const retry = await call('deleteSubscriptionRoute', { portalId, configId });

    expect(lost.statusCode).toBe(200);
    expect(retry.statusCode).toBe(400);
    expect(retry.body.code).toBe('SUBSCRIPTION_NOT_FOUND');
    const state = await stateOf(portalId);
    expect(state.records.map((record) => record.configId)).not.toContain(configId);
    expect(state.records).toHaveLength(9);
    expect(state.topics).toEqual(state.records.map((record) => record.topicArn).sort());
    expect(state.counter).toBe(9);
    // Counted down once, not twice: one create fits, the next is over the limit.
    expect((await call('createSubscriptionRoute', { portalId, body: newSubscription() })).statusCode).toBe(200);
    const over = await call('createSubscriptionRoute', { portalId, body: newSubscription() });
    expect(over.statusCode).toBe(400);
    expect(over.body.code).toBe('SUBSCRIPTION_LIMIT_REACHED');
  });
});
