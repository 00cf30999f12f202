/**
 * The dispatcher function as Lambda's SQS event source calls it: batches of queued EventBridge
 * events, against DynamoDB Local and the SNS emulator. Events that can never be delivered are
 * dropped without touching the rest of their batch; a Publish that fails fails only its own
 * record, which is reported (SQS partial batch response) and delivered when retried.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { handler as dispatch } from '../../functions/dispatchPortalEvents';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { call, freshPortal, newSubscription } from '../support/api';
import { serviceFault } from '../support/faults';
import { lambdaContext } from '../support/lambda-context';
import { confirmAsEndpointOwner } from '../support/sns-confirmation';

const CREATE = 'asset_bank.media.create';
const DELETED = 'asset_bank.media.deleted';

/** An EventBridge event as the rule puts it in the queue. */
function portalEvent(kind: string, detail: unknown, overrides: Record<string, unknown> = {}) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': kind,
    source: 'portal.events',
    account: '000000000000',
    time: '2026-11-23T10:15:30Z',
    region: 'us-east-1',
    resources: [],
    detail,
    ...overrides,
  };
}

function sqsRecord(body: unknown): SQSRecord {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body: text,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDAEVENTBRIDGE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:portal-events',
    awsRegion: 'us-east-1',
  };
}

async function runBatch(records: SQSRecord[]) {
  return (await dispatch({ Records: records } satisfies SQSEvent, lambdaContext('dispatchPortalEvents')))!;
}

