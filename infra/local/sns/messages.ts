/**
 * What subscribers receive, in SNS's HTTP/S JSON formats: the SubscriptionConfirmation,
 * Notification and UnsubscribeConfirmation bodies, signed as SNS signs them (signing.ts), their
 * `x-amz-sns-*` headers, and the SubscribeURL and UnsubscribeURL that point back at the emulator.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type SignedFields, signatureFields, type SigningIdentity } from './signing';
import type { DeadLetter, MessageType, OutgoingMessage, Publication, SubscriptionRecord, TopicRecord } from './types';

/** Where the emulator listens (the URLs subscribers get point back at it) and what it signs with. */
export interface MessageOrigin {
  endpoint: string;
  signing: SigningIdentity;
}

/**
 * SNS writes the ARN into the query as it is, not percent-encoded (recorded:
 * `/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:...&Token=...`). An ARN's characters and a
 * hex token need no encoding in a query, so the URL means the same either way; receivers that
 * compare it as text see what SNS sends.
 */
export function subscribeUrl(endpoint: string, subscription: Pick<SubscriptionRecord, 'topicArn' | 'token'>): string {
  return `${endpoint}/?Action=ConfirmSubscription&TopicArn=${subscription.topicArn}&Token=${subscription.token}`;
}

function unsubscribeUrl(endpoint: string, subscriptionArn: string): string {
  return `${endpoint}/?Action=Unsubscribe&SubscriptionArn=${subscriptionArn}`;
}

/** The fields followed by their signature, with the hash the topic's SignatureVersion names (1, SNS's default, or 2). */
function signed<T extends SignedFields>(origin: MessageOrigin, topic: TopicRecord, fields: T) {
  return { ...fields, ...signatureFields(origin.signing, origin.endpoint, topic.attributes.SignatureVersion ?? '1', fields) };
}

function snsHeaders(type: MessageType, messageId: string, topicArn: string): Record<string, string> {
  return {
    'content-type': 'text/plain; charset=UTF-8',
    'user-agent': 'Amazon Simple Notification Service Agent',
    // SNS offers compressed answers (recorded: `Accept-Encoding: gzip,deflate` on every delivery).
    'accept-encoding': 'gzip,deflate',
    'x-amz-sns-message-type': type,
    'x-amz-sns-message-id': messageId,
    'x-amz-sns-topic-arn': topicArn,
  };
}

export function confirmationMessage(origin: MessageOrigin, topic: TopicRecord, subscription: SubscriptionRecord): OutgoingMessage {
  const messageId = randomUUID();
  const fields = {
    Type: 'SubscriptionConfirmation' as const,
    MessageId: messageId,
    Token: subscription.token,
    TopicArn: topic.arn,
    Message:
      `You have chosen to subscribe to the topic ${topic.arn}.\n` +
      'To confirm the subscription, visit the SubscribeURL included in this message.',
    SubscribeURL: subscribeUrl(origin.endpoint, subscription),
    Timestamp: new Date().toISOString(),
  };
  return {
    type: 'SubscriptionConfirmation',
    messageId,
    body: JSON.stringify(signed(origin, topic, fields), null, 2),
    headers: snsHeaders('SubscriptionConfirmation', messageId, topic.arn),
  };
}

/** What a confirmed http/https endpoint gets once unsubscribed; its SubscribeURL is how SNS offers to undo that. */
export function unsubscribeConfirmationMessage(origin: MessageOrigin, topic: TopicRecord, subscription: SubscriptionRecord): OutgoingMessage {
  const messageId = randomUUID();
  // A new token, not the subscription's confirmation token (recorded: the two differ).
  const token = randomBytes(64).toString('hex');
  const fields = {
    Type: 'UnsubscribeConfirmation' as const,
    MessageId: messageId,
    Token: token,
    TopicArn: topic.arn,
    Message:
      `You have chosen to deactivate subscription ${subscription.arn}.\n` +
      'To cancel this operation and restore the subscription, visit the SubscribeURL included in this message.',
    SubscribeURL: subscribeUrl(origin.endpoint, { topicArn: topic.arn, token }),
    Timestamp: new Date().toISOString(),
  };
  return {
    type: 'UnsubscribeConfirmation',
    messageId,
    body: JSON.stringify(signed(origin, topic, fields), null, 2),
    headers: { ...snsHeaders('UnsubscribeConfirmation', messageId, topic.arn), 'x-amz-sns-subscription-arn': subscription.arn },
  };
}

export function notificationMessage(origin: MessageOrigin, subscription: SubscriptionRecord, publication: Publication): OutgoingMessage {
  const { topic, messageId } = publication;
  const message = publication.messageFor(subscription.protocol);
  const headers = { ...snsHeaders('Notification', messageId, topic.arn), 'x-amz-sns-subscription-arn': subscription.arn };
  if (subscription.attributes.RawMessageDelivery === 'true') {
    return { type: 'Notification', messageId, body: message, headers: { ...headers, 'x-amz-sns-rawdelivery': 'true' } };
  }
  const fields = {
    Type: 'Notification' as const,
    MessageId: messageId,
    TopicArn: topic.arn,
    // SNS leaves Subject out entirely when the publisher gave none.
    ...(publication.subject === undefined ? {} : { Subject: publication.subject }),
    Message: message,
    Timestamp: publication.timestamp,
  };
  const attributes = Object.fromEntries(
    publication.attributes.map((attribute) => [
      attribute.name,
      { Type: attribute.dataType, Value: attribute.stringValue ?? attribute.binaryValue ?? '' },
    ]),
  );
  const body = {
    ...signed(origin, topic, fields),
    UnsubscribeURL: unsubscribeUrl(origin.endpoint, subscription.arn),
    ...(publication.attributes.length > 0 ? { MessageAttributes: attributes } : {}),
  };
  return { type: 'Notification', messageId, body: JSON.stringify(body, null, 2), headers };
}

/**
 * The SQS message SNS puts in a subscription's dead-letter queue ("Amazon SNS dead-letter queues
 * (DLQs)", https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html): the message as
 * it would have been delivered (for http/https without raw delivery, the JSON notification), and
 * the message attributes RequestID, ErrorCode and ErrorMessage. SNS documents no list of their
 * values; the HTTP status of the last attempt, or the endpoint's failure to answer, stands here.
 */
export function deadLetterQueueMessageOf(letter: DeadLetter): { body: string; attributes: Record<string, string> } {
  const status = /^HTTP (\d{3})$/.exec(letter.reason)?.[1];
  return {
    body: letter.body,
    attributes: {
      RequestID: randomUUID(),
      ErrorCode: status ?? 'EndpointUnavailable',
      ErrorMessage: `Delivery failed after ${letter.attempts} attempt(s): ${letter.reason}`,
    },
  };
}
