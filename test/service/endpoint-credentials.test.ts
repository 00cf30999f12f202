/**
 * An endpoint's basic-auth password, as a client that sends one and a reader of the table would
 * look for it: never in an answer (create, its idempotent repeat, list), never in the table (the
 * record, the idempotency record), never in a log line; SNS alone holds it, and it is used:
 * confirm subscribes the endpoint with it again, the reconciler recognises the pending
 * subscription SNS lists masked, and neither ever subscribes the masked `****` as a password.
 * Userinfo over plain http is refused.
 *
 * A table and topic prefix of the suite's own, so its reconciler runs see only its records.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteTopicCommand, GetSubscriptionAttributesCommand, ListSubscriptionsByTopicCommand, SNSClient, UnsubscribeCommand } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { jest } from '@jest/globals';
import { ensureSubscriptionTable } from '../../infra/local/dynamodb/subscription-table';
import { deliveriesTo } from '../support/sns-confirmation';

const TABLE_NAME = 'webhook-subscriptions-credentials';
const TOPIC_PREFIX = 'webhooks-credentials';
process.env.TABLE_NAME = TABLE_NAME;
process.env.TOPIC_PREFIX = TOPIC_PREFIX;
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
delete process.env.LOG_FORMAT;
await ensureSubscriptionTable(new DynamoDBClient({}), TABLE_NAME);

// The functions read their environment when imported: after it is set above.
const { call, freshPortal, newSubscription } = await import('../support/api');
const { injectFault } = await import('../support/faults');
const { snsClient } = await import('../../shared/aws/sns');
// The reconciler as the reconciliation suites run it, on this suite's table and topic prefix.
const { reconcile } = await import('../support/reconciliation');

const inspectDb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const inspectSns = new SNSClient({});

const PASSWORD = 'S3cr3t-pw:with@signs';
const ENCODED_PASSWORD = encodeURIComponent(PASSWORD);
/** The endpoint as the client sends it, and as every answer must show it. */
const endpointWith = (path: string) => `https://hook-user:${ENCODED_PASSWORD}@127.0.0.1:9/${path}`;
const maskedEndpoint = (path: string) => `https://hook-user:****@127.0.0.1:9/${path}`;

/** Every item of the suite's table, as text: what anyone allowed to read the table sees. */
async function wholeTableText(): Promise<string> {
  const items: unknown[] = [];
  let startKey: Record<string, unknown> | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await inspectDb.send(new ScanCommand({ TableName: TABLE_NAME, ExclusiveStartKey: startKey }));
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
    if (!startKey) break;
  }
  return JSON.stringify(items);
}

const holdsPassword = (text: string) => text.includes(PASSWORD) || text.includes(ENCODED_PASSWORD);

/** The endpoint of every SNS subscription of the topic, as SNS lists them (passwords masked). */
async function endpointsListedOn(topicArn: string): Promise<string[]> {
  const { Subscriptions = [] } = await inspectSns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }));
  return Subscriptions.map(({ Endpoint }) => Endpoint!);
}

/** The subscription's endpoint in full, as only GetSubscriptionAttributes shows it. */
async function endpointHeldBySns(subscriptionArn: string): Promise<string> {
  return (await inspectSns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }))).Attributes!.Endpoint!;
}

async function created(portalId: string, path: string, headers: Record<string, string> = {}) {
  const answer = await call('createSubscriptionRoute', { portalId, headers, body: newSubscription({ endpoint: endpointWith(path) }) });
  expect(answer.statusCode).toBe(200);
  return answer;
}

/** What the portal's list shows of the subscription. */
async function listed(portalId: string, configId: string) {
  const answer = await call('listSubscriptionsRoute', { portalId });
  expect(answer.statusCode).toBe(200);
  return answer.body.configs.find((entry: { configId: string }) => entry.configId === configId);
}

/** Every line written to stdout/stderr while `act` runs. */
async function linesLoggedDuring(act: () => Promise<unknown>): Promise<string[]> {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await act();
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return written.join('').split('\n').filter((line) => line.trim() !== '');
}

