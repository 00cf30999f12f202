/**
 * Whether each endpoint confirmed, as list answers it, is read from the record where the record
 * knows it: a portal whose endpoints all confirmed costs its Query and no SNS call. SNS is asked
 * only for records not known to be confirmed (pending, or written before the state was stored),
 * and what it answers that spares later lists the question is written back, conditionally, so
 * that a record deleted meanwhile is never written again. Create and confirm store the state they
 * set. (That the reconciler stores what ListSubscriptions shows, and so a lapse shows within one
 * run, is in reconciliation.subscriptions.test.ts.)
 */
import { BatchWriteCommand, DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { UnsubscribeCommand } from '@aws-sdk/client-sns';
import { randomUUID } from 'node:crypto';
import { newConfigId } from '../../shared/subscriptions/config-id';
import { snsClient } from '../../shared/aws/sns';
import { call, freshPortal, newSubscription } from '../support/api';
import { awsCallsDuring } from '../support/aws-calls';
import { inspectDb, inspectSns, subscriptionItems } from '../support/aws-state';
import { confirmAsEndpointOwner } from '../support/sns-confirmation';
import { TEST_ENV } from '../support/test-env';

/** An e-mail subscription: pending until its owner follows the confirmation request. */
async function createEmail(portalId: string, address = `${randomUUID().slice(0, 8)}@example.com`) {
  const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol: 'email', endpoint: address }) });
  expect(answer.statusCode).toBe(200);
  return answer.body.record as { configId: string; subscriptionArn: string };
}

async function list(portalId: string) {
  let answer!: Awaited<ReturnType<typeof call>>;
  const calls = await awsCallsDuring(async () => {
    answer = await call('listSubscriptionsRoute', { portalId });
  });
  expect(answer.statusCode).toBe(200);
  const states = answer.body.configs.map((entry: { subscriptionState: string; confirmed: boolean }) => [entry.subscriptionState, entry.confirmed]);
  const names = calls.map((name) => name.replace(/Command$/, ''));
  // Every list first takes a token of the portal's rate limit (one UpdateItem, two once some of
  // its bucket is spent), before its Query: not state writes.
  const firstOwn = names.indexOf('Query');
  expect(names.slice(0, firstOwn).every((name) => name === 'UpdateItem') && firstOwn >= 1).toBe(true);
  return { states, calls: names.slice(firstOwn).sort() };
}

const storedStates = async (portalId: string) => (await subscriptionItems(portalId)).map((item) => item.subscriptionState);

describe('list of a portal whose endpoints all confirmed', () => {
  it('asks SNS once for each while the records say pending, stores what it answered, and afterwards makes its Query alone', async () => {
    const portalId = freshPortal();
    const created = [await createEmail(portalId), await createEmail(portalId), await createEmail(portalId)];
    for (const { subscriptionArn } of created) await confirmAsEndpointOwner(subscriptionArn);
    expect(await storedStates(portalId)).toEqual(['pending', 'pending', 'pending']);

    const first = await list(portalId);

    expect(first.states).toEqual([['confirmed', true], ['confirmed', true], ['confirmed', true]]);
    expect(first.calls).toEqual(['GetSubscriptionAttributes', 'GetSubscriptionAttributes', 'GetSubscriptionAttributes', 'Query', 'UpdateItem', 'UpdateItem', 'UpdateItem']);
    expect(await storedStates(portalId)).toEqual(['confirmed', 'confirmed', 'confirmed']);

    const second = await list(portalId);

    expect(second.states).toEqual(first.states);
    expect(second.calls).toEqual(['Query']);
  });
});

describe('list of a pending endpoint', () => {
  it('asks SNS at every list and writes nothing while it stays pending', async () => {
    const portalId = freshPortal();
    await createEmail(portalId);

    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await list(portalId)).toEqual({ states: [['pending', false]], calls: ['GetSubscriptionAttributes', 'Query'] });
    }
    expect(await storedStates(portalId)).toEqual(['pending']);
  });

  it('never writes back to a record deleted while SNS was asked', async () => {
    const portalId = freshPortal();
    const { configId, subscriptionArn } = await createEmail(portalId);
    await confirmAsEndpointOwner(subscriptionArn);
    // The record goes between list's Query and its write-back of what SNS answers.
    const name = `delete-record-${randomUUID()}`;
    (snsClient.middlewareStack.add as (...args: unknown[]) => void)(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
        if (context.commandName === 'GetSubscriptionAttributesCommand') {
          await inspectDb.send(new DeleteCommand({ TableName: TEST_ENV.TABLE_NAME, Key: { portalId, sk: `subscription#${configId}` } }));
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const { states, calls } = await list(portalId);
      expect(states).toEqual([['confirmed', true]]);
      expect(calls).toContain('UpdateItem');
    } finally {
      snsClient.middlewareStack.remove(name);
    }

    expect(await subscriptionItems(portalId)).toEqual([]);
  });
});

