/**
 * The per-portal limit on the routes that make SNS send, as a portal looping on one of them meets
 * it: through the handlers, against DynamoDB Local and the SNS emulator, with the default limit
 * (25 at once, then 20 a minute). 30 back-to-back POST /test calls meet it: 429 with Retry-After
 * and the envelope saying when; SNS sends nothing for a refused call; another portal's call at
 * the same moment succeeds; the token comes back after Retry-After; a body refused by its checks
 * spends no token; a portal's limit on one route leaves its other routes alone. A request whose
 * write lands after a later one's still gets its token while the burst lasts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { clientOptions } from '../../shared/aws/client-options';
import { portalSendBurst, portalSendRatePerMinute } from '../../shared/settings';
import { PortalRateLimitedError, rateLimitHeadersOf, tokenTaker } from '../../shared/http/middleware/portal-rate-limit';
import { testSubscriptionRoute } from '../../shared/operations';
import { call, freshPortal, newSubscription } from '../support/api';
import { confirmAsEndpointOwner, deliveriesTo } from '../support/sns-confirmation';
import { TEST_ENV } from '../support/test-env';

const DEFAULT_PORTAL_SEND_BURST = Number(portalSendBurst.default);
const DEFAULT_PORTAL_SEND_RATE_PER_MINUTE = Number(portalSendRatePerMinute.default);

interface Confirmed {
  portalId: string;
  configId: string;
  subscriptionArn: string;
}

/** A queue of another account, confirmed by its owner: SNS hands it whatever is published. */
async function confirmedSubscription(label: string): Promise<Confirmed> {
  const portalId = freshPortal(label);
  const body = newSubscription({ protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:111122223333:rate-${randomUUID().slice(0, 8)}` });
  const created = await call('createSubscriptionRoute', { portalId, body });
  expect(created.statusCode).toBe(200);
  const { configId, subscriptionArn } = created.body.record;
  await confirmAsEndpointOwner(subscriptionArn);
  return { portalId, configId, subscriptionArn };
}

const testEvent = ({ portalId, configId }: Confirmed) => call('testSubscriptionRoute', { portalId, body: { config_id: configId } });

async function notificationsTo({ subscriptionArn }: Confirmed): Promise<number> {
  return (await deliveriesTo(subscriptionArn)).filter((delivery) => delivery.type === 'Notification').length;
}

describe('the per-portal limit on routes that make SNS send', () => {
  it('refuses a portal looping on POST /test with 429 and Retry-After, sends nothing for it, and serves another portal meanwhile', async () => {
    const looping = await confirmedSubscription('looping');
    const bystander = await confirmedSubscription('bystander');

    const statuses: number[] = [];
    let refused;
    for (let sent = 0; sent < 30 && !refused; sent++) {
      const answer = await testEvent(looping);
      statuses.push(answer.statusCode);
      if (answer.statusCode === 429) refused = answer;
    }
    // The other portal's call at the same moment.
    const other = await testEvent(bystander);

    expect(refused).toBeDefined();
    // The burst went through; only the calls past it were refused.
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(DEFAULT_PORTAL_SEND_BURST);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    expect(refused!.body).toEqual({ success: false, message: expect.any(String), code: 'RATE_LIMITED' });
    expect(refused!.body.message).toMatch(
      new RegExp(`faster than its limit \\(${DEFAULT_PORTAL_SEND_BURST} at once, then ${DEFAULT_PORTAL_SEND_RATE_PER_MINUTE} a minute\\); send it again after \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ`),
    );
    const retryAfter = Number(refused!.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(60 / DEFAULT_PORTAL_SEND_RATE_PER_MINUTE));
    // The message names the moment Retry-After counts to.
    const retryAt = Date.parse(refused!.body.message.match(/after (\S+Z)/)![1]);
    expect(Math.abs(retryAt - (Date.now() + retryAfter * 1000))).toBeLessThan(retryAfter * 1000 + 2000);
    expect(other.statusCode).toBe(200);
    // SNS sent one message per accepted call, none for the refused one.
    expect(await notificationsTo(looping)).toBe(statuses.filter((status) => status === 200).length);

    // Its other routes are limited apart: replay still answers.
    const replay = await call('replayDeadLettersRoute', { portalId: looping.portalId, body: { config_id: looping.configId } });
    expect(replay.statusCode).toBe(200);

    // After Retry-After a token is back.
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
    expect((await testEvent(looping)).statusCode).toBe(200);
  }, 60_000);

  it('refuses concurrent creates past the burst with 429, and creates no topic for them', async () => {
    const portalId = freshPortal('burst');
    const answers = await Promise.all(
      Array.from({ length: DEFAULT_PORTAL_SEND_BURST + 5 }, () => call('createSubscriptionRoute', { portalId, body: newSubscription({ endpoint: 'not a url' }) })),
    );
    // Refused for their body: no token spent on them.
    expect(answers.every((answer) => answer.statusCode === 400)).toBe(true);

    const valid = await Promise.all(
      Array.from({ length: DEFAULT_PORTAL_SEND_BURST + 5 }, (_, index) =>
        call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:111122223333:burst-${index}` }) }),
      ),
    );
    const counts = valid.reduce<Record<number, number>>((byStatus, { statusCode }) => ({ ...byStatus, [statusCode]: (byStatus[statusCode] ?? 0) + 1 }), {});
    // 25 tokens (one more if the run took 3 s): 10 created (the portal's subscription limit), the
    // others refused for that limit, and the rest for rate.
    expect(counts[200]).toBe(10);
    expect(counts[429]).toBeGreaterThanOrEqual(4);
    expect(counts[200]! + counts[400]! + counts[429]!).toBe(DEFAULT_PORTAL_SEND_BURST + 5);
    for (const answer of valid.filter(({ statusCode }) => statusCode === 429)) {
      expect(answer.body.code).toBe('RATE_LIMITED');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const listed = await call('listSubscriptionsRoute', { portalId });
    expect(listed.body.configs).toHaveLength(10);
  }, 60_000);
});

describe('the token bucket under a burst', () => {
  it('gives a request its token when another, begun after it, took the first one before its write landed', async () => {
    const client = DynamoDBDocumentClient.from(new DynamoDBClient(clientOptions));
    const take = tokenTaker({ client, tableName: TEST_ENV.TABLE_NAME, operation: testSubscriptionRoute, burst: 2, ratePerMinute: 1 });
    const portalId = freshPortal('clock');
    // The first UpdateItem sent waits until the later request has taken its token.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    client.middlewareStack.add(
      (next) => async (args) => {
        if (holding) {
          holding = false;
          await held;
        }
        return next(args);
      },
      { step: 'initialize', name: 'hold-the-first-take' },
    );

    const earlier = take(portalId);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const later = await take(portalId);
    release();

    // Two at once is the burst: the earlier request gets the second token, and a third is refused.
    expect(rateLimitHeadersOf(later, Date.now())['ratelimit-remaining']).toBe('1');
    expect(rateLimitHeadersOf(await earlier, Date.now())).toEqual({ 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '120' });
    await expect(take(portalId)).rejects.toBeInstanceOf(PortalRateLimitedError);
    client.destroy();
  });
});
