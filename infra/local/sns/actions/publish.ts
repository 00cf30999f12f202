/**
 * Publish: checks the message as SNS does, and the sender against the topic's access policy
 * (topic-policy.ts), and hands it to every confirmed subscription whose filter policy lets it
 * through.
 */
import { randomUUID } from 'node:crypto';
import { invalidParameter } from '../errors';
import { isPlainObject, passesFilter } from '../filter-policy';
import { notificationMessage } from '../messages';
import { el, type QueryParams } from '../query-protocol';
import type { MessageAttribute, Publication } from '../types';
import { localPrincipalArn } from '../../../aws/local-account';
import { authorizationError, explicitlyDenied } from '../topic-policy';
import type { Handler } from './handler';

/**
 * SNS's limit for a message with its attributes, each counted as its name, data type and value
 * (SNS API Reference, "MessageAttributeValue"): 256 KiB, the default MaximumMessageSize.
 */
const MAX_MESSAGE_BYTES = 256 * 1024;
const MAX_MESSAGE_ATTRIBUTES = 10;

function messageAttributesFrom(params: QueryParams): MessageAttribute[] {
  const entries = params.indexed('MessageAttributes.entry');
  if (entries.length > MAX_MESSAGE_ATTRIBUTES) {
    throw invalidParameter(`MessageAttributes Reason: at most ${MAX_MESSAGE_ATTRIBUTES} attributes`);
  }
  return entries.map((entry) => {
    const name = entry.Name ?? '';
    const dataType = entry['Value.DataType'] ?? '';
    if (!/^[A-Za-z0-9_.-]{1,256}$/.test(name)) throw invalidParameter(`MessageAttributes Reason: invalid name ${name}`);
    if (!/^(?:String|Number|Binary)(?:\..+)?$/.test(dataType)) {
      throw invalidParameter(`The message attribute '${name}' has an invalid message attribute type`);
    }
    const stringValue = entry['Value.StringValue'];
    const binaryValue = entry['Value.BinaryValue'];
    if (stringValue === undefined && binaryValue === undefined) {
      throw invalidParameter(`The message attribute '${name}' must contain non-empty message attribute value`);
    }
    return { name, dataType, stringValue, binaryValue };
  });
}

function attributeBytes({ name, dataType, stringValue, binaryValue }: MessageAttribute): number {
  const value = stringValue !== undefined ? Buffer.byteLength(stringValue) : Buffer.from(binaryValue ?? '', 'base64').length;
  return Buffer.byteLength(name) + Buffer.byteLength(dataType) + value;
}

/** With MessageStructure=json the message is an object of texts per protocol, with a required default. */
function messageChooser(message: string, structure: string | undefined): (protocol: string) => string {
  if (structure === undefined || structure === '') return () => message;
  if (structure !== 'json') throw invalidParameter('MessageStructure');
  let perProtocol: unknown;
  try {
    perProtocol = JSON.parse(message);
  } catch {
    throw invalidParameter('Message Structure - JSON message body failed to parse');
  }
  if (!isPlainObject(perProtocol) || typeof perProtocol.default !== 'string') {
    throw invalidParameter('Message Structure - No default entry in JSON message body');
  }
  const texts = perProtocol;
  return (protocol) => {
    const text = Object.hasOwn(texts, protocol) ? texts[protocol] : undefined;
    return typeof text === 'string' ? text : String(texts.default);
  };
}

export const publish: Handler = (sns, params, request) => {
  // TargetArn is for platform endpoints in SNS; here only topics exist to publish to.
  const topicArn = params.get('TopicArn') || params.get('TargetArn');
  if (!topicArn) throw invalidParameter('TopicArn or TargetArn Reason: no value for required parameter');
  const message = params.get('Message') ?? '';
  if (message === '') throw invalidParameter('Empty message');
  const attributes = messageAttributesFrom(params);
  const size = Buffer.byteLength(message) + attributes.reduce((sum, attribute) => sum + attributeBytes(attribute), 0);
  if (size > MAX_MESSAGE_BYTES) throw invalidParameter('Message too long');
  const subject = params.get('Subject');
  if (subject !== undefined && (subject.length < 1 || subject.length > 100 || /[\u0000-\u001f]/.test(subject))) {
    throw invalidParameter('Subject');
  }
  const messageFor = messageChooser(message, params.get('MessageStructure'));
  const messageId = randomUUID();

  const topic = sns.topic(topicArn);
  if (topic.attributes.Policy) {
    const { accountId } = sns.settings;
    const check = {
      principalArn: localPrincipalArn(request.accessKeyId ?? '', accountId),
      principalAccount: accountId,
      action: 'sns:Publish',
      resource: topic.arn,
    };
    if (explicitlyDenied(topic.attributes.Policy, check)) throw authorizationError(check);
  }
  const fifo = topic.attributes.FifoTopic === 'true';
  if (fifo && !params.get('MessageGroupId')) throw invalidParameter('The MessageGroupId parameter is required for FIFO topics');
  if (fifo && !params.get('MessageDeduplicationId') && topic.attributes.ContentBasedDeduplication !== 'true') {
    throw invalidParameter('MessageDeduplicationId Reason: required unless the topic has ContentBasedDeduplication');
  }
  const publication: Publication = { topic, messageId, messageFor, subject, attributes, timestamp: new Date().toISOString() };
  for (const subscription of sns.subscriptionsOf(topic.arn)) {
    // Unconfirmed subscriptions get nothing until they confirm: SNS does not queue for them.
    if (subscription.pendingConfirmation || !passesFilter(subscription, publication)) continue;
    sns.deliver(subscription, notificationMessage(sns.origin, subscription, publication));
  }
  return [el('MessageId', messageId), ...(fifo ? [el('SequenceNumber', sns.nextFifoSequenceNumber())] : [])];
};
