import { documentClient } from '../shared/aws/dynamodb';
import { refusedByService } from '../shared/aws/refusals';
import { snsClient } from '../shared/aws/sns';
import { resendMessageRequest } from '../shared/contract/request-bodies';
import { logPublished, publishToLog } from '../shared/delivery/logged-publish';
import { messageKeepDays, tableName } from '../shared/environment';
import { latestMessageOfEvent, messageLogOf } from '../shared/data/messages';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation, sendLimitPerPortal } from '../shared/http/operation';
import { resendMessageRoute } from '../shared/operations';
import { deliverableSubscription } from '../shared/subscriptions/deliverable';
import { MessageNotFoundError } from '../shared/subscriptions/errors';
import { repositoryOf } from '../shared/data/bound-operations';
import { find } from '../shared/data/subscription-reads';

const table = { db: documentClient, tableName };
const repository = repositoryOf(table, { find });
const messages = messageLogOf(table, messageKeepDays);

/**
 * Publishes a logged message again to the one subscription it was sent to, with its body byte for
 * byte (so its eventId), and logs it as a new message (docs/messages.md, "Resend"). Refused (400)
 * for a subscription not in the caller's portal, an event with no logged message, and while nothing
 * would arrive (deactivated, endpoint not confirmed).
 */
export const handler = httpOperation(resendMessageRoute, {
  portalLimit: sendLimitPerPortal,
  body: jsonInput(resendMessageRequest),
  run: async ({ portalId, body: { configId, eventId } }) => {
    const subscription = await deliverableSubscription({ repository, sns: snsClient }, portalId, configId, { activated: true });
    const original = await latestMessageOfEvent(table, portalId, configId, eventId);
    if (!original) throw new MessageNotFoundError(eventId);
    const { event, occurredAt, body } = original;
    const published = await publishToLog(snsClient, { portalId, configId, topicArn: subscription.topicArn, eventId, event, occurredAt, body }).catch(refusedByService('Publish'));
    await logPublished(messages, [published]);
    return { message: 'Message sent again.', eventId, messageId: published.messageId, sentAt: published.sentAt };
  },
});
