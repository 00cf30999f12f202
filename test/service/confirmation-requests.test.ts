/**
 * POST /confirm cannot be used to flood a stranger with confirmation requests: a portal that
 * subscribed someone else's address and calls confirm again and again (one by one, or all at
 * once) gets 429 with Retry-After while a request sent less than 5 minutes ago is pending, and
 * at most CONFIRMATION_REQUESTS_PER_DAY (5) a UTC day; SNS sends nothing for a refused call.
 * An endpoint that confirmed and left may be asked again at once. A confirm whose Subscribe
 * failed gives its turn back. Through the handlers, against DynamoDB Local and the SNS emulator;
 * the passing of 5 minutes is the record's last request moved back.
 */
import { UnsubscribeCommand } from '@aws-sdk/client-sns';
import { randomUUID } from 'node:crypto';
import { snsClient } from '../../shared/aws/sns';
import { confirmationRequestsPerDay } from '../../shared/settings';
import { call, freshPortal, newSubscription } from '../support/api';
import { inspectSns, lastConfirmationRequestMinutesAgo, subscriptionItems } from '../support/aws-state';
import { injectFault } from '../support/faults';
import { confirmAsEndpointOwner, confirmationRequestsTo } from '../support/sns-confirmation';

const DEFAULT_CONFIRMATION_REQUESTS_PER_DAY = Number(confirmationRequestsPerDay.default);

interface Created {
  portalId: string;
  configId: string;
  subscriptionArn: string;
}

/** A subscription of an address nobody at the portal owns: it never confirms. */
async function strangerSubscribed(): Promise<Created> {
  const portalId = freshPortal('spam');
  const created = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol: 'email', endpoint: `stranger-${randomUUID().slice(0, 8)}@example.com` }) });
  expect(created.statusCode).toBe(200);
  const { configId, subscriptionArn } = created.body.record;
  return { portalId, configId, subscriptionArn };
}

const confirm = ({ portalId, configId }: Created) => call('confirmSubscriptionRoute', { portalId, body: { config_id: configId } });

const lastRequestMinutesAgo = ({ portalId, configId }: Created, minutes: number) => lastConfirmationRequestMinutesAgo(portalId, configId, minutes);

const requestsSent = async ({ subscriptionArn }: Created) => (await confirmationRequestsTo(subscriptionArn)).length;

describe('POST /confirm of an endpoint that does not confirm', () => {
  it('sends nothing more for 30 calls within 5 minutes of the last request, answering each 429 with Retry-After and when', async () => {
    const stranger = await strangerSubscribed();
    expect(await requestsSent(stranger)).toBe(1);

    const statuses: number[] = [];
    let first;
    for (let sent = 0; sent < 30; sent++) {
      const answer = await confirm(stranger);
      statuses.push(answer.statusCode);
      first ??= answer;
    }

    expect(statuses).toEqual(Array(30).fill(429));
    expect(await requestsSent(stranger)).toBe(1);
    expect(first!.body).toEqual({ success: false, message: expect.any(String), code: 'CONFIRMATION_PENDING' });
    const [createdAt] = (await subscriptionItems(stranger.portalId)).map((item) => item.createdAt as string);
    const allowedAt = new Date(Date.parse(createdAt!) + 5 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect(first!.body.message).toBe(
      `A confirmation request was sent to the endpoint of subscription ${stranger.configId} at ${createdAt} and it has not ` +
        `confirmed yet; SNS sends another no sooner than 5 minutes after the last: ask again after ${allowedAt}.`,
    );
    const retryAfter = Number(first!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(4 * 60);
    expect(retryAfter).toBeLessThanOrEqual(5 * 60);
  }, 60_000);

  it('sends one request for 10 concurrent calls once 5 minutes passed, then none until 5 more have', async () => {
    const stranger = await strangerSubscribed();
    await lastRequestMinutesAgo(stranger, 6);

    const answers = await Promise.all(Array.from({ length: 10 }, () => confirm(stranger)));

    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, ...Array(9).fill(429)]);
    expect(await requestsSent(stranger)).toBe(2);
    expect(answers.filter((answer) => answer.statusCode === 429).every((answer) => answer.body.code === 'CONFIRMATION_PENDING')).toBe(true);
    // 4 minutes on: still within the 5.
    await lastRequestMinutesAgo(stranger, 4);
    expect((await confirm(stranger)).statusCode).toBe(429);
    expect(await requestsSent(stranger)).toBe(2);
  }, 60_000);

  it(`sends at most ${DEFAULT_CONFIRMATION_REQUESTS_PER_DAY} a UTC day, then answers 429 until midnight`, async () => {
    const stranger = await strangerSubscribed();
    for (let day = 0; day < DEFAULT_CONFIRMATION_REQUESTS_PER_DAY; day++) {
      await lastRequestMinutesAgo(stranger, 6);
      expect((await confirm(stranger)).statusCode).toBe(200);
    }
    await lastRequestMinutesAgo(stranger, 6);

    const refused = await confirm(stranger);

    expect(refused.statusCode).toBe(429);
    const midnight = new Date(Date.parse(new Date().toISOString().slice(0, 10)) + 86_400_000);
    expect(refused.body).toEqual({
      success: false,
      code: 'CONFIRMATION_REQUESTS_PER_DAY',
      message:
        `The endpoint of subscription ${stranger.configId} was sent ${DEFAULT_CONFIRMATION_REQUESTS_PER_DAY} confirmation requests today (UTC), ` +
        `the most a day; ask again after ${midnight.toISOString().replace(/\.\d{3}Z$/, 'Z')}.`,
    });
    expect(Math.abs(Number(refused.headers['retry-after']) - (midnight.getTime() - Date.now()) / 1000)).toBeLessThan(5);
    expect(await requestsSent(stranger)).toBe(1 + DEFAULT_CONFIRMATION_REQUESTS_PER_DAY);
  }, 60_000);

  it('gives the turn back when SNS did not take the Subscribe, so the caller may retry at once', async () => {
    const stranger = await strangerSubscribed();
    await lastRequestMinutesAgo(stranger, 6);
    const removeFault = injectFault(snsClient, /^SubscribeCommand$/, { times: 1 });
    let failed;
    try {
      failed = await confirm(stranger);
    } finally {
      removeFault();
    }
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);

    expect((await confirm(stranger)).statusCode).toBe(200);
    expect(await requestsSent(stranger)).toBe(2);
  }, 60_000);
});

describe('POST /confirm of an endpoint that confirmed and left', () => {
  it('asks it again at once, and then not again while that request is pending', async () => {
    const portalId = freshPortal('left');
    const created = await call('createSubscriptionRoute', {
      portalId,
      body: newSubscription({ protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:111122223333:left-${randomUUID().slice(0, 8)}` }),
    });
    const { configId, subscriptionArn } = created.body.record;
    await confirmAsEndpointOwner(subscriptionArn);
    await inspectSns.send(new UnsubscribeCommand({ SubscriptionArn: subscriptionArn }));

    // Within 5 minutes of create's request: the endpoint left, so it may be asked again now.
    const again = await call('confirmSubscriptionRoute', { portalId, body: { config_id: configId } });
    expect(again.statusCode).toBe(200);
    expect(again.body.subscriptionState).toBe('pending');

    const tooSoon = await call('confirmSubscriptionRoute', { portalId, body: { config_id: configId } });
    expect([tooSoon.statusCode, tooSoon.body.code]).toEqual([429, 'CONFIRMATION_PENDING']);
  }, 60_000);
});