/** A subscription to a queue of another account, confirmed by the queue's owner. */
async function subscribeQueue(portalId: string, events: string[]) {
  const created = await call('createSubscriptionRoute', {
    portalId,
    body: newSubscription({ protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:111122223333:q-${randomUUID()}`, events }),
  });
  expect(created.statusCode).toBe(200);
  await confirmAsEndpointOwner(created.body.record.subscriptionArn);
  return created.body.record as { configId: string; topicArn: string; subscriptionArn: string };
}

/** The event ids SNS handed to a subscription. */
async function eventIdsDeliveredTo(subscriptionArn: string): Promise<string[]> {
  const response = await fetch(`${process.env.AWS_ENDPOINT_URL_SNS}/_emulator/deliveries`, { signal: AbortSignal.timeout(5_000) });
  const { deliveries } = (await response.json()) as { deliveries: { subscriptionArn: string; type: string; body: string }[] };
  return deliveries
    .filter((delivery) => delivery.subscriptionArn === subscriptionArn && delivery.type === 'Notification')
    .map((delivery) => JSON.parse(JSON.parse(delivery.body).Message).eventId);
}

/** Fails Publish to one topic, `times` times; returns the function that removes the fault. */
function failPublishTo(topicArn: string, times = 1): () => void {
  const name = `fail-publish-${randomUUID()}`;
  let remaining = times;
  snsClient.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TopicArn?: string };
      if (context.commandName === 'PublishCommand' && input.TopicArn === topicArn && remaining > 0) {
        remaining--;
        throw serviceFault('PublishCommand');
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => void snsClient.middlewareStack.remove(name);
}

/** Records every AWS call the dispatcher's clients make while `run` runs: command name and topic. */
async function callsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const calls: string[] = [];
  const name = `count-calls-${randomUUID()}`;
  for (const client of [snsClient, dynamoDbClient] as const) {
    (client.middlewareStack as typeof snsClient.middlewareStack).add(
      (next, context) => async (args) => {
        const topicArn = (args.input as { TopicArn?: string }).TopicArn;
        calls.push(topicArn ? `${context.commandName} ${topicArn}` : String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name },
    );
  }
  try {
    await run();
  } finally {
    snsClient.middlewareStack.remove(name);
    dynamoDbClient.middlewareStack.remove(name);
  }
  return calls;
}

describe('a batch with events that can never be delivered', () => {
  it('drops those (reporting no failure for them) and delivers the others of the batch', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const first = portalEvent(CREATE, { portalId, mediaId: 'm-1' });
    const last = portalEvent(CREATE, { portalId, mediaId: 'm-2' });
    const unusable = [
      'not json {',
      JSON.stringify([1, 2]),
      portalEvent('asset_bank.media.unknown', { portalId }),
      portalEvent(CREATE, ['an', 'array']),
      portalEvent(CREATE, 'a string'),
      portalEvent(CREATE, null),
      portalEvent(CREATE, { mediaId: 'no portal' }),
      portalEvent(CREATE, { portalId: 42 }),
      portalEvent(CREATE, { portalId: 'bad#portal' }),
      portalEvent(CREATE, { portalId }, { source: 'someone.else' }),
      portalEvent(CREATE, { portalId }, { time: 'yesterday' }),
    ].map(sqsRecord);

    const result = await runBatch([sqsRecord(first), ...unusable, sqsRecord(last)]);

    expect(result).toEqual({ batchItemFailures: [] });
    // Records are worked on concurrently: the order of publication is not the batch's.
    expect((await eventIdsDeliveredTo(subscription.subscriptionArn)).sort()).toEqual([first.id, last.id].sort());
  });
});

describe('a Publish that fails', () => {
  it('fails only its own record, which is delivered when the queue retries it', async () => {
    const portalId = freshPortal();
    const other = freshPortal();
    const broken = await subscribeQueue(portalId, [CREATE]);
    const healthy = await subscribeQueue(portalId, [CREATE]);
    const elsewhere = await subscribeQueue(other, [DELETED]);
    const affected = sqsRecord(portalEvent(CREATE, { portalId, mediaId: 'm-1' }));
    const unaffected = sqsRecord(portalEvent(DELETED, { portalId: other, mediaId: 'm-2' }));
    const affectedId = JSON.parse(affected.body).id;

    const removeFault = failPublishTo(broken.topicArn);
    let result;
    try {
      result = await runBatch([affected, unaffected]);
    } finally {
      removeFault();
    }

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: affected.messageId }] });
    expect(await eventIdsDeliveredTo(elsewhere.subscriptionArn)).toEqual([JSON.parse(unaffected.body).id]);
    expect(await eventIdsDeliveredTo(healthy.subscriptionArn)).toEqual([affectedId]);
    expect(await eventIdsDeliveredTo(broken.subscriptionArn)).toEqual([]);

    // SQS hands the failed record back; this time SNS takes it.
    expect(await runBatch([affected])).toEqual({ batchItemFailures: [] });
    expect(await eventIdsDeliveredTo(broken.subscriptionArn)).toEqual([affectedId]);
  });

  it('reports every record of a batch that failed entirely, rather than failing the invocation', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const records = [1, 2].map((n) => sqsRecord(portalEvent(CREATE, { portalId, mediaId: `m-${n}` })));
    const removeFault = failPublishTo(subscription.topicArn, 2);
    try {
      const { batchItemFailures } = await runBatch(records);
      expect(batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(records.map((record) => record.messageId).sort());
    } finally {
      removeFault();
    }
  });
});

describe('fan-out', () => {
  it('costs one Query and one Publish per recipient for a portal of ten subscriptions', async () => {
    const portalId = freshPortal();
    const subscriptions = [];
    for (let n = 0; n < 10; n++) subscriptions.push(await subscribeQueue(portalId, n < 7 ? [CREATE] : [DELETED]));
    const event = portalEvent(CREATE, { portalId });
    const calls = await callsDuring(() => runBatch([sqsRecord(event)]));
    expect(calls[0]).toBe('QueryCommand');
    expect(calls.slice(1).sort()).toEqual(subscriptions.slice(0, 7).map((s) => `PublishCommand ${s.topicArn}`).sort());
  });

  it('publishes once per activated subscription listing the kind, and to no other', async () => {
    const portalId = freshPortal();
    const chosen = await subscribeQueue(portalId, [CREATE, DELETED]);
    const otherKind = await subscribeQueue(portalId, [DELETED]);
    const deactivated = await subscribeQueue(portalId, [CREATE]);
    expect((await call('activateSubscriptionRoute', { portalId, body: { config_id: deactivated.configId, status: 0 } })).statusCode).toBe(200);
    const event = portalEvent(CREATE, { portalId, mediaId: 'm-1' });

    const calls = await callsDuring(async () => expect(await runBatch([sqsRecord(event)])).toEqual({ batchItemFailures: [] }));

    // One Query of the portal's partition, one Publish to the one recipient's topic.
    expect(calls).toEqual(['QueryCommand', `PublishCommand ${chosen.topicArn}`]);
    expect(await eventIdsDeliveredTo(chosen.subscriptionArn)).toEqual([event.id]);
    expect(await eventIdsDeliveredTo(otherKind.subscriptionArn)).toEqual([]);
    expect(await eventIdsDeliveredTo(deactivated.subscriptionArn)).toEqual([]);
  });
});
