/**
 * POST /replay through its handler, against DynamoDB Local and the SNS emulator, with the faults
 * the emulators cannot produce: a dead letter SNS accepted but whose removal failed stays kept and
 * is sent again once its claim lapsed (at least once, same eventId); concurrent replays send each
 * dead letter once, and a claim left by a replay that crashed lapses; an Idempotency-Key makes a
 * retry answer the first answer; while SNS is down nothing is
 * removed; at most 100 go out per request, oldest first, and `remaining` says how many are left;
 * eventIds are checked.
 */
import { randomUUID } from 'node:crypto';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { call, freshPortal, newSubscription } from '../support/api';
import { inspectDb, portalItems } from '../support/aws-state';
import { TEST_ENV } from '../support/test-env';
import { deadLetterRecord, type DeadLetterTarget, publishedBody, recordBatch } from '../support/dead-letters';
import { injectFault } from '../support/faults';
import { watchPublishes } from '../support/publish-watch';
import { deliveriesTo, confirmAsEndpointOwner } from '../support/sns-confirmation';

interface Confirmed extends DeadLetterTarget {
  subscriptionArn: string;
}

/** A queue of another account, confirmed by its owner: SNS hands it what is published. */
async function confirmedSubscription(): Promise<Confirmed> {
  const portalId = freshPortal('replay');
  const body = newSubscription({ protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:111122223333:replay-${randomUUID().slice(0, 8)}` });
  const { configId, topicArn, subscriptionArn } = (await call('createSubscriptionRoute', { portalId, body })).body.record;
  await confirmAsEndpointOwner(subscriptionArn);
  return { portalId, configId, topicArn, subscriptionArn };
}

/** Keeps `count` dead letters for the subscription, a second apart, oldest first; answers their eventIds in that order. */
async function keepDeadLetters(to: Confirmed, count: number): Promise<string[]> {
  const start = Date.now() - count * 1_000 - 60_000;
  const eventIds = Array.from({ length: count }, () => randomUUID());
  const records = eventIds.map((eventId, index) => deadLetterRecord(to, { message: publishedBody(to, { eventId }), sentAt: start + index * 1_000 }));
  for (let first = 0; first < records.length; first += 10) expect(await recordBatch(records.slice(first, first + 10))).toEqual({ batchItemFailures: [] });
  return eventIds;
}

async function keptEventIds(to: Confirmed): Promise<string[]> {
  const listed = await call('listDeadLettersRoute', { portalId: to.portalId, query: { config_id: to.configId, limit: '100' } });
  expect(listed.statusCode).toBe(200);
  return listed.body.deadLetters.map((letter: { eventId: string }) => letter.eventId);
}

/** The eventIds of the notifications SNS handed to the subscription's endpoint, in order. */
async function eventIdsDelivered(to: Confirmed): Promise<string[]> {
  return (await deliveriesTo(to.subscriptionArn))
    .filter((delivery) => delivery.type === 'Notification')
    .map((delivery) => JSON.parse(JSON.parse(delivery.body).Message).eventId as string);
}

/** As if the replay that claimed the subscription's dead letters had ended a minute ago. */
async function claimLapsed(to: Confirmed): Promise<void> {
  for (const letter of (await portalItems(to.portalId)).filter((item) => String(item.sk).startsWith(`deadletter#${to.configId}#`))) {
    await inspectDb.send(
      new UpdateCommand({
        TableName: TEST_ENV.TABLE_NAME,
        Key: { portalId: to.portalId, sk: letter.sk },
        UpdateExpression: 'SET replayClaimedUntil = :lapsed',
        ExpressionAttributeValues: { ':lapsed': Date.now() - 1 },
      }),
    );
  }
}

describe('POST /replay', () => {
  it('keeps a dead letter SNS accepted but that could not be removed, and sends it again once its claim lapsed: at least once, same eventId', async () => {
    const subscription = await confirmedSubscription();
    const [eventId] = await keepDeadLetters(subscription, 1);

    const removeFault = injectFault(dynamoDbClient, /TransactWrite/);
    let first;
    try {
      first = await call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } });
    } finally {
      removeFault();
    }
    expect(first.statusCode).toBe(200);
    expect(first.body).toMatchObject({ replayed: 1, remaining: 1 });
    expect(await keptEventIds(subscription)).toEqual([eventId]);

    // Still claimed by the first replay for a minute: a replay meanwhile does not send it twice.
    const meanwhile = await call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } });
    expect(meanwhile.body).toMatchObject({ replayed: 0 });
    expect(await eventIdsDelivered(subscription)).toEqual([eventId]);

    await claimLapsed(subscription);
    const second = await call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } });
    expect(second.body).toMatchObject({ replayed: 1, remaining: 0 });
    expect(await keptEventIds(subscription)).toEqual([]);
    expect(await eventIdsDelivered(subscription)).toEqual([eventId, eventId]);
  });

  it('answers 503 while SNS is down, and keeps every dead letter', async () => {
    const subscription = await confirmedSubscription();
    const eventIds = await keepDeadLetters(subscription, 2);

    const removeFault = injectFault(snsClient, /^Publish/, { times: 2 });
    let answer;
    try {
      answer = await call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } });
    } finally {
      removeFault();
    }

    expect(answer.statusCode).toBe(503);
    expect(answer.body.code).toBe('SERVICE_UNAVAILABLE');
    expect((await keptEventIds(subscription)).sort()).toEqual([...eventIds].sort());
    expect((await call('listSubscriptionsRoute', { portalId: subscription.portalId })).body.configs[0].deadLetters).toBe(2);
  });

  it('sends at most 100 per request, oldest first, and says how many remain', async () => {
    const subscription = await confirmedSubscription();
    const eventIds = await keepDeadLetters(subscription, 103);

    const first = await call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } });

    expect(first.body).toEqual({
      success: true,
      message: '100 dead letters sent again. 3 still kept; call again to send the next ones.',
      replayed: 100,
      remaining: 3,
    });
    expect((await keptEventIds(subscription)).sort()).toEqual(eventIds.slice(100).sort());
    expect((await eventIdsDelivered(subscription)).sort()).toEqual(eventIds.slice(0, 100).sort());
    const second = await call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } });
    expect(second.body).toMatchObject({ replayed: 3, remaining: 0 });
    expect((await call('listSubscriptionsRoute', { portalId: subscription.portalId })).body.configs[0]).toMatchObject({ deadLetters: 0 });
    // Each message sent again is in the message log once, with the dead letter's body (its eventId),
    // beside its original, which reads dead-lettered.
    const logged: { eventId: string; status: string }[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const answer = await call('listMessagesRoute', { portalId: subscription.portalId, query: { config_id: subscription.configId, limit: '100', ...(cursor && { cursor }) } });
      logged.push(...answer.body.messages.map((message: { status: string; body: { eventId: string } }) => ({ eventId: message.body.eventId, status: message.status })));
      cursor = answer.body.nextCursor ?? undefined;
      if (!cursor) break;
    }
    const originals = logged.filter(({ status }) => status === 'dead-lettered').map(({ eventId }) => eventId);
    const sentAgain = logged.filter(({ status }) => status !== 'dead-lettered').map(({ eventId }) => eventId);
    expect(originals.sort()).toEqual([...eventIds].sort());
    expect(sentAgain.sort()).toEqual([...eventIds].sort());
  }, 60_000);

  it('refuses eventIds that are empty, too many, repeated or not strings, saying which', async () => {
    const subscription = await confirmedSubscription();
    const refusal = async (eventIds: unknown) =>
      (await call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId, eventIds } })).body.message;

    expect(await refusal([])).toBe('eventIds must list at least one event id (leave it out to send every dead letter again).');
    expect(await refusal(Array.from({ length: 101 }, (_, index) => `e-${index}`))).toBe('eventIds must list at most 100 event ids.');
    expect(await refusal(['a', 'a'])).toBe('eventIds must not list an event id twice.');
    expect(await refusal([7])).toBe('eventIds[0] must hold event ids: strings of 1 to 256 characters.');
    expect(await refusal('a')).toBe('eventIds must be an array of event ids.');
  });

  it('answers an unknown or another portal\'s subscription 400, as every operation does', async () => {
    const subscription = await confirmedSubscription();

    const foreign = await call('replayDeadLettersRoute', { portalId: freshPortal(), body: { config_id: subscription.configId } });
    const listedForeign = await call('listDeadLettersRoute', { portalId: freshPortal(), query: { config_id: subscription.configId } });

    expect([foreign.statusCode, foreign.body.code]).toEqual([400, 'SUBSCRIPTION_NOT_FOUND']);
    expect([listedForeign.statusCode, listedForeign.body.code]).toEqual([400, 'SUBSCRIPTION_NOT_FOUND']);
  });

  it('sends each dead letter once when five replays of the same subscription run at once', async () => {
    const subscription = await confirmedSubscription();
    const eventIds = await keepDeadLetters(subscription, 40);

    const publishes = watchPublishes(snsClient);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } })),
    );
    publishes.stop();

    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200]);
    // They shared the work: together they sent each letter once, SNS accepting one Publish for it.
    expect(answers.reduce((sum, answer) => sum + answer.body.replayed, 0)).toBe(40);
    expect([...publishes.byEventId.keys()].sort()).toEqual([...eventIds].sort());
    for (const [eventId, { answered }] of publishes.byEventId) expect([eventId, answered]).toEqual([eventId, 1]);
    // Each arrived; twice only where the SDK sent its Publish again after a late answer (at least once).
    const delivered = await eventIdsDelivered(subscription);
    expect([...new Set(delivered)].sort()).toEqual([...eventIds].sort());
    for (const eventId of eventIds) expect(delivered.filter((id) => id === eventId).length).toBeLessThanOrEqual(publishes.byEventId.get(eventId)!.attempts);
    expect(await keptEventIds(subscription)).toEqual([]);
  }, 60_000);

  it('leaves a dead letter another replay claimed to it, and sends it once that claim lapsed (its replay crashed)', async () => {
    const subscription = await confirmedSubscription();
    const [eventId] = await keepDeadLetters(subscription, 1);
    const [letter] = (await portalItems(subscription.portalId)).filter((item) => String(item.sk).startsWith('deadletter#'));
    const claimedUntil = async (until: number) =>
      inspectDb.send(
        new UpdateCommand({
          TableName: TEST_ENV.TABLE_NAME,
          Key: { portalId: subscription.portalId, sk: letter!.sk },
          UpdateExpression: 'SET replayClaimedUntil = :until, replayClaimedBy = :by',
          ExpressionAttributeValues: { ':until': until, ':by': 'a replay that crashed' },
        }),
      );
    await claimedUntil(Date.now() + 60_000);

    const whileClaimed = await call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } });
    expect(whileClaimed.body).toEqual({
      success: true,
      message: '0 dead letters sent again. 1 was being sent by another replay request at the same time.',
      replayed: 0,
      remaining: 0,
    });
    expect(await eventIdsDelivered(subscription)).toEqual([]);

    await claimedUntil(Date.now() - 1);
    const lapsed = await call('replayDeadLettersRoute', { portalId: subscription.portalId, body: { config_id: subscription.configId } });
    expect(lapsed.body).toMatchObject({ replayed: 1, remaining: 0 });
    expect(await eventIdsDelivered(subscription)).toEqual([eventId]);
  });

  it('answers a retry with the same Idempotency-Key with the first answer, and sends nothing again', async () => {
    const subscription = await confirmedSubscription();
    const [first] = await keepDeadLetters(subscription, 1);
    const request = { portalId: subscription.portalId, body: { config_id: subscription.configId }, headers: { 'idempotency-key': randomUUID() } };

    const answer = await call('replayDeadLettersRoute', request);
    expect(answer.body).toMatchObject({ replayed: 1, remaining: 0 });
    // A new dead letter meanwhile: a retry of the first request must not send it.
    const [second] = await keepDeadLetters(subscription, 1);

    const retry = await call('replayDeadLettersRoute', request);

    expect(retry.statusCode).toBe(200);
    expect(retry.text).toBe(answer.text);
    expect(await eventIdsDelivered(subscription)).toEqual([first]);
    expect(await keptEventIds(subscription)).toEqual([second]);
  });
});
