/**
 * A subscription's `filter` as the dispatcher applies it, against DynamoDB Local and the SNS
 * emulator: an event reaches a subscription only when its kind is chosen and its `data` matches;
 * an update applies to the very next batch; no AWS call is added (one Query per portal, one
 * PublishBatch per recipient); the service's notices are not filtered.
 */
import { randomUUID } from 'node:crypto';
import { snsClient } from '../../shared/aws/sns';
import { documentClient } from '../../shared/aws/dynamodb';
import { FAILING_EVENT_KIND, sendNotice } from '../../shared/dead-letters/notices';
import { repositoryOf } from '../../shared/data/bound-operations';
import { listFor } from '../../shared/data/subscription-reads';
import { tableName } from '../../shared/environment';
import { call, freshPortal, newSubscription } from '../support/api';
import { awsCallsDuring } from '../support/aws-calls';
import { sqsRecord } from '../support/portal-events';
import { confirmAsEndpointOwner } from '../support/sns-confirmation';
import { CREATE, eventIdsDeliveredTo, loggedMessagesOf, portalEvent, runBatch } from '../support/dispatcher';
import { messageLogOf } from '../../shared/data/messages';

/** A queue subscription of another account, confirmed by its owner, with `filter` when given. */
async function subscribeFiltered(portalId: string, filter?: Record<string, unknown>, events = [CREATE]) {
  const created = await call('createSubscriptionRoute', {
    portalId,
    body: newSubscription({ protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:111122223333:q-${randomUUID()}`, events, ...(filter && { filter }) }),
  });
  expect(created.statusCode).toBe(200);
  expect(created.body.record.filter).toEqual(filter);
  await confirmAsEndpointOwner(created.body.record.subscriptionArn);
  return created.body.record as { configId: string; topicArn: string; subscriptionArn: string };
}

const asset = (portalId: string, data: Record<string, unknown>) => portalEvent(CREATE, { portalId, ...data });

describe('a subscription with a filter', () => {
  it('receives the events whose data matches, and not the others; one without a filter receives them all, at no extra AWS call', async () => {
    const portalId = freshPortal();
    const acme = await subscribeFiltered(portalId, { brand: ['acme'] });
    const large = await subscribeFiltered(portalId, { size: [{ numeric: ['>', 1000] }] });
    const everything = await subscribeFiltered(portalId);
    const events = [
      asset(portalId, { brand: 'acme', size: 10 }),
      asset(portalId, { brand: 'other', size: 5000 }),
      asset(portalId, { brand: 'acme', size: 1001 }),
      asset(portalId, { size: 1000 }),
    ];

    const calls = await awsCallsDuring(async () => expect(await runBatch(events.map((event) => sqsRecord(event)))).toEqual({ batchItemFailures: [] }));

    // The messages published are logged together (the message log), whatever the filters.
    expect(calls.sort()).toEqual(['QueryCommand', 'PublishBatchCommand', 'PublishBatchCommand', 'PublishBatchCommand', 'BatchWriteItemCommand'].sort());
    expect(await eventIdsDeliveredTo(acme.subscriptionArn)).toEqual([events[0]!.id, events[2]!.id]);
    expect(await eventIdsDeliveredTo(large.subscriptionArn)).toEqual([events[1]!.id, events[2]!.id]);
    expect(await eventIdsDeliveredTo(everything.subscriptionArn)).toEqual(events.map((event) => event.id));
  });

  it('sees a changed filter at the very next event, and none once it is removed', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeFiltered(portalId, { brand: ['acme'] });
    const before = asset(portalId, { brand: 'acorn' });
    await runBatch([sqsRecord(before)]);

    const updated = await call('updateSubscriptionRoute', { portalId, body: { config_id: subscription.configId, filter: { brand: [{ prefix: 'ac' }] } } });
    expect(updated.statusCode).toBe(200);
    expect(updated.body).toMatchObject({ message: 'Subscription filter updated.', record: { filter: { brand: [{ prefix: 'ac' }] }, events: [CREATE] } });
    const after = asset(portalId, { brand: 'acorn' });
    const miss = asset(portalId, { brand: 'zeta' });
    await runBatch([sqsRecord(after), sqsRecord(miss)]);
    expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual([after.id]);

    const removed = await call('updateSubscriptionRoute', { portalId, body: { config_id: subscription.configId, filter: null } });
    expect(removed.statusCode).toBe(200);
    expect(removed.body.record.filter).toBeUndefined();
    const anything = asset(portalId, { brand: 'zeta' });
    await runBatch([sqsRecord(anything)]);
    expect(await eventIdsDeliveredTo(subscription.subscriptionArn)).toEqual([after.id, anything.id]);
    const listed = await call('listSubscriptionsRoute', { portalId });
    expect(listed.body.configs[0].filter).toBeUndefined();
  });

  it('does not apply to the service\'s notices, which are about the service and not a portal event\'s data', async () => {
    const portalId = freshPortal();
    const failing = await subscribeFiltered(portalId);
    const told = await subscribeFiltered(portalId, { brand: ['acme'] }, [FAILING_EVENT_KIND]);
    const deps = { repository: repositoryOf({ db: documentClient, tableName }, { listFor }), sns: snsClient, messages: messageLogOf({ db: documentClient, tableName }, 30) };
    const at = new Date().toISOString();

    const outcome = await sendNotice(deps, {
      kind: FAILING_EVENT_KIND,
      portalId,
      configId: failing.configId,
      name: 'Media updates',
      lastDeliveredAt: null,
      failingSince: at,
      reason: 'dead-letter',
      occurredAt: at,
    });

    expect(outcome).toMatchObject({ delivered: [told.configId] });
    expect(await eventIdsDeliveredTo(told.subscriptionArn)).toHaveLength(1);
    // The notice is in the message log of the subscription it reached, as every message is.
    expect((await loggedMessagesOf(portalId, told.configId)).map(({ body }) => JSON.parse(body).event)).toEqual([FAILING_EVENT_KIND]);
  });
});
