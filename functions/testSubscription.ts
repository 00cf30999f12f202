import { randomUUID } from 'node:crypto';
import { documentClient } from '../shared/aws/dynamodb';
import { refusedByService } from '../shared/aws/refusals';
import { snsClient } from '../shared/aws/sns';
import { testSubscriptionRequest } from '../shared/contract/request-bodies';
import { TEST_EVENT_KIND } from '../shared/delivery/message';
import { publishLogged } from '../shared/delivery/logged-publish';
import { messageKeepDays, tableName } from '../shared/environment';
import { messageLogOf } from '../shared/data/messages';
import { jsonInput } from '../shared/http/json-input';
import { httpOperation, sendLimitPerPortal } from '../shared/http/operation';
import { testSubscriptionRoute } from '../shared/operations';
import { deliverableSubscription } from '../shared/subscriptions/deliverable';
import { repositoryOf } from '../shared/data/bound-operations';
import { find } from '../shared/data/subscription-reads';

const repository = repositoryOf({ db: documentClient, tableName }, { find });
const messages = messageLogOf({ db: documentClient, tableName }, messageKeepDays);

/**
 * Sends one webhooks.test message to the subscription, whatever its events and status; refused
 * (400) while its endpoint has not confirmed, since nothing would arrive. A refusal
 * of the Publish (its topic policy, a missing topic) is the service's fault, not the caller's.
 */
export const handler = httpOperation(testSubscriptionRoute, {
  portalLimit: sendLimitPerPortal,
  body: jsonInput(testSubscriptionRequest),
  run: async ({ portalId, body: { configId } }) => {
    const subscription = await deliverableSubscription({ repository, sns: snsClient }, portalId, configId, { activated: false });
    const message = { event: TEST_EVENT_KIND, portalId, configId, occurredAt: new Date().toISOString(), eventId: randomUUID(), data: { name: subscription.name } };
    const { topicArn } = subscription;
    const messageId = await publishLogged({ sns: snsClient, messages }, { ...message, topicArn, body: JSON.stringify(message) }).catch(refusedByService('Publish'));
    return { message: 'Test event sent.', messageId };
  },
});
