/**
 * SNS enforces each subscription's events and status: the SNS subscription
 * carries a filter policy on the `event` attribute that create sets and update and activate
 * replace, a redrive policy to the delivery dead-letter queue, and for http/https a delivery
 * policy with retries. Checked in what SNS holds, through the real SDK client; and that a
 * change whose filter could not be set is completed by repeating it, and that concurrent
 * changes leave the filter of the last one.
 */
import { GetSubscriptionAttributesCommand } from '@aws-sdk/client-sns';
import { snsClient } from '../../shared/aws/sns';
import { HTTP_DELIVERY_POLICY } from '../../shared/subscriptions/delivery-policy';
import { call, freshPortal, newSubscription } from '../support/api';
import { inspectSns, subscriptionItems } from '../support/aws-state';
import { injectFault } from '../support/faults';
import { TEST_ENV } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const CREATE = 'asset_bank.media.create';
const UPDATED = 'asset_bank.media.updated';
const DELETED = 'asset_bank.media.deleted';

async function attributesOf(subscriptionArn: string): Promise<Record<string, string>> {
  const { Attributes } = await inspectSns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }));
  return Attributes ?? {};
}

async function filterOf(subscriptionArn: string): Promise<unknown> {
  return JSON.parse((await attributesOf(subscriptionArn)).FilterPolicy ?? 'null');
}

async function created(portalId: string, overrides: Record<string, unknown> = {}) {
  const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription(overrides) });
  expect(answer.statusCode).toBe(200);
  return answer.body.record as { configId: string; subscriptionArn: string; confirmed: boolean };
}

describe('create', () => {
  it('subscribes with a filter of its events and the test event, the dead-letter queue, and retries for http/https', async () => {
    const record = await created(freshPortal(), { events: [CREATE, UPDATED] });
    const attributes = await attributesOf(record.subscriptionArn);

    expect(JSON.parse(attributes.FilterPolicy!)).toEqual({ event: [CREATE, UPDATED, 'webhooks.test'] });
    expect(attributes.FilterPolicyScope).toBe('MessageAttributes');
    expect(JSON.parse(attributes.RedrivePolicy!)).toEqual({ deadLetterTargetArn: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN });
    expect(JSON.parse(attributes.DeliveryPolicy!)).toEqual(HTTP_DELIVERY_POLICY);
    // An https endpoint must confirm first.
    expect(record.confirmed).toBe(false);
    expect(attributes.PendingConfirmation).toBe('true');
  });

  it.each([
    ['email', 'ops@example.com', false],
    ['sqs', 'arn:aws:sqs:us-east-1:000000000000:same-account', true],
    ['sqs', 'arn:aws:sqs:us-east-1:111122223333:other-account', false],
    ['lambda', 'arn:aws:lambda:us-east-1:000000000000:function:same-account', true],
  ])('gives %s (%s) no delivery policy, and answers confirmed as SNS reports it', async (protocol, endpoint, confirmed) => {
    const record = await created(freshPortal(), { protocol, endpoint });
    const attributes = await attributesOf(record.subscriptionArn);

    expect(attributes.DeliveryPolicy).toBeUndefined();
    expect(JSON.parse(attributes.RedrivePolicy!).deadLetterTargetArn).toBe(TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN);
    expect(record.confirmed).toBe(confirmed);
    expect(attributes.PendingConfirmation).toBe(String(!confirmed));
  });
});

