/**
 * Dependency outages, over HTTP against the local stack: with DynamoDB or SNS down, slow or
 * failing, every operation that needs it answers 5xx with the error envelope (before the
 * function's timeout, or the gateway would answer its own 500), a Retry-After header and no
 * internals; once the dependency is back, the table and SNS agree and retrying the failed
 * requests completes them.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { GetSubscriptionAttributesCommand, ListSubscriptionsCommand, ListTopicsCommand, SNSClient } from '@aws-sdk/client-sns';
import { type FaultMode, type FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { type Answer, call, lastConfirmationRequestsMinutesAgo, newSubscription, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { confirmAsEndpointOwner } from '../support/sns-confirmation';

const API = '/v7/webhooks/public/api/subscriptions';
const proxies: { dynamoDb?: FaultProxy; sns?: FaultProxy } = {};
let test: TestStack;
let token: string;

beforeAll(async () => {
  // Every case creates its subscriptions from one portal, past what a person sends in a minute:
  // the per-portal limit is raised for it (test/service/rate-limits.test.ts tests the limit).
  Object.assign(process.env, {
    PORTAL_SEND_BURST: '100000',
    PORTAL_SEND_RATE_PER_MINUTE: '600000',
    PORTAL_CHANGE_BURST: '100000',
    PORTAL_CHANGE_RATE_PER_MINUTE: '60',
    PORTAL_READ_BURST: '100000',
    PORTAL_READ_RATE_PER_MINUTE: '60',
  });
  test = await startTestStack({
    handlerEndpoints: async (emulators) => {
      proxies.dynamoDb = await startFaultProxy(emulators.dynamoDb, 'dynamodb');
      proxies.sns = await startFaultProxy(emulators.sns, 'sns');
      return { dynamoDb: proxies.dynamoDb.endpoint, sns: proxies.sns.endpoint };
    },
  });
  token = await tokenFor(test.stack, TEST_CLIENTS.alphaAdmin);
}, 60_000);

afterAll(async () => {
  await test?.stop();
  await Promise.all([proxies.dynamoDb?.close(), proxies.sns?.close()]);
});

/** What DynamoDB and SNS hold, read straight from the emulators (not through the proxies). */
async function serviceState() {
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: test.stack.dynamoDb.endpoint, region: test.stack.region, credentials }),
  );
  const sns = new SNSClient({ endpoint: test.stack.sns.endpoint, region: test.stack.region, credentials });
  try {
    const { Items = [] } = await db.send(new ScanCommand({ TableName: test.stack.tableName, ConsistentRead: true }));
    const { Topics = [] } = await sns.send(new ListTopicsCommand({}));
    const { Subscriptions = [] } = await sns.send(new ListSubscriptionsCommand({}));
    const records = Items.filter((item) => String(item.sk).startsWith('subscription#'));
    const filters = await Promise.all(
      records.map(async (record) => {
        const { Attributes } = await sns
          .send(new GetSubscriptionAttributesCommand({ SubscriptionArn: record.subscriptionArn as string }))
          .catch(() => ({ Attributes: undefined }));
        return { configId: record.configId, inSns: Attributes?.FilterPolicy };
      }),
    );
    const counter = Items.find((item) => item.sk === 'portal')?.subscriptionCount ?? 0;
    return {
      records,
      counter,
      topics: Topics.map((topic) => topic.TopicArn!).sort(),
      subscribedTopics: Subscriptions.map((subscription) => subscription.TopicArn!).sort(),
      filters,
    };
  } finally {
    db.destroy();
    sns.destroy();
  }
}

/**
 * Table and SNS agree: every record has its topic and SNS subscription, every topic its
 * record. A record whose delete failed half-way (`pendingDelete`) may have lost its topic
 * already: the state that repeating the delete completes.
 */
