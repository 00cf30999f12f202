/**
 * Creates with an Idempotency-Key that do not succeed: nothing is remembered for the key, so a
 * retry with it creates the subscription; and when the idempotency store fails, the create
 * answers 503 without creating, or answers its record and leaves the key leased. What a key
 * remembers of a success: idempotency.test.ts.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { TABLE_KEYS } from '../../shared/data/table';
import { call, freshPortal, newSubscription } from '../support/api';
import { inspectDb, portalTopicArns, subscriptionItems } from '../support/aws-state';
import { injectFault } from '../support/faults';
import { create, expectOneSubscription, freshKey, idempotencyRecordOf, PARTITION } from '../support/idempotency';
import { TEST_ENV } from '../support/test-env';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

describe('a create with an Idempotency-Key', () => {
  describe('does not remember what did not succeed', () => {
    it('a create that failed on SNS: the retry with the same key creates it', async () => {
      const portalId = freshPortal('idem');
      const key = freshKey();
      const removeFault = injectFault(snsClient, /^CreateTopic/);
      cleanups.push(removeFault);

      const failed = await create(portalId, key);
      removeFault();
      const retry = await create(portalId, key);

      expect(failed.statusCode).toBe(503);
      expect(failed.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(retry.statusCode).toBe(200);
      await expectOneSubscription(portalId, retry);
      expect(await create(portalId, key)).toEqual(retry);
    });

    it('a create refused because the portal was full: the retry after a delete creates it', async () => {
      const portalId = freshPortal('idem-full');
      const ids: string[] = [];
      for (let i = 0; i < Number(TEST_ENV.MAX_SUBSCRIPTIONS_PER_PORTAL); i++) {
        const answer = await create(portalId, undefined, newSubscription({ name: `hook ${i}` }));
        expect(answer.statusCode).toBe(200);
        ids.push(answer.body.record.configId);
      }
      const key = freshKey();

      const refused = await create(portalId, key);
      expect(refused.statusCode).toBe(400);
      expect(refused.body.code).toBe('SUBSCRIPTION_LIMIT_REACHED');
      expect(await idempotencyRecordOf(portalId, key)).toBeUndefined();

      expect((await call('deleteSubscriptionRoute', { portalId, configId: ids[0] })).statusCode).toBe(200);
      const retry = await create(portalId, key);
      expect(retry.statusCode).toBe(200);
      expect(await subscriptionItems(portalId)).toHaveLength(10);
      expect(await create(portalId, key)).toEqual(retry);
    });

    it('a request refused by validation never touches the key', async () => {
      const portalId = freshPortal('idem');
      const key = freshKey();

      const invalid = await create(portalId, key, newSubscription({ events: [] }));

      expect(invalid.statusCode).toBe(400);
      expect(invalid.body.code).toBe('INVALID_REQUEST');
      expect(await idempotencyRecordOf(portalId, key)).toBeUndefined();
      expect((await create(portalId, key)).statusCode).toBe(200);
    });
  });

  describe('when the idempotency store fails', () => {
    it('answers 503 and creates nothing when the key cannot be taken', async () => {
      const portalId = freshPortal('idem');
      const key = freshKey();
      // The first UpdateItem is the portal's rate limit; the second takes the key.
      cleanups.push(injectFault(dynamoDbClient, /^UpdateItem/, { skip: 1 }));

      const answer = await create(portalId, key);

      expect(answer.statusCode).toBe(503);
      expect(answer.body).toEqual({ success: false, code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
      expect(await subscriptionItems(portalId)).toEqual([]);
      expect(await portalTopicArns(portalId)).toEqual([]);
    });

    it('still answers the created record when only storing it for the key failed', async () => {
      const portalId = freshPortal('idem');
      const key = freshKey();
      // The first UpdateItem is the portal's rate limit, the second takes the key; the third stores the answer for it.
      cleanups.push(injectFault(dynamoDbClient, /^UpdateItem/, { skip: 2 }));

      const answer = await create(portalId, key);

      expect(answer.statusCode).toBe(200);
      await expectOneSubscription(portalId, answer);
      // The key stays taken (in progress) until its lease, the function's timeout, runs out.
      expect((await create(portalId, key)).statusCode).toBe(409);
    });

    it('a failed create whose key could not be freed holds it only until its lease ends, then the retry creates it', async () => {
      const portalId = freshPortal('idem');
      const key = freshKey();
      const removeSnsFault = injectFault(snsClient, /^CreateTopic/);
      const removeDeleteFault = injectFault(dynamoDbClient, /^DeleteItem/);
      cleanups.push(removeSnsFault, removeDeleteFault);

      const failed = await create(portalId, key);
      removeSnsFault();
      removeDeleteFault();
      const whileLeased = await create(portalId, key);
      // The lease is the function's remaining time (seconds); let it run out rather than wait.
      const record = await idempotencyRecordOf(portalId, key);
      expect(record).toMatchObject({ status: 'INPROGRESS', in_progress_expiration: expect.any(Number) });
      await inspectDb.send(
        new UpdateCommand({
          TableName: TEST_ENV.TABLE_NAME,
          Key: { [TABLE_KEYS.partitionKey]: PARTITION, [TABLE_KEYS.sortKey]: record![TABLE_KEYS.sortKey] },
          UpdateExpression: 'SET in_progress_expiration = :past',
          ExpressionAttributeValues: { ':past': Date.now() - 1 },
        }),
      );
      const retry = await create(portalId, key);

      expect([failed.statusCode, whileLeased.statusCode, retry.statusCode]).toEqual([503, 409, 200]);
      await expectOneSubscription(portalId, retry);
      expect(await create(portalId, key)).toEqual(retry);
    });
  });
});
