/**
 * Tenant isolation: a portal only ever sees and changes its own subscriptions, and an unknown
 * id and another portal's id get the very same answer.
 */
import { randomUUID } from 'node:crypto';
import { newConfigId } from '../../shared/subscriptions/config-id';
import { call, freshPortal, newSubscription } from '../support/api';
import { allTopicArns, subscriptionItems } from '../support/aws-state';
import type { OperationId } from '../../shared/operations';

type Addressing = Exclude<OperationId, 'createSubscriptionRoute' | 'listSubscriptionsRoute'>;

function requestFor(operationId: Addressing, configId: string) {
  switch (operationId) {
    case 'updateSubscriptionRoute':
      return { body: { config_id: configId, events: ['antivirus.scan.failed'] } };
    case 'activateSubscriptionRoute':
      return { body: { config_id: configId, status: 0 } };
    case 'renameSubscriptionRoute':
      return { body: { config_id: configId, name: 'taken over' } };
    case 'deleteSubscriptionRoute':
      return { configId };
    case 'testSubscriptionRoute':
    case 'confirmSubscriptionRoute':
      return { body: { config_id: configId } };
  }
}

const ADDRESSING: Addressing[] = [
  'updateSubscriptionRoute',
  'activateSubscriptionRoute',
  'renameSubscriptionRoute',
  'deleteSubscriptionRoute',
  'testSubscriptionRoute',
  'confirmSubscriptionRoute',
];

describe('two portals', () => {
  const alice = freshPortal('alice');
  const bob = freshPortal('bob');
  let aliceRecord: any;
  let bobRecord: any;

  beforeAll(async () => {
    aliceRecord = (await call('createSubscriptionRoute', { portalId: alice, body: newSubscription({ name: 'alice hook' }) })).body.record;
    bobRecord = (await call('createSubscriptionRoute', { portalId: bob, body: newSubscription({ name: 'bob hook' }) })).body.record;
    expect(aliceRecord?.configId).toBeDefined();
    expect(bobRecord?.configId).toBeDefined();
  });

  it('each lists only its own subscriptions', async () => {
    const aliceList = await call('listSubscriptionsRoute', { portalId: alice });
    const bobList = await call('listSubscriptionsRoute', { portalId: bob });

    expect(aliceList.body.configs.map((c: any) => c.configId)).toEqual([aliceRecord.configId]);
    expect(bobList.body.configs.map((c: any) => c.configId)).toEqual([bobRecord.configId]);
  });

  it.each(ADDRESSING)('%s answers the same 400 for a foreign id as for an unknown one, and changes nothing', async (operationId) => {
    const unknownId = newConfigId();

    const foreign = await call(operationId, { portalId: alice, ...requestFor(operationId, bobRecord.configId) });
    const unknown = await call(operationId, { portalId: alice, ...requestFor(operationId, unknownId) });

    expect(foreign.statusCode).toBe(400);
    expect(unknown.statusCode).toBe(400);
    expect(foreign.body).toEqual({
      success: false,
      message: `No subscription with config_id ${bobRecord.configId} exists for this portal.`,
      code: 'SUBSCRIPTION_NOT_FOUND',
    });
    expect(unknown.body).toEqual({ ...foreign.body, message: foreign.body.message.replace(bobRecord.configId, unknownId) });

    const [bobStored] = await subscriptionItems(bob);
    expect(bobStored).toMatchObject({
      configId: bobRecord.configId,
      name: 'bob hook',
      status: 1,
      events: bobRecord.events,
    });
    expect(await allTopicArns()).toContain(bobRecord.topicArn);
    expect(await subscriptionItems(alice)).toHaveLength(1);
  });

  it('an unknown id in upper case or of another UUID version is still just unknown', async () => {
    const answer = await call('renameSubscriptionRoute', {
      portalId: bob,
      body: { config_id: randomUUID().toUpperCase(), name: 'x' },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body.code).toBe('SUBSCRIPTION_NOT_FOUND');
  });

  it('an id is found in upper case too', async () => {
    const answer = await call('renameSubscriptionRoute', {
      portalId: bob,
      body: { config_id: bobRecord.configId.toUpperCase(), name: 'bob renamed' },
    });
    expect(answer.statusCode).toBe(200);
    expect((await subscriptionItems(bob))[0]).toMatchObject({ name: 'bob renamed' });
  });
});
