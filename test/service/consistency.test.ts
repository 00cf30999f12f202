/**
 * Table and SNS agree: after every request, successful or not, no record lacks its topic and
 * no topic lacks its record. Faults are injected where the emulators cannot fail on demand.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { call, freshPortal, newSubscription } from '../support/api';
import { inspectDb, portalTopicArns, subscriptionItems } from '../support/aws-state';
import { injectFault, lostAnswer } from '../support/faults';
import { TEST_ENV } from '../support/test-env';

let removeFault: (() => void) | undefined;
let removeSecondFault: (() => void) | undefined;
afterEach(() => {
  removeFault?.();
  removeSecondFault?.();
  removeFault = removeSecondFault = undefined;
});

function expectServiceFailure(answer: { statusCode: number; body: any }) {
  expect(answer.statusCode).toBeGreaterThanOrEqual(500);
  expect(answer.body).toEqual({ success: false, message: expect.any(String), code: expect.any(String) });
  expect(answer.body.message).not.toMatch(/arn:|InternalFailure|999999999999|Command|at \w+ \(/);
}

async function expectAgreement(portalId: string, expectedRecords: number) {
  const records = await subscriptionItems(portalId);
  expect(records).toHaveLength(expectedRecords);
  expect((await portalTopicArns(portalId)).sort()).toEqual(records.map((record) => record.topicArn).sort());
  const { Item: counter } = await inspectDb.send(
    new GetCommand({ TableName: TEST_ENV.TABLE_NAME, Key: { portalId, sk: 'portal' } }),
  );
  expect(counter?.subscriptionCount ?? 0).toBe(expectedRecords);
}

describe('create', () => {
  it.each([
    ['creating the topic', /CreateTopic/],
    ['subscribing the endpoint', /Subscribe/],
  ])('leaves neither record nor topic when SNS fails while %s', async (_step, command) => {
    const portalId = freshPortal();
    removeFault = injectFault(snsClient, command);

    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription() });

    expectServiceFailure(answer);
    await expectAgreement(portalId, 0);
  });

  it('leaves neither record nor topic when DynamoDB fails after SNS succeeded', async () => {
    const portalId = freshPortal();
    removeFault = injectFault(dynamoDbClient, /TransactWrite/);

    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription() });

    expectServiceFailure(answer);
    await expectAgreement(portalId, 0);

    removeFault();
    const retry = await call('createSubscriptionRoute', { portalId, body: newSubscription() });
    expect(retry.statusCode).toBe(200);
    await expectAgreement(portalId, 1);
  });

  it('answers 400 and leaves nothing when SNS refuses the endpoint', async () => {
    const portalId = freshPortal();
    removeFault = injectFault(snsClient, /Subscribe/, {
      failWith: () =>
        Object.assign(new Error('Invalid parameter: Endpoint'), {
          name: 'InvalidParameterException',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        }),
    });

    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription() });

    expect(answer.statusCode).toBe(400);
    expect(answer.body).toMatchObject({ success: false, code: 'ENDPOINT_REFUSED', message: expect.stringMatching(/^SNS refused the endpoint for protocol /) });
    await expectAgreement(portalId, 0);
  });
});

describe('create whose answer is lost (the outcome unknown to the function)', () => {
  it('succeeds when the record was in fact written', async () => {
    const portalId = freshPortal();
    removeFault = injectFault(dynamoDbClient, /TransactWrite/, { afterApplying: true, failWith: lostAnswer });

    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription() });

    expect(answer.statusCode).toBe(200);
    await expectAgreement(portalId, 1);
    expect((await subscriptionItems(portalId))[0]!.configId).toBe(answer.body.record.configId);
  });

  it('deletes the topic when the record was not written', async () => {
    const portalId = freshPortal();
    removeFault = injectFault(dynamoDbClient, /TransactWrite/, { failWith: lostAnswer });

    expectServiceFailure(await call('createSubscriptionRoute', { portalId, body: newSubscription() }));

    await expectAgreement(portalId, 0);
  });

  it('keeps the topic when the record was written but DynamoDB cannot confirm it', async () => {
    const portalId = freshPortal();
    removeFault = injectFault(dynamoDbClient, /TransactWrite/, { afterApplying: true, failWith: lostAnswer });
    // The first GetItem is the limit check; the second is the look-up after the lost answer.
    removeSecondFault = injectFault(dynamoDbClient, /^Get/, { skip: 1 });

    expectServiceFailure(await call('createSubscriptionRoute', { portalId, body: newSubscription() }));

    await expectAgreement(portalId, 1);
  });

  it('is applied once when the SDK resends the transaction whose answer was lost', async () => {
    const portalId = freshPortal();
    removeFault = injectFault(dynamoDbClient, /TransactWrite/, { afterApplying: true, belowRetries: true, failWith: lostAnswer });

    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription() });

    expect(answer.statusCode).toBe(200);
    await expectAgreement(portalId, 1);
  });

  it('deletes the topic whose CreateTopic answer was lost', async () => {
    const portalId = freshPortal();
    removeFault = injectFault(snsClient, /CreateTopic/, { afterApplying: true, failWith: lostAnswer });

    expectServiceFailure(await call('createSubscriptionRoute', { portalId, body: newSubscription() }));

    await expectAgreement(portalId, 0);
  });
});

describe('delete', () => {
  async function createOne(portalId: string) {
    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription() });
    expect(answer.statusCode).toBe(200);
    return answer.body.record as { configId: string; topicArn: string };
  }

  it('keeps record and topic together when SNS fails, and a retry completes it', async () => {
    const portalId = freshPortal();
    const { configId } = await createOne(portalId);
    removeFault = injectFault(snsClient, /DeleteTopic/);

    expectServiceFailure(await call('deleteSubscriptionRoute', { portalId, configId }));
    removeFault();

    const records = await subscriptionItems(portalId);
    expect(records).toHaveLength(1);
    expect(await portalTopicArns(portalId)).toEqual([records[0]!.topicArn]);
    expect((await call('deleteSubscriptionRoute', { portalId, configId })).statusCode).toBe(200);
    await expectAgreement(portalId, 0);
  });

  it('leaves the record addressable when DynamoDB fails after SNS, and a retry completes it', async () => {
    const portalId = freshPortal();
    const { configId } = await createOne(portalId);
    removeFault = injectFault(dynamoDbClient, /TransactWrite/);

    expectServiceFailure(await call('deleteSubscriptionRoute', { portalId, configId }));
    removeFault();

    const list = await call('listSubscriptionsRoute', { portalId });
    expect(list.body.configs.map((c: { configId: string }) => c.configId)).toEqual([configId]);
    const retry = await call('deleteSubscriptionRoute', { portalId, configId });
    expect(retry.statusCode).toBe(200);
    await expectAgreement(portalId, 0);
  });

  it('answers 400 for a second delete of the same id', async () => {
    const portalId = freshPortal();
    const { configId } = await createOne(portalId);
    expect((await call('deleteSubscriptionRoute', { portalId, configId })).statusCode).toBe(200);

    const again = await call('deleteSubscriptionRoute', { portalId, configId });

    expect(again.statusCode).toBe(400);
    expect(again.body.code).toBe('SUBSCRIPTION_NOT_FOUND');
    await expectAgreement(portalId, 0);
  });
});

describe('rename, update and activate', () => {
  it('answer 5xx without internals when DynamoDB fails, and change nothing', async () => {
    const portalId = freshPortal();
    const { body } = await call('createSubscriptionRoute', { portalId, body: newSubscription({ name: 'before' }) });
    const configId = body.record.configId;
    removeFault = injectFault(dynamoDbClient, /Update/, { times: 3 });

    expectServiceFailure(await call('renameSubscriptionRoute', { portalId, body: { config_id: configId, name: 'after' } }));
    expectServiceFailure(await call('activateSubscriptionRoute', { portalId, body: { config_id: configId, status: 0 } }));
    expectServiceFailure(
      await call('updateSubscriptionRoute', { portalId, body: { config_id: configId, events: ['antivirus.scan.failed'] } }),
    );

    expect((await subscriptionItems(portalId))[0]).toMatchObject({ name: 'before', status: 1, events: body.record.events });
  });

  it('concurrent changes of different attributes keep each other', async () => {
    const portalId = freshPortal();
    const { body } = await call('createSubscriptionRoute', { portalId, body: newSubscription() });
    const configId = body.record.configId;

    const answers = await Promise.all([
      call('renameSubscriptionRoute', { portalId, body: { config_id: configId, name: 'renamed' } }),
      call('activateSubscriptionRoute', { portalId, body: { config_id: configId, status: 0 } }),
      call('updateSubscriptionRoute', { portalId, body: { config_id: configId, events: ['antivirus.scan.failed'] } }),
    ]);

    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    expect((await subscriptionItems(portalId))[0]).toMatchObject({
      name: 'renamed',
      status: 0,
      events: ['antivirus.scan.failed'],
      topicArn: body.record.topicArn,
    });
  });
});