describe('an endpoint with a password', () => {
  it('is answered, listed, replayed and stored with the password masked, while SNS holds it in full', async () => {
    const portalId = freshPortal('credentials');
    const headers = { 'idempotency-key': `credentials-${portalId}` };

    const first = await created(portalId, 'hooks', headers);
    const repeated = await created(portalId, 'hooks', headers);

    expect(first.body.record.endpoint).toBe(maskedEndpoint('hooks'));
    expect(repeated.text).toBe(first.text);
    expect((await listed(portalId, first.body.record.configId)).endpoint).toBe(maskedEndpoint('hooks'));
    for (const text of [first.text!, repeated.text!, await wholeTableText()]) expect(holdsPassword(text)).toBe(false);
    // Where it is kept, for SNS to deliver with it.
    expect(await endpointHeldBySns(first.body.record.subscriptionArn)).toBe(endpointWith('hooks'));
  });

  it('never appears in a log line, even in an SDK error that quotes it', async () => {
    const portalId = freshPortal('credentials-logs');
    const quoting = (commandName: string) =>
      Object.assign(new Error(`${commandName} failed for endpoint ${endpointWith('quoted')}`), {
        name: 'InternalFailure',
        $fault: 'server',
        $metadata: { httpStatusCode: 500 },
      });
    const lines = await linesLoggedDuring(async () => {
      const removeFault = injectFault(snsClient, /Subscribe/, { failWith: quoting });
      try {
        const failed = await call('createSubscriptionRoute', { portalId, body: newSubscription({ endpoint: endpointWith('quoted') }) });
        expect(failed.statusCode).toBe(503);
      } finally {
        removeFault();
      }
      await created(portalId, 'logged');
    });

    expect(lines.some((line) => line.includes(maskedEndpoint('quoted')))).toBe(true);
    expect(lines.filter(holdsPassword)).toEqual([]);
  });

  it('is subscribed again with its password by confirm: SNS keeps one subscription, none with ****', async () => {
    const portalId = freshPortal('credentials-confirm');
    const { record } = (await created(portalId, 'confirm')).body;
    // Create's own confirmation request is 5 minutes old, as a person waiting would find it.
    const fiveMinutesAgo = new Date(Date.now() - 5 * 60_000).toISOString();
    await DynamoDBDocumentClient.from(new DynamoDBClient({})).send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key: { portalId, sk: `subscription#${record.configId}` },
        UpdateExpression: 'SET createdAt = :at, confirmationRequestedAt = :at',
        ExpressionAttributeValues: { ':at': fiveMinutesAgo },
      }),
    );

    const confirm = await call('confirmSubscriptionRoute', { portalId, body: { config_id: record.configId } });

    expect(confirm.statusCode).toBe(200);
    expect(confirm.body.subscriptionState).toBe('pending');
    // Subscribed with the masked endpoint, SNS would hold a second subscription whose password is ****.
    expect(await endpointsListedOn(record.topicArn)).toEqual([maskedEndpoint('confirm')]);
    expect(await endpointHeldBySns(record.subscriptionArn)).toBe(endpointWith('confirm'));
    const requests = (await deliveriesTo(record.subscriptionArn)).filter((delivery) => delivery.type === 'SubscriptionConfirmation');
    expect(requests).toHaveLength(2);
  });

  it('cannot be subscribed again once SNS lost its subscription: confirm says so and subscribes nothing', async () => {
    const portalId = freshPortal('credentials-gone');
    const { record } = (await created(portalId, 'gone')).body;
    await inspectSns.send(new UnsubscribeCommand({ SubscriptionArn: record.subscriptionArn }));

    const confirm = await call('confirmSubscriptionRoute', { portalId, body: { config_id: record.configId } });

    expect(confirm.statusCode).toBe(400);
    expect(confirm.body).toEqual({
      success: false,
      code: 'ENDPOINT_CREDENTIALS_GONE',
      message: expect.stringMatching(/password.*delete the subscription and create it again/),
    });
    expect(await endpointsListedOn(record.topicArn)).toEqual([]);
  });

  it('is recognised by the reconciler as pending, and listed masked, also from a record that holds it in full (written before masking)', async () => {
    const portalId = freshPortal('credentials-reconcile');
    const masked = (await created(portalId, 'masked')).body.record;
    const legacy = (await created(portalId, 'legacy')).body.record;
    await inspectDb.send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key: { portalId, sk: `subscription#${legacy.configId}` },
        UpdateExpression: 'SET endpoint = :full',
        ExpressionAttributeValues: { ':full': endpointWith('legacy') },
      }),
    );

    const summary = await reconcile();

    expect(summary.errors).toBe(0);
    for (const [{ configId }, path] of [[masked, 'masked'], [legacy, 'legacy']] as const) {
      expect(await listed(portalId, configId)).toMatchObject({ endpoint: maskedEndpoint(path), subscriptionState: 'pending', confirmed: false });
    }
  });

  it('is not subscribed as **** when the reconciler recreates a lost topic: the record says unsubscribed', async () => {
    const portalId = freshPortal('credentials-repair');
    const { record } = (await created(portalId, 'repair')).body;
    await inspectSns.send(new DeleteTopicCommand({ TopicArn: record.topicArn }));

    const summary = await reconcile();

    expect(summary).toMatchObject({ errors: 0, recordsRepaired: 1 });
    expect(await endpointsListedOn(record.topicArn)).toEqual([]);
    expect(await listed(portalId, record.configId)).toMatchObject({ endpoint: maskedEndpoint('repair'), subscriptionState: 'unsubscribed' });
    const confirm = await call('confirmSubscriptionRoute', { portalId, body: { config_id: record.configId } });
    expect(confirm.body.code).toBe('ENDPOINT_CREDENTIALS_GONE');
  });
});

describe('userinfo over plain http', () => {
  it.each(['http://hook-user:pw@127.0.0.1:9/hooks', 'http://hook-user@127.0.0.1:9/hooks', 'HTTP://u:p@hooks.example.com/'])(
    'is refused with ENDPOINT_CREDENTIALS_OVER_HTTP, nothing made: %s',
    async (endpoint) => {
      const portalId = freshPortal('credentials-http');

      const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol: 'http', endpoint }) });

      expect(answer.statusCode).toBe(400);
      expect(answer.body).toEqual({
        success: false,
        code: 'ENDPOINT_CREDENTIALS_OVER_HTTP',
        message: 'The endpoint carries a user name or password over plain http, which would send them in clear; use an https:// endpoint.',
      });
      expect((await call('listSubscriptionsRoute', { portalId })).body.configs).toEqual([]);
    },
  );
});