async function expectAgreement({ pendingDelete }: { pendingDelete?: string } = {}) {
  const state = await serviceState();
  const recordTopics = state.records
    .filter((record) => !(record.configId === pendingDelete && !state.topics.includes(record.topicArn as string)))
    .map((record) => record.topicArn as string)
    .sort();
  expect(state.topics).toEqual(recordTopics);
  expect(state.subscribedTopics).toEqual(state.topics);
  expect(state.counter).toBe(state.records.length);
  return state;
}

/** No SNS subscription filters: the dispatcher's selection from the records is the one rule. */
function expectNoFilters(state: Awaited<ReturnType<typeof serviceState>>) {
  for (const { configId, inSns } of state.filters) expect({ configId, filter: inSns }).toEqual({ configId, filter: undefined });
}

async function create(name: string): Promise<string> {
  const answer = await call(test.stack, 'POST', API, { token, body: newSubscription({ name }) });
  expect(answer.status).toBe(200);
  return answer.body.record.configId as string;
}

/** A subscription whose endpoint (another account's queue) its owner confirmed: test and replay are sent only to such. */
async function createConfirmed(name: string): Promise<string> {
  const endpoint = `arn:aws:sqs:us-east-1:111122223333:outage-${Math.random().toString(36).slice(2, 8)}`;
  const answer = await call(test.stack, 'POST', API, { token, body: newSubscription({ name, protocol: 'sqs', endpoint }) });
  expect(answer.status).toBe(200);
  await confirmAsEndpointOwner(answer.body.record.subscriptionArn, test.stack.sns.endpoint);
  return answer.body.record.configId as string;
}

type Dependency = 'dynamoDb' | 'sns';

/**
 * The operations, each against a subscription of its own where it needs one. Update, activate
 * and rename only write the record; list asks SNS the state of each subscription not known to be
 * confirmed (these are pending), confirm asks the (pending) endpoint to confirm again; test and
 * replay ask SNS whether the endpoint of `confirmed` confirmed, then publish (replay: what is
 * kept, here nothing); dead-letters reads the record and its dead letters.
 */
function operations(target: string, doomed: string, confirmed: string) {
  return [
    { name: 'create', needs: ['dynamoDb', 'sns'], send: () => call(test.stack, 'POST', API, { token, body: newSubscription({ name: 'during outage' }) }) },
    { name: 'update', needs: ['dynamoDb'], send: () => call(test.stack, 'PUT', API, { token, body: { config_id: target, events: ['antivirus.scan.failed'] } }) },
    { name: 'activate', needs: ['dynamoDb'], send: () => call(test.stack, 'PUT', `${API}/activate`, { token, body: { config_id: target, status: 0 } }) },
    { name: 'list', needs: ['dynamoDb', 'sns'], send: () => call(test.stack, 'GET', `${API}/list`, { token }) },
    { name: 'rename', needs: ['dynamoDb'], send: () => call(test.stack, 'PUT', `${API}/rename`, { token, body: { config_id: target, name: 'renamed in outage' } }) },
    { name: 'delete', needs: ['dynamoDb', 'sns'], send: () => call(test.stack, 'DELETE', `${API}/${doomed}`, { token }) },
    { name: 'test', needs: ['dynamoDb', 'sns'], send: () => call(test.stack, 'POST', `${API}/test`, { token, body: { config_id: confirmed } }) },
    {
      name: 'dead-letters',
      needs: ['dynamoDb'],
      send: () => call(test.stack, 'GET', `${API}/dead-letters?config_id=${target}`, { token }),
    },
    { name: 'replay', needs: ['dynamoDb', 'sns'], send: () => call(test.stack, 'POST', `${API}/replay`, { token, body: { config_id: confirmed } }) },
    { name: 'confirm', needs: ['dynamoDb', 'sns'], send: () => call(test.stack, 'POST', `${API}/confirm`, { token, body: { config_id: target } }) },
  ] as const satisfies readonly { name: string; needs: readonly Dependency[]; send: () => Promise<Answer> }[];
}

