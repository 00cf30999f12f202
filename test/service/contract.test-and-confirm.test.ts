/**
 * The operations that reach a subscription's endpoint, under both path prefixes: test (one
 * webhooks.test message, refused while the endpoint has not confirmed) and confirm (a new
 * confirmation request for a pending endpoint). The other operations' success paths are
 * contract.operations.test.ts.
 */
import { call, freshPortal, newSubscription } from '../support/api';
import { lastConfirmationRequestMinutesAgo, subscriptionItems } from '../support/aws-state';
import { confirmAsEndpointOwner, confirmationRequestsTo } from '../support/sns-confirmation';

describe.each([0, 1] as const)('the operations under prefix %i', (prefix) => {
  it('test answers 400 saying why while the endpoint has not confirmed: nothing would arrive', async () => {
    const portalId = freshPortal();
    const { configId } = (await call('createSubscriptionRoute', { portalId, prefix, body: newSubscription() })).body.record;

    const answer = await call('testSubscriptionRoute', { portalId, prefix, body: { config_id: configId } });

    expect(answer.statusCode).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      code: 'ENDPOINT_NOT_CONFIRMED',
      message: `The endpoint of subscription ${configId} has not confirmed it yet, so nothing would arrive; confirm it (the SubscribeURL SNS sent) first.`,
    });
  });

  it('test publishes one webhooks.test message to the subscription and answers its message id', async () => {
    const portalId = freshPortal();
    // A queue of another account, confirmed by its owner: SNS hands the message over.
    const body = newSubscription({ protocol: 'sqs', endpoint: 'arn:aws:sqs:us-east-1:111122223333:contract-test' });
    const { configId, subscriptionArn } = (await call('createSubscriptionRoute', { portalId, prefix, body })).body.record;
    await confirmAsEndpointOwner(subscriptionArn);

    const answer = await call('testSubscriptionRoute', { portalId, prefix, body: { config_id: configId } });

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({ success: true, message: 'Test event sent.', messageId: expect.any(String) });
    const response = await fetch(`${process.env.AWS_ENDPOINT_URL_SNS}/_emulator/deliveries`, { signal: AbortSignal.timeout(5_000) });
    const { deliveries } = (await response.json()) as { deliveries: { subscriptionArn: string; messageId: string; body: string }[] };
    const sent = deliveries.filter((delivery) => delivery.subscriptionArn === subscriptionArn && delivery.messageId === answer.body.messageId);
    expect(sent.map((delivery) => delivery.messageId)).toEqual([answer.body.messageId]);
    expect(JSON.parse(JSON.parse(sent[0]!.body).Message)).toEqual({
      event: 'webhooks.test',
      portalId,
      configId,
      occurredAt: expect.any(String),
      eventId: expect.any(String),
      data: { name: 'Media updates' },
    });
  });

  it('confirm asks a pending endpoint to confirm again; once it has, list shows it confirmed and confirm answers 400', async () => {
    const portalId = freshPortal();
    const body = newSubscription({ protocol: 'email', endpoint: 'ops@example.com' });
    const { configId, subscriptionArn } = (await call('createSubscriptionRoute', { portalId, prefix, body })).body.record;
    expect(await confirmationRequestsTo(subscriptionArn)).toHaveLength(1);
    // Create's request went out over 5 minutes ago: another may be sent.
    await lastConfirmationRequestMinutesAgo(portalId, configId, 6);

    const answer = await call('confirmSubscriptionRoute', { portalId, prefix, body: { configId } });

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      message: 'Confirmation requested: SNS sent the endpoint a new confirmation request.',
      subscriptionState: 'pending',
    });
    expect(await confirmationRequestsTo(subscriptionArn)).toHaveLength(2);
    // The same SNS subscription, asked again: the record is unchanged.
    expect((await subscriptionItems(portalId))[0]).toMatchObject({ subscriptionArn });

    await confirmAsEndpointOwner(subscriptionArn);
    const listed = await call('listSubscriptionsRoute', { portalId, prefix });
    expect(listed.body.configs).toEqual([expect.objectContaining({ configId, confirmed: true, subscriptionState: 'confirmed' })]);
    // List asked SNS (the record said pending) and stored what it answered.
    expect((await subscriptionItems(portalId))[0]).toMatchObject({ subscriptionArn, subscriptionState: 'confirmed' });

    const again = await call('confirmSubscriptionRoute', { portalId, prefix, body: { config_id: configId } });
    expect(again.statusCode).toBe(400);
    expect(again.body).toEqual({
      success: false,
      code: 'ALREADY_CONFIRMED',
      message: `The endpoint of subscription ${configId} has already confirmed it; there is nothing to confirm.`,
    });
    expect(await confirmationRequestsTo(subscriptionArn)).toHaveLength(2);
  });

  it('confirm answers an unknown or foreign subscription 400', async () => {
    const owner = freshPortal();
    const { configId } = (await call('createSubscriptionRoute', { portalId: owner, prefix, body: newSubscription() })).body.record;

    for (const [portalId, id] of [
      [freshPortal(), configId],
      [owner, '0192f8a4-7b3c-7d2e-9f01-23456789abcd'],
    ]) {
      const answer = await call('confirmSubscriptionRoute', { portalId, prefix, body: { config_id: id } });
      expect(answer.statusCode).toBe(400);
      expect(answer.body.code).toBe('SUBSCRIPTION_NOT_FOUND');
    }
  });

  it('test answers an unknown subscription 400', async () => {
    const answer = await call('testSubscriptionRoute', {
      portalId: freshPortal(),
      prefix,
      body: { config_id: '0192f8a4-7b3c-7d2e-9f01-23456789abcd' },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body.code).toBe('SUBSCRIPTION_NOT_FOUND');
  });
});
