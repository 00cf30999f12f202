/**
 * Every route is limited per portal, not only those that make SNS send: update, activate, rename
 * and delete (a DynamoDB write and SNS calls each) and the reading routes (list, dead letters,
 * attempts: a Query, and for list a GetSubscriptionAttributes per pending subscription), each by
 * its settings' defaults (PORTAL_CHANGE_* and PORTAL_READ_*). A portal looping on one meets 429 with Retry-After,
 * before the operation runs (no SNS call for it), while another portal's call succeeds.
 */
import { GetSubscriptionAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { type OperationId } from '../../shared/operations';
import { config } from '../../shared/environment';
import { call, freshPortal, newSubscription } from '../support/api';
import type { HttpEventOptions } from '../support/http-events';

const sns = new SNSClient({});
afterAll(() => sns.destroy());

async function created(portalId: string) {
  const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol: 'https', endpoint: 'https://hooks.example.com/rate' }) });
  expect(answer.statusCode).toBe(200);
  return answer.body.record as { configId: string; subscriptionArn: string };
}

async function throttleInSns(subscriptionArn: string): Promise<number | undefined> {
  const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
  return (JSON.parse(Attributes!.DeliveryPolicy!) as { throttlePolicy?: { maxReceivesPerSecond?: number } | null }).throttlePolicy?.maxReceivesPerSecond;
}

describe('a portal looping on PUT (update)', () => {
  it('gets 429 with Retry-After past its budget, no SNS call for a refused update, while another portal\'s update succeeds', async () => {
    const looping = freshPortal('update-loop');
    const bystander = freshPortal('update-bystander');
    const mine = await created(looping);
    const theirs = await created(bystander);
    const budget = config.portalChangeLimit;

    const answers = [];
    for (let rate = 1; rate <= 40; rate++) {
      answers.push(await call('updateSubscriptionRoute', { portalId: looping, body: { config_id: mine.configId, maxReceivesPerSecond: rate } }));
    }
    const other = await call('updateSubscriptionRoute', { portalId: bystander, body: { config_id: theirs.configId, maxReceivesPerSecond: 7 } });

    const accepted = answers.filter(({ statusCode }) => statusCode === 200);
    const refused = answers.filter(({ statusCode }) => statusCode === 429);
    expect(accepted.length + refused.length).toBe(40);
    expect(accepted.length).toBeGreaterThanOrEqual(budget.burst);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.body).toEqual({ success: false, message: expect.stringContaining(`(${budget.burst} at once, then ${budget.ratePerMinute} a minute)`), code: 'RATE_LIMITED' });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // SNS holds the throttle of the last accepted update: the refused ones never reached it.
    const lastAccepted = answers.map(({ statusCode }, index) => (statusCode === 200 ? index + 1 : 0)).reduce((a, b) => Math.max(a, b));
    expect(await throttleInSns(mine.subscriptionArn)).toBe(lastAccepted);
    expect(other.statusCode).toBe(200);
    expect(await throttleInSns(theirs.subscriptionArn)).toBe(7);
  }, 60_000);
});

describe('every other route that is not a send', () => {
  const routes: [OperationId, (configId: string) => HttpEventOptions][] = [
    ['activateSubscriptionRoute', (configId) => ({ body: { config_id: configId, status: 1 } })],
    ['renameSubscriptionRoute', (configId) => ({ body: { config_id: configId, name: 'Renamed' } })],
    // An unknown id: 400 while tokens last, and each spends one (its request was well-formed).
    ['deleteSubscriptionRoute', () => ({ configId: '0190a5b2-6c3d-7e4f-8a9b-0c1d2e3f4a5b' })],
    ['listSubscriptionsRoute', () => ({})],
    ['listDeadLettersRoute', (configId) => ({ query: { config_id: configId } })],
    ['listAttemptsRoute', (configId) => ({ query: { config_id: configId } })],
  ];

  it.each(routes)('%s meets its budget with 429 and Retry-After; another portal is served meanwhile', async (id, request) => {
    const looping = freshPortal(`loop-${id}`);
    const bystander = freshPortal(`bystander-${id}`);
    const mine = await created(looping);
    const theirs = await created(bystander);
    const { burst } = id.startsWith('list') ? config.portalReadLimit : config.portalChangeLimit;
    // Past the burst, all at once: some are refused whatever the refill, the others pass (the bystander's too).

    // All at once, so no token comes back meanwhile however slow the machine.
    const answers = await Promise.all(Array.from({ length: burst + 20 }, () => call(id, { portalId: looping, ...request(mine.configId) })));
    const refused = answers.filter(({ statusCode }) => statusCode === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.body.code).toBe('RATE_LIMITED');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect((await call(id, { portalId: bystander, ...request(theirs.configId) })).statusCode).not.toBe(429);
  }, 60_000);
});
