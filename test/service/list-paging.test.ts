/**
 * List returns every record of the portal even when DynamoDB answers the Query in several
 * pages (1 MB each). The limit is raised for this suite so that one portal can hold that many.
 */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { newConfigId } from '../../shared/subscriptions/config-id';
import { inspectDb } from '../support/aws-state';
import { TEST_ENV } from '../support/test-env';

process.env.MAX_SUBSCRIPTIONS_PER_PORTAL = '2000';
const { call, freshPortal, newSubscription } = await import('../support/api');

const SEEDED = 1_000;
// Long endpoints make items of about 2 KB, so the portal spans several 1 MB pages.
const LONG_ENDPOINT = `https://127.0.0.1:9/${'p'.repeat(1_900)}`;

describe('list over many DynamoDB pages', () => {
  it('answers all records, oldest first', async () => {
    const portalId = freshPortal('large');
    const first = await call('createSubscriptionRoute', { portalId, body: newSubscription({ name: 'created first' }) });
    expect(first.statusCode).toBe(200);

    // Seeding straight into the table is much faster than 1,000 creates; these records are
    // shaped as the service writes them (the topic ARNs are placeholders: their endpoints are
    // stored as confirmed, which list trusts without asking SNS).
    const seeded = Array.from({ length: SEEDED }, (_, i) => {
      const configId = newConfigId();
      return {
        portalId,
        sk: `subscription#${configId}`,
        configId,
        name: `seeded ${i}`,
        endpoint: LONG_ENDPOINT,
        protocol: 'https',
        events: ['workflow.job.create'],
        status: i % 2,
        topicArn: `arn:aws:sns:us-east-1:000000000000:${TEST_ENV.TOPIC_PREFIX}-${configId}`,
        subscriptionArn: `arn:aws:sns:us-east-1:000000000000:${TEST_ENV.TOPIC_PREFIX}-${configId}:${randomUUID()}`,
        createdAt: new Date().toISOString(),
        subscriptionState: 'confirmed',
        subscriptionStateAt: new Date().toISOString(),
      };
    });
    for (let i = 0; i < seeded.length; i += 25) {
      const batch = seeded.slice(i, i + 25).map((item) => ({ PutRequest: { Item: item } }));
      const result = await inspectDb.send(new BatchWriteCommand({ RequestItems: { [TEST_ENV.TABLE_NAME]: batch } }));
      expect(result.UnprocessedItems?.[TEST_ENV.TABLE_NAME] ?? []).toEqual([]);
    }
    const last = await call('createSubscriptionRoute', { portalId, body: newSubscription({ name: 'created last' }) });
    expect(last.statusCode).toBe(200);

    // The premise: one Query page does not hold the portal.
    const firstPage = await inspectDb.send(
      new QueryCommand({
        TableName: TEST_ENV.TABLE_NAME,
        KeyConditionExpression: 'portalId = :p',
        ExpressionAttributeValues: { ':p': portalId },
      }),
    );
    expect(firstPage.LastEvaluatedKey).toBeDefined();
    expect(firstPage.Items!.length).toBeLessThan(SEEDED / 2);

    // Paging is the subject here, not speed: a busy machine gets a minute.
    const answer = await call('listSubscriptionsRoute', { portalId, timeoutMs: 60_000 });

    expect(answer.statusCode).toBe(200);
    expect(answer.body.message).toBe(`${SEEDED + 2} subscriptions found.`);
    const ids = answer.body.configs.map((config: { configId: string }) => config.configId);
    expect(ids).toEqual([first.body.record.configId, ...seeded.map((item) => item.configId), last.body.record.configId]);
    expect(answer.body.configs[1]).toEqual({
      configId: seeded[0]!.configId,
      name: 'seeded 0',
      endpoint: LONG_ENDPOINT,
      protocol: 'https',
      events: ['workflow.job.create'],
      status: 0,
      confirmed: true,
      subscriptionState: 'confirmed',
      deadLetters: 0,
      deadLettersRetrying: 0,
      lastDeadLetterAt: null,
      deadLettersDropped: 0,
      lastDeliveredAt: null,
      lastFailedAt: null,
      deliveredLast24h: 0,
      failedLast24h: 0,
      disabledReason: null,
      disabledAt: null,
    });
  });
});
