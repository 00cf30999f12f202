/**
 * GET /messages as a tenant reads it, against DynamoDB Local and the SNS emulator: every message
 * the dispatcher and the test operation published, newest first, with the very body the endpoint
 * received and SNS's message id; narrowed by state (`failed` matching `dead-lettered` too), kind
 * and window; paged by a cursor; what is past MESSAGE_KEEP_DAYS is not listed; another portal's
 * id is unknown, a window the wrong way round and a foreign cursor are 400.
 */
import { randomUUID } from 'node:crypto';
import { documentClient } from '../../shared/aws/dynamodb';
import { logMessages, messageAttempted, messageDeadLettered } from '../../shared/data/messages';
import { messageKeyOf } from '../../shared/data/table';
import { config } from '../../shared/environment';
import { call, freshPortal } from '../support/api';
import { sqsRecord } from '../support/portal-events';
import { CREATE, DELETED, messagesDeliveredTo, portalEvent, runBatch, subscribeQueue } from '../support/dispatcher';

const table = { db: documentClient, tableName: config.tableName };

async function list(portalId: string, query: Record<string, string>) {
  return call('listMessagesRoute', { portalId, query });
}

describe('GET /messages', () => {
  it('lists what was published, newest first, with the body the endpoint received and SNS\'s message id', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE, DELETED]);
    const events = [portalEvent(CREATE, { portalId, mediaId: 'm-1' }), portalEvent(DELETED, { portalId, mediaId: 'm-1' })];
    expect(await runBatch(events.map((event) => sqsRecord(event)))).toEqual({ batchItemFailures: [] });
    const test = await call('testSubscriptionRoute', { portalId, body: { config_id: subscription.configId } });
    expect(test.statusCode).toBe(200);

    const answer = await list(portalId, { config_id: subscription.configId });

    expect(answer.statusCode).toBe(200);
    const delivered = new Map((await messagesDeliveredTo(subscription.subscriptionArn)).map(({ messageId, body }) => [messageId, JSON.parse(body)]));
    expect(answer.body.messages).toHaveLength(3);
    for (const message of answer.body.messages) expect(message.body).toEqual(delivered.get(message.messageId));
    // Newest first: the test event was sent last.
    expect(answer.body.messages[0]).toMatchObject({ event: 'webhooks.test', messageId: test.body.messageId, status: 'pending', attempts: 0, lastAttemptAt: null, statusCode: null });
    expect(answer.body.messages.slice(1).map((message: { eventId: string }) => message.eventId).sort()).toEqual(events.map((event) => event.id).sort());
    expect(answer.body.nextCursor).toBeNull();
    // Only one kind.
    const deleted = await list(portalId, { config_id: subscription.configId, event: DELETED });
    expect(deleted.body.messages.map((message: { eventId: string }) => message.eventId)).toEqual([events[1]!.id]);
  });

  it('narrows to a state (failed matches dead-lettered) and a window, and pages by its cursor', async () => {
    const portalId = freshPortal();
    const configId = (await subscribeQueue(portalId, [CREATE])).configId;
    const at = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const messages = [50, 40, 30, 20, 10].map((minutes) => {
      const eventId = randomUUID();
      const body = JSON.stringify({ event: CREATE, portalId, configId, occurredAt: at(minutes), eventId, data: {} });
      return { portalId, configId, messageId: randomUUID(), eventId, event: CREATE, occurredAt: at(minutes), sentAt: at(minutes), body };
    });
    expect((await logMessages(table, 30, messages)).notLogged).toEqual([]);
    const owner = (index: number) => ({ portalId, sk: messageKeyOf(configId, messages[index]!.sentAt, messages[index]!.messageId) });
    await messageAttempted(table, owner(0), { status: 'delivered', at: at(49), statusCode: 200, attempts: 1 });
    await messageAttempted(table, owner(1), { status: 'failed', at: at(39), statusCode: 500, attempts: 3 });
    await messageDeadLettered(table, owner(2), at(29));

    const failed = await list(portalId, { config_id: configId, status: 'failed' });
    expect(failed.body.messages.map((message: { eventId: string; status: string }) => [message.eventId, message.status])).toEqual([
      [messages[2]!.eventId, 'dead-lettered'],
      [messages[1]!.eventId, 'failed'],
    ]);
    expect((await list(portalId, { config_id: configId, status: 'delivered' })).body.messages[0]).toMatchObject({ eventId: messages[0]!.eventId, statusCode: 200, attempts: 1 });
    expect((await list(portalId, { config_id: configId, status: 'pending' })).body.messages).toHaveLength(2);
    const window = await list(portalId, { config_id: configId, since: at(45), until: at(15) });
    expect(window.body.messages.map((message: { eventId: string }) => message.eventId)).toEqual([messages[3]!.eventId, messages[2]!.eventId, messages[1]!.eventId]);

    const seen: string[] = [];
    let cursor: string | null | undefined;
    for (let page = 0; page < 5 && cursor !== null; page++) {
      const answer = await list(portalId, { config_id: configId, limit: '2', ...(cursor ? { cursor } : {}) });
      expect(answer.statusCode).toBe(200);
      seen.push(...answer.body.messages.map((message: { eventId: string }) => message.eventId));
      cursor = answer.body.nextCursor;
    }
    expect(seen).toEqual([...messages].reverse().map((message) => message.eventId));
  });

  it('leaves out what is past MESSAGE_KEEP_DAYS', async () => {
    const portalId = freshPortal();
    const configId = (await subscribeQueue(portalId, [CREATE])).configId;
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    const body = JSON.stringify({ event: CREATE, portalId, configId, occurredAt: old, eventId: 'e-old', data: {} });
    await logMessages(table, 30, [{ portalId, configId, messageId: randomUUID(), eventId: 'e-old', event: CREATE, occurredAt: old, sentAt: old, body }]);
    expect((await list(portalId, { config_id: configId })).body.messages).toEqual([]);
  });

  it('answers 400 for another portal\'s subscription, a window the wrong way round, a bad status, and a cursor of another subscription', async () => {
    const portalId = freshPortal();
    const configId = (await subscribeQueue(portalId, [CREATE])).configId;
    const other = (await subscribeQueue(portalId, [CREATE])).configId;

    const foreign = await list(freshPortal(), { config_id: configId });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.body.code).toBe('SUBSCRIPTION_NOT_FOUND');
    const backwards = await list(portalId, { config_id: configId, since: '2026-11-24T10:00:00Z', until: '2026-11-24T09:00:00Z' });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.body.message).toMatch(/since must not be after until/);
    expect((await list(portalId, { config_id: configId, status: 'lost' })).statusCode).toBe(400);
    expect((await list(portalId, { config_id: configId, since: 'yesterday' })).statusCode).toBe(400);
    const cursorOfOther = Buffer.from(`message#${other}#2026-11-24T09:00:00.000Z#m-1`).toString('base64url');
    const crossed = await list(portalId, { config_id: configId, cursor: cursorOfOther });
    expect(crossed.statusCode).toBe(400);
    expect(crossed.body.message).toMatch(/cursor/);
  });
});
