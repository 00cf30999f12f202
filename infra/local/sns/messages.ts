/**
 * What subscribers receive, in SNS's HTTP/S JSON formats: the SubscriptionConfirmation and
 * Notification bodies, their `x-amz-sns-*` headers, and the SubscribeURL and UnsubscribeURL
 * that point back at the emulator.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { MessageType, OutgoingMessage, Publication, SubscriptionRecord, TopicRecord } from './types';

/** `endpoint` is where the emulator listens: the URLs subscribers get point back at it. */
export function subscribeUrl(endpoint: string, subscription: SubscriptionRecord): string {
  const { topicArn, token } = subscription;
  return `${endpoint}/?${new URLSearchParams({ Action: 'ConfirmSubscription', TopicArn: topicArn, Token: token })}`;
}

function unsubscribeUrl(endpoint: string, subscriptionArn: string): string {
  return `${endpoint}/?${new URLSearchParams({ Action: 'Unsubscribe', SubscriptionArn: subscriptionArn })}`;
}

/**
 * SNS signs Message, MessageId, Subject, SubscribeURL, Timestamp, Token, TopicArn and Type with
 * its private key, hashed with SHA1 (the topic's SignatureVersion 1) or SHA256 (version 2). The
 * emulator has no certificate an endpoint could check, so the field holds a digest of the same
 * string-to-sign with the version's hash: well-formed and stable, not verifiable. Endpoints must
 * not verify signatures when pointed at the emulator.
 */
function placeholderSignature(signatureVersion: string, fields: Record<string, string | undefined>): string {
  const signed = ['Message', 'MessageId', 'Subject', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const stringToSign = signed
    .filter((key) => fields[key] !== undefined)
    .map((key) => `${key}\n${fields[key]}\n`)
    .join('');
  return createHash(signatureVersion === '2' ? 'sha256' : 'sha1').update(stringToSign).digest('base64');
}

function signatureFields(endpoint: string, topic: TopicRecord, fields: Record<string, string | undefined>) {
  const signatureVersion = topic.attributes.SignatureVersion ?? '1';
  return {
    SignatureVersion: signatureVersion,
    Signature: placeholderSignature(signatureVersion, fields),
    SigningCertURL: `${endpoint}/SimpleNotificationService-emulator.pem`,
  };
}

function snsHeaders(type: MessageType, messageId: string, topicArn: string): Record<string, string> {
  return {
    'content-type': 'text/plain; charset=UTF-8',
    'user-agent': 'Amazon Simple Notification Service Agent',
    'x-amz-sns-message-type': type,
    'x-amz-sns-message-id': messageId,
    'x-amz-sns-topic-arn': topicArn,
  };
}

export function confirmationMessage(endpoint: string, topic: TopicRecord, subscription: SubscriptionRecord): OutgoingMessage {
  const messageId = randomUUID();
  const fields = {
    Type: 'SubscriptionConfirmation' as const,
    MessageId: messageId,
    Token: subscription.token,
    TopicArn: topic.arn,
    Message:
      `You have chosen to subscribe to the topic ${topic.arn}.\n` +
      'To confirm the subscription, visit the SubscribeURL included in this message.',
    SubscribeURL: subscribeUrl(endpoint, subscription),
    Timestamp: new Date().toISOString(),
  };
  return {
    type: 'SubscriptionConfirmation',
    messageId,
    body: JSON.stringify({ ...fields, ...signatureFields(endpoint, topic, fields) }, null, 2),
    headers: snsHeaders('SubscriptionConfirmation', messageId, topic.arn),
  };
}

export function notificationMessage(endpoint: string, subscription: SubscriptionRecord, publication: Publication): OutgoingMessage {
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
    ...fields,
    ...signatureFields(endpoint, topic, fields),
    UnsubscribeURL: unsubscribeUrl(endpoint, subscription.arn),
    ...(publication.attributes.length > 0 ? { MessageAttributes: attributes } : {}),
  };
  return { type: 'Notification', messageId, body: JSON.stringify(body, null, 2), headers };
}