describe('with DynamoDB slow on transactions only', () => {
  it('create and delete look their record up after the lost answer and succeed', async () => {
    const target = await create('target');
    const doomed = await create('doomed');
    const confirmed = await createConfirmed('confirmed');
    const ops = operations(target, doomed, confirmed);
    // Create's own confirmation requests are minutes old, as a person asking again would find them.
    await lastConfirmationRequestsMinutesAgo(test.stack, TEST_CLIENTS.alphaAdmin.portalId, 6);

    proxies.dynamoDb!.mode = 'slowTransactions';
    let answers: Answer[];
    try {
      answers = await Promise.all(ops.map((op) => op.send()));
    } finally {
      proxies.dynamoDb!.mode = 'pass';
    }

    expect(answers.map((answer) => answer.status)).toEqual(ops.map(() => 200));
    const state = await expectAgreement();
    expect(state.records.map((record) => record.configId)).not.toContain(doomed);
    for (const record of state.records) {
      expect((await call(test.stack, 'DELETE', `${API}/${record.configId}`, { token })).status).toBe(200);
    }
  }, 60_000);
});

describe.each<[Dependency, FaultMode]>([
  ['dynamoDb', 'down'],
  ['dynamoDb', 'error'],
  ['dynamoDb', 'slow'],
  ['sns', 'down'],
  ['sns', 'error'],
  ['sns', 'slow'],
])('with %s %s', (dependency, mode) => {
  it('operations that need it answer 5xx with the envelope; once it is back, state agrees and retries complete', async () => {
    const target = await create('target');
    const doomed = await create('doomed');
    const confirmed = await createConfirmed('confirmed');
    const ops = operations(target, doomed, confirmed);
    // Create's own confirmation requests are minutes old, as a person asking again would find them.
    await lastConfirmationRequestsMinutesAgo(test.stack, TEST_CLIENTS.alphaAdmin.portalId, 6);
    const before = await expectAgreement();

    proxies[dependency]!.mode = mode;
    let answers: Answer[];
    try {
      answers = await Promise.all(ops.map((op) => op.send()));
    } finally {
      proxies[dependency]!.mode = 'pass';
    }

    const failed = ops.filter((op) => (op.needs as readonly Dependency[]).includes(dependency));
    expect(answers.map((answer) => answer.status)).toEqual(ops.map((op) => (failed.includes(op) ? 503 : 200)));
    ops.forEach((op, i) => {
      const answer = answers[i]!;
      if (!failed.includes(op)) {
        expect({ op: op.name, status: answer.status }).toEqual({ op: op.name, status: 200 });
        return;
      }
      expect({ op: op.name, status: answer.status }).toEqual({ op: op.name, status: 503 });
      expect(answer.body).toEqual({ success: false, message: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
      // docs/api.md: a 503 says when to try again.
      expect({ op: op.name, retryAfter: answer.headers.get('retry-after') }).toEqual({ op: op.name, retryAfter: '2' });
      expect(answer.body.message).not.toMatch(/arn:|Exception|InternalError|ECONN|timed out|DynamoDB|SNS|\bat \S+ \(/);
    });

    // Back up: the table and SNS agree, and nothing a failed request touched changed half-way.
    const after = await expectAgreement({ pendingDelete: doomed });
    // Down or failing, nothing was written; slow, writes took effect though their answers were
    // lost, and the retries below complete them.
    if (dependency === 'dynamoDb' && mode !== 'slow') expect(after.records).toEqual(before.records);

    for (const op of failed) {
      const retry = await op.send();
      expect({ op: op.name, retry: retry.status }).toEqual({ op: op.name, retry: 200 });
    }
    const final = await expectAgreement();
    expect(final.records.map((record) => record.configId)).not.toContain(doomed);
    expectNoFilters(final);

    // Leave room under the portal's limit for the next case.
    for (const record of final.records) {
      expect((await call(test.stack, 'DELETE', `${API}/${record.configId}`, { token })).status).toBe(200);
    }
  }, 60_000);
});
