/**
 * SNS refusals name the right party. Only a refusal because of the endpoint itself (an
 * InvalidParameter that names it) is the caller's to fix: 400 ENDPOINT_REFUSED. One caused by
 * the service's own attributes, topic policy, permissions or quotas is the service's fault: 500,
 * the refusal logged as its cause, nothing left behind. Throttling stays a dependency fault (503).
 * SNS gives these refusals only on AWS, so they are injected into the functions' SNS client.
 */
import { jest } from '@jest/globals';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SetTopicAttributesCommand } from '@aws-sdk/client-sns';
import { TEST_ENV } from '../support/test-env';
import { confirmAsEndpointOwner } from '../support/sns-confirmation';

process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
delete process.env.LOG_FORMAT;
const { call, freshPortal, newSubscription } = await import('../support/api');
const { injectFault } = await import('../support/faults');
const { inspectDb, inspectSns, lastConfirmationRequestMinutesAgo, portalTopicArns, subscriptionItems } = await import('../support/aws-state');
const { snsClient } = await import('../../shared/aws/sns');

/** An error as the SDK raises it for an SNS refusal (a 4xx answer). */
function refusal(name: string, message: string, status = 400) {
  return () => Object.assign(new Error(message), { name, $fault: 'client', $metadata: { httpStatusCode: status, requestId: 'fault-injected' } });
}

/** The JSON log lines written while `act` runs. */
async function logsDuring<T>(act: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  try {
    const result = await act();
    const lines = written
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { result, lines };
  } finally {
    stdout.mockRestore();
  }
}

let removeFault: (() => void) | undefined;
afterEach(() => {
  removeFault?.();
  removeFault = undefined;
});

const ENDPOINT_REFUSALS = [
  ['Invalid parameter: Endpoint', 'https'],
  ['Invalid parameter: Endpoint Reason: Unreachable Endpoint', 'https'],
  ['Invalid parameter: Email address', 'email'],
  ['Invalid parameter: SQS endpoint ARN', 'sqs'],
  ['Invalid parameter: Lambda endpoint ARN', 'lambda'],
] as const;

const ENDPOINTS = {
  https: 'https://127.0.0.1:9/hooks',
  email: 'ops@example.com',
  sqs: 'arn:aws:sqs:us-east-1:111122223333:hooks',
  lambda: 'arn:aws:lambda:us-east-1:111122223333:function:hooks',
} as const;

const SERVICE_REFUSALS = [
  ['Subscribe', refusal('InvalidParameterException', 'Invalid parameter: RedrivePolicy: deadLetterTargetArn is an invalid arn')],
  ['Subscribe', refusal('InvalidParameterException', 'Invalid parameter: DeliveryPolicy: healthyRetryPolicy: numRetries must be at most 100')],
  ['Subscribe', refusal('InvalidParameterException', 'Invalid parameter: Attributes Reason: Subscription already exists with different attributes')],
  ['Subscribe', refusal('AuthorizationErrorException', 'User: arn:aws:sts::123456789012:assumed-role/x is not authorized to perform: SNS:Subscribe', 403)],
  ['Subscribe', refusal('SubscriptionLimitExceededException', 'Subscription limit exceeded', 403)],
  ['CreateTopic', refusal('InvalidParameterException', 'Invalid parameter: Policy Error: null')],
  ['CreateTopic', refusal('AuthorizationErrorException', 'User is not authorized to perform: SNS:CreateTopic', 403)],
  ['CreateTopic', refusal('TopicLimitExceededException', 'Topic limit exceeded', 403)],
] as const;

