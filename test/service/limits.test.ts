/** The per-portal limit holds under concurrency, and frees up again on delete. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { call, freshPortal, newSubscription } from '../support/api';
import { inspectDb, portalTopicArns, subscriptionItems } from '../support/aws-state';
import { TEST_ENV } from '../support/test-env';

describe('the per-portal limit of 10', () => {
  it('lets exactly 10 of 25 concurrent creates through, with exactly 10 topics', async () => {
    const portalId = freshPortal('busy');

    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        call('createSubscriptionRoute', { portalId, body: newSubscription({ name: `hook ${i}` }) }),
      ),
    );

    const created = answers.filter((answer) => answer.statusCode === 200);
    const refused = answers.filter((answer) => answer.statusCode !== 200);
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(15);
    for (const answer of refused) {
      expect(answer.statusCode).toBe(400);
      expect(answer.body).toEqual({
        success: false,
        message: 'This portal already has the maximum of 10 subscriptions; delete one before creating another.',
        code: 'SUBSCRIPTION_LIMIT_REACHED',
      });
    }
    const records = await subscriptionItems(portalId);
    expect(records).toHaveLength(10);
    const topics = await portalTopicArns(portalId);
    expect(topics.sort()).toEqual(records.map((record) => record.topicArn).sort());
    const { Item: counter } = await inspectDb.send(
      new GetCommand({ TableName: TEST_ENV.TABLE_NAME, Key: { portalId, sk: 'portal' } }),
    );
    expect(counter?.subscriptionCount).toBe(10);
  });

  it('refuses the 11th create, and accepts one again after a delete', async () => {
    const portalId = freshPortal('full');
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ name: `hook ${i}` }) });
      expect(answer.statusCode).toBe(200);
      ids.push(answer.body.record.configId);
    }

    const eleventh = await call('createSubscriptionRoute', { portalId, body: newSubscription() });
    expect(eleventh.statusCode).toBe(400);
    expect(eleventh.body.code).toBe('SUBSCRIPTION_LIMIT_REACHED');
    expect(await portalTopicArns(portalId)).toHaveLength(10);

    expect((await call('deleteSubscriptionRoute', { portalId, configId: ids[3] })).statusCode).toBe(200);
    const again = await call('createSubscriptionRoute', { portalId, body: newSubscription({ name: 'replacement' }) });
    expect(again.statusCode).toBe(200);
    expect(await subscriptionItems(portalId)).toHaveLength(10);
  });

  it('counts per portal: another portal is not affected by a full one', async () => {
    const full = freshPortal('full');
    await Promise.all(
      Array.from({ length: 10 }, () => call('createSubscriptionRoute', { portalId: full, body: newSubscription() })),
    );
    const other = await call('createSubscriptionRoute', { portalId: freshPortal('other'), body: newSubscription() });
    expect(other.statusCode).toBe(200);
  });
});