describe('update and activate', () => {
  it('replace the filter: the new event list; only the test event while deactivated; the event list again once activated', async () => {
    const portalId = freshPortal();
    const { configId, subscriptionArn } = await created(portalId, { events: [CREATE] });

    const updated = await call('updateSubscriptionRoute', { portalId, body: { config_id: configId, events: [DELETED, UPDATED] } });
    expect(updated.statusCode).toBe(200);
    expect(updated.body).toEqual({
      success: true,
      message: 'Subscription events updated.',
      record: { configId, events: [DELETED, UPDATED], portalId },
    });
    expect(await filterOf(subscriptionArn)).toEqual({ event: [DELETED, UPDATED, 'webhooks.test'] });

    expect((await call('activateSubscriptionRoute', { portalId, body: { config_id: configId, status: 0 } })).body).toEqual({
      success: true,
      message: 'Subscription deactivated.',
    });
    expect(await filterOf(subscriptionArn)).toEqual({ event: ['webhooks.test'] });

    // The event list changes while deactivated: stored, and still nothing but the test event admitted.
    await call('updateSubscriptionRoute', { portalId, body: { config_id: configId, events: [CREATE] } });
    expect(await filterOf(subscriptionArn)).toEqual({ event: ['webhooks.test'] });

    await call('activateSubscriptionRoute', { portalId, body: { config_id: configId, status: 1 } });
    expect(await filterOf(subscriptionArn)).toEqual({ event: [CREATE, 'webhooks.test'] });
  });

  it('rename leaves the filter alone', async () => {
    const portalId = freshPortal();
    const { configId, subscriptionArn } = await created(portalId, { events: [CREATE] });
    expect((await call('renameSubscriptionRoute', { portalId, body: { config_id: configId, name: 'Renamed' } })).statusCode).toBe(200);
    expect(await filterOf(subscriptionArn)).toEqual({ event: [CREATE, 'webhooks.test'] });
  });

  it.each([
    ['updateSubscriptionRoute', { events: [DELETED] }, { event: [DELETED, 'webhooks.test'] }],
    ['activateSubscriptionRoute', { status: 0 }, { event: ['webhooks.test'] }],
  ] as const)(
    '%s: when SNS fails to take the filter, answers 503, and the same request repeated completes it',
    async (operationId, change, expectedFilter) => {
      const portalId = freshPortal();
      const { configId, subscriptionArn } = await created(portalId, { events: [CREATE] });
      const body = { config_id: configId, ...change };

      const removeFault = injectFault(snsClient, /^SetSubscriptionAttributesCommand$/);
      let failed;
      try {
        failed = await call(operationId, { portalId, body });
      } finally {
        removeFault();
      }
      expect(failed.statusCode).toBe(503);
      expect(failed.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
      // The record took the change; SNS still holds the old filter.
      expect((await subscriptionItems(portalId))[0]).toMatchObject(change);
      expect(await filterOf(subscriptionArn)).toEqual({ event: [CREATE, 'webhooks.test'] });

      const repeated = await call(operationId, { portalId, body });
      expect(repeated.statusCode).toBe(200);
      expect(await filterOf(subscriptionArn)).toEqual(expectedFilter);
    },
  );

  it("leave the last change's filter when an earlier change's filter reaches SNS after it", async () => {
    const portalId = freshPortal();
    const { configId, subscriptionArn } = await created(portalId, { events: [CREATE] });
    // Holds the first SetSubscriptionAttributes (the update's) until the activate has finished.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const name = 'hold-first-filter';
    snsClient.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'SetSubscriptionAttributesCommand' && !held) {
          held = true;
          await gate;
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const update = call('updateSubscriptionRoute', { portalId, body: { config_id: configId, events: [DELETED] } });
      await waitFor('the update written', async () =>
        ((await subscriptionItems(portalId))[0]?.events as string[])[0] === DELETED ? true : undefined,
      );
      const deactivate = await call('activateSubscriptionRoute', { portalId, body: { config_id: configId, status: 0 } });
      expect(deactivate.statusCode).toBe(200);
      expect(await filterOf(subscriptionArn)).toEqual({ event: ['webhooks.test'] });
      release();
      expect((await update).statusCode).toBe(200);
    } finally {
      release();
      snsClient.middlewareStack.remove(name);
    }
    // The record says deactivated: so must SNS, though the update's older filter arrived last.
    expect((await subscriptionItems(portalId))[0]).toMatchObject({ status: 0, events: [DELETED] });
    expect(await filterOf(subscriptionArn)).toEqual({ event: ['webhooks.test'] });
  });
});