describe('create', () => {
  it.each(ENDPOINT_REFUSALS)('answers SNS\'s "%s" 400 ENDPOINT_REFUSED, leaving nothing', async (message, protocol) => {
    const portalId = freshPortal();
    removeFault = injectFault(snsClient, /^SubscribeCommand$/, { failWith: refusal('InvalidParameterException', message) });

    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol, endpoint: ENDPOINTS[protocol] }) });

    expect(answer.statusCode).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      code: 'ENDPOINT_REFUSED',
      message: `SNS refused the endpoint for protocol ${protocol}; check that it is a valid, reachable ${protocol} endpoint.`,
    });
    expect(await subscriptionItems(portalId)).toEqual([]);
    expect(await portalTopicArns(portalId)).toEqual([]);
  });

  it.each(SERVICE_REFUSALS.map(([action, failWith]) => [action, failWith().name, failWith().message, failWith] as const))(
    'answers a refusal of %s of the service\'s own making (%s: %s) 500, logging it as the cause, leaving nothing',
    async (action, name, message, failWith) => {
      const portalId = freshPortal();
      removeFault = injectFault(snsClient, new RegExp(`^${action}Command$`), { failWith });

      const { result: answer, lines } = await logsDuring(() => call('createSubscriptionRoute', { portalId, body: newSubscription() }));

      expect(answer.statusCode).toBe(500);
      expect(answer.body).toEqual({ success: false, code: 'INTERNAL_ERROR', message: 'The service failed to handle the request; retry it shortly.' });
      const logged = lines.find((line) => line.message === 'unexpected failure');
      expect(logged).toMatchObject({ level: 'ERROR', error: { name: 'SnsRefusedServiceError', cause: { name, message } } });
      expect(await subscriptionItems(portalId)).toEqual([]);
      expect(await portalTopicArns(portalId)).toEqual([]);
    },
  );

  it('answers throttling that outlasted the retries 503, as any dependency fault', async () => {
    removeFault = injectFault(snsClient, /^SubscribeCommand$/, { failWith: refusal('ThrottledException', 'Rate exceeded', 400) });

    const answer = await call('createSubscriptionRoute', { portalId: freshPortal(), body: newSubscription() });

    expect(answer.statusCode).toBe(503);
    expect(answer.body.code).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('confirm', () => {
  async function pendingSubscription(protocol: keyof typeof ENDPOINTS = 'https') {
    const portalId = freshPortal();
    const created = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol, endpoint: ENDPOINTS[protocol] }) });
    expect(created.body.record.subscriptionState).toBe('pending');
    const { configId, subscriptionArn } = created.body.record as { configId: string; subscriptionArn: string };
    // Create's request went out over 5 minutes ago: confirm may send another.
    await lastConfirmationRequestMinutesAgo(portalId, configId, 6);
    return { portalId, configId, subscriptionArn };
  }

  it('answers SNS\'s refusal of the endpoint 400 ENDPOINT_REFUSED, and the record is unchanged', async () => {
    const { portalId, configId, subscriptionArn } = await pendingSubscription('email');
    removeFault = injectFault(snsClient, /^SubscribeCommand$/, { failWith: refusal('InvalidParameterException', 'Invalid parameter: Email address') });

    const answer = await call('confirmSubscriptionRoute', { portalId, body: { config_id: configId } });

    expect(answer.statusCode).toBe(400);
    expect(answer.body.code).toBe('ENDPOINT_REFUSED');
    expect((await subscriptionItems(portalId))[0]).toMatchObject({ subscriptionArn });
  });

  it("answers a refusal of the service's own making 500, logging it as the cause", async () => {
    const { portalId, configId } = await pendingSubscription();
    removeFault = injectFault(snsClient, /^SubscribeCommand$/, {
      failWith: refusal('AuthorizationErrorException', 'User is not authorized to perform: SNS:Subscribe', 403),
    });

    const { result: answer, lines } = await logsDuring(() => call('confirmSubscriptionRoute', { portalId, body: { config_id: configId } }));

    expect(answer.statusCode).toBe(500);
    expect(answer.body.code).toBe('INTERNAL_ERROR');
    expect(lines.find((line) => line.message === 'unexpected failure')).toMatchObject({
      error: { name: 'SnsRefusedServiceError', cause: { name: 'AuthorizationErrorException' } },
    });
  });

  it("refuses an endpoint of the service's own account, as create does", async () => {
    const { portalId, configId } = await pendingSubscription();
    // A record from before the refusal existed, whose endpoint, a queue of the service's account,
    // has left since.
    await inspectDb.send(
      new UpdateCommand({
        TableName: TEST_ENV.TABLE_NAME,
        Key: { portalId, sk: `subscription#${configId}` },
        UpdateExpression: 'SET protocol = :protocol, endpoint = :endpoint, subscriptionArn = :gone',
        ExpressionAttributeValues: {
          ':protocol': 'sqs',
          ':endpoint': 'arn:aws:sqs:us-east-1:000000000000:webhooks-test-delivery-dead-letters',
          ':gone': 'arn:aws:sns:us-east-1:000000000000:webhooks-test-gone:0192f8a4-7b3c-7d2e-9f01-23456789abcd',
        },
      }),
    );

    const answer = await call('confirmSubscriptionRoute', { portalId, body: { config_id: configId } });

    expect(answer.statusCode).toBe(400);
    expect(answer.body.code).toBe('ENDPOINT_IN_SERVICE_ACCOUNT');
  });
});

describe('test', () => {
  it("answers a Publish the topic's policy refuses 500, logging SNS's AuthorizationError as the cause", async () => {
    const portalId = freshPortal();
    // A queue of another account, confirmed by its owner: a test event is sent only to a confirmed endpoint.
    const body = newSubscription({ protocol: 'sqs', endpoint: 'arn:aws:sqs:us-east-1:111122223333:refusals-test' });
    const { configId, topicArn, subscriptionArn } = (await call('createSubscriptionRoute', { portalId, body })).body.record;
    await confirmAsEndpointOwner(subscriptionArn);
    // A topic policy that admits no publisher at all: the service's own misconfiguration.
    const denyAll = { Version: '2012-10-17', Statement: [{ Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Resource: topicArn }] };
    await inspectSns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: JSON.stringify(denyAll) }));

    const { result: answer, lines } = await logsDuring(() => call('testSubscriptionRoute', { portalId, body: { config_id: configId } }));

    expect(answer.statusCode).toBe(500);
    expect(answer.body.code).toBe('INTERNAL_ERROR');
    expect(lines.find((line) => line.message === 'unexpected failure')).toMatchObject({
      error: { name: 'SnsRefusedServiceError', cause: { name: 'AuthorizationErrorException', message: expect.stringContaining('with an explicit deny') } },
    });
  });
});
