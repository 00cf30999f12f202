/**
 * POST /resend as a tenant uses it, against DynamoDB Local and the SNS emulator: a logged message
 * published again to its subscription alone, byte for byte (its eventId unchanged), logged as a new
 * message under the SNS message id and time the answer names; 400 for another portal's
 * subscription, an event with no logged message and one past MESSAGE_KEEP_DAYS.
 */
import { randomUUID } from 'node:crypto';
import { documentClient } from '../../shared/aws/dynamodb';
import { logMessages } from '../../shared/data/messages';
import { config } from '../../shared/environment';
import { call, freshPortal } from '../support/api';
import { sqsRecord } from '../support/portal-events';
import { CREATE, messagesDeliveredTo, portalEvent, runBatch, subscribeQueue } from '../support/dispatcher';

const table = { db: documentClient, tableName: config.tableName };

describe('POST /resend', () => {
  it('publishes the message again to that subscription only, with its body and eventId, and logs it as the answer names it', async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const bystander = await subscribeQueue(portalId, [CREATE]);
    const event = portalEvent(CREATE, { portalId, mediaId: 'm-resent' });
    expect(await runBatch([sqsRecord(event)])).toEqual({ batchItemFailures: [] });
    const [first] = await messagesDeliveredTo(subscription.subscriptionArn);
    expect(await messagesDeliveredTo(bystander.subscriptionArn)).toHaveLength(1);

    const answer = await call('resendMessageRoute', { portalId, body: { config_id: subscription.configId, event_id: event.id } });

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({ success: true, message: 'Message sent again.', eventId: event.id, messageId: expect.any(String), sentAt: expect.any(String) });
    const delivered = await messagesDeliveredTo(subscription.subscriptionArn);
    expect(delivered).toHaveLength(2);
    const again = delivered.find(({ messageId }) => messageId === answer.body.messageId)!;
    expect(again.body).toBe(first!.body);
    expect(JSON.parse(again.body).eventId).toBe(event.id);
    // The other subscription of the portal, which got the event too, gets nothing more.
    expect(await messagesDeliveredTo(bystander.subscriptionArn)).toHaveLength(1);
    const listed = await call('listMessagesRoute', { portalId, query: { config_id: subscription.configId } });
    expect(listed.body.messages.map((message: { eventId: string; messageId: string; sentAt: string }) => [message.eventId, message.messageId, message.sentAt])).toEqual([
      [event.id, answer.body.messageId, answer.body.sentAt],
      [event.id, first!.messageId, expect.any(String)],
    ]);
  });

  it("answers 400 for another portal's subscription, an event never sent to it, and one past MESSAGE_KEEP_DAYS; nothing is sent", async () => {
    const portalId = freshPortal();
    const subscription = await subscribeQueue(portalId, [CREATE]);
    const { configId } = subscription;
    const event = portalEvent(CREATE, { portalId, mediaId: 'm-1' });
    expect(await runBatch([sqsRecord(event)])).toEqual({ batchItemFailures: [] });
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    const oldBody = JSON.stringify({ event: CREATE, portalId, configId, occurredAt: old, eventId: 'e-old', data: {} });
    await logMessages(table, 30, [{ portalId, configId, messageId: randomUUID(), eventId: 'e-old', event: CREATE, occurredAt: old, sentAt: old, body: oldBody }]);

    const foreign = await call('resendMessageRoute', { portalId: freshPortal(), body: { config_id: configId, event_id: event.id } });
    const unknown = await call('resendMessageRoute', { portalId, body: { config_id: configId, event_id: randomUUID() } });
    const expired = await call('resendMessageRoute', { portalId, body: { config_id: configId, event_id: 'e-old' } });
    const missing = await call('resendMessageRoute', { portalId, body: { config_id: configId } });

    expect([foreign.statusCode, foreign.body.code]).toEqual([400, 'SUBSCRIPTION_NOT_FOUND']);
    expect([unknown.statusCode, unknown.body.code]).toEqual([400, 'MESSAGE_NOT_FOUND']);
    expect([expired.statusCode, expired.body.code]).toEqual([400, 'MESSAGE_NOT_FOUND']);
    expect([missing.statusCode, missing.body.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(await messagesDeliveredTo(subscription.subscriptionArn)).toHaveLength(1);
  });
});