describe('a write-back racing the reconciler', () => {
  it('leaves a state stored after list asked SNS alone: it was observed later', async () => {
    const portalId = freshPortal();
    const { configId, subscriptionArn } = await createEmail(portalId);
    await confirmAsEndpointOwner(subscriptionArn);
    // While list asks SNS, a reconciler run stores what its (later) listing showed: the endpoint left.
    const name = `store-newer-${randomUUID()}`;
    (snsClient.middlewareStack.add as (...args: unknown[]) => void)(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
        const answer = await next(args);
        if (context.commandName === 'GetSubscriptionAttributesCommand') {
          await inspectDb.send(
            new UpdateCommand({
              TableName: TEST_ENV.TABLE_NAME,
              Key: { portalId, sk: `subscription#${configId}` },
              UpdateExpression: 'SET subscriptionState = :state, subscriptionStateAt = :at',
              ExpressionAttributeValues: { ':state': 'unsubscribed', ':at': new Date(Date.now() + 1_000).toISOString() },
            }),
          );
        }
        return answer;
      },
      { step: 'initialize', name },
    );
    try {
      expect((await list(portalId)).states).toEqual([['confirmed', true]]);
    } finally {
      snsClient.middlewareStack.remove(name);
    }

    expect(await storedStates(portalId)).toEqual(['unsubscribed']);
  });
});

describe('records written before the state was stored', () => {
  it('are asked of SNS; a pending answer is not stored, a confirmed one is', async () => {
    const portalId = freshPortal();
    const { subscriptionArn } = await createEmail(portalId);
    const [item] = await subscriptionItems(portalId);
    await inspectDb.send(
      new UpdateCommand({ TableName: TEST_ENV.TABLE_NAME, Key: { portalId, sk: item!.sk }, UpdateExpression: 'REMOVE subscriptionState, subscriptionStateAt' }),
    );

    expect(await list(portalId)).toEqual({ states: [['pending', false]], calls: ['GetSubscriptionAttributes', 'Query'] });
    expect(await storedStates(portalId)).toEqual([undefined]);

    await confirmAsEndpointOwner(subscriptionArn);
    expect((await list(portalId)).calls).toEqual(['GetSubscriptionAttributes', 'Query', 'UpdateItem']);
    expect(await list(portalId)).toEqual({ states: [['confirmed', true]], calls: ['Query'] });
  });

  it('are written back at most 100 per list, so one list of a large portal stays short; the next lists store the rest', async () => {
    const portalId = freshPortal('unstated');
    // Shaped as records were written before: no state, their SNS subscriptions long gone.
    const seeded = Array.from({ length: 150 }, (_, index) => {
      const configId = newConfigId();
      const topicArn = `arn:aws:sns:us-east-1:000000000000:${TEST_ENV.TOPIC_PREFIX}-${configId}`;
      return {
        portalId,
        sk: `subscription#${configId}`,
        configId,
        name: `old ${index}`,
        endpoint: 'https://127.0.0.1:9/hooks',
        protocol: 'https',
        events: ['workflow.job.create'],
        status: 1,
        topicArn,
        subscriptionArn: `${topicArn}:${randomUUID()}`,
        createdAt: new Date().toISOString(),
      };
    });
    for (let start = 0; start < seeded.length; start += 25) {
      const batch = seeded.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
      const result = await inspectDb.send(new BatchWriteCommand({ RequestItems: { [TEST_ENV.TABLE_NAME]: batch } }));
      expect(result.UnprocessedItems?.[TEST_ENV.TABLE_NAME] ?? []).toEqual([]);
    }
    const count = (calls: string[], action: string) => calls.filter((name) => name === action).length;

    const first = await list(portalId);
    const second = await list(portalId);
    const third = await list(portalId);

    for (const { states } of [first, second, third]) expect(new Set(states.map(JSON.stringify))).toEqual(new Set([JSON.stringify(['unsubscribed', false])]));
    expect([first, second, third].map(({ calls }) => [count(calls, 'GetSubscriptionAttributes'), count(calls, 'UpdateItem')])).toEqual([
      [150, 100],
      [50, 50],
      [0, 0],
    ]);
    expect(new Set(await storedStates(portalId))).toEqual(new Set(['unsubscribed']));
  });
});

describe('confirm stores the state it sets', () => {
  it('pending with the new ARN for an endpoint that unsubscribed; confirmed when SNS says it already is', async () => {
    const portalId = freshPortal();
    const { configId, subscriptionArn } = await createEmail(portalId);
    await inspectSns.send(new UnsubscribeCommand({ SubscriptionArn: subscriptionArn }));
    // The record said pending, so list asked SNS, and stored that the subscription is gone.
    expect((await list(portalId)).states).toEqual([['unsubscribed', false]]);
    expect(await storedStates(portalId)).toEqual(['unsubscribed']);

    const confirm = await call('confirmSubscriptionRoute', { portalId, body: { config_id: configId } });

    expect(confirm.statusCode).toBe(200);
    const [stored] = await subscriptionItems(portalId);
    expect(stored).toMatchObject({ subscriptionState: 'pending' });
    expect(stored!.subscriptionArn).not.toBe(subscriptionArn);

    await confirmAsEndpointOwner(stored!.subscriptionArn as string);
    const again = await call('confirmSubscriptionRoute', { portalId, body: { config_id: configId } });
    expect(again.statusCode).toBe(400);
    expect(again.body.code).toBe('ALREADY_CONFIRMED');
    expect(await storedStates(portalId)).toEqual(['confirmed']);
    expect((await list(portalId)).calls).toEqual(['Query']);
  });
});
