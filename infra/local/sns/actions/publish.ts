/**
 * Publish and PublishBatch: check each message as SNS does, and the sender against the topic's
 * access policy (topic-policy.ts), and hand it to every confirmed subscription whose filter
 * policy lets it through.
 */
import { randomUUID } from 'node:crypto';
import { invalidParameter, parameterValueInvalid, SnsError, validationError } from '../errors';
import { isPlainObject, passesFilter } from '../filter-policy';
import { notificationMessage } from '../messages';
import { el, QueryParams } from '../query-protocol';
import type { SnsBackend } from '../state';
import type { MessageAttribute, Publication, TopicRecord } from '../types';
import { localPrincipalArn } from '../../../aws/local-account';
import { authorizationError, explicitlyDenied } from '../topic-policy';
import type { Handler, RequestFacts } from './handler';

/**
 * SNS's limit for a message with its attributes, each counted as its name, data type and value
 * (SNS API Reference, "MessageAttributeValue"): 256 KiB, the default MaximumMessageSize.
 */
const MAX_MESSAGE_BYTES = 256 * 1024;
const MAX_MESSAGE_ATTRIBUTES = 10;

/**
 * Message attributes checked as SNS checks them, with its codes and texts (recorded:
 * test_empty_or_wrong_message_attributes of localstack/localstack). `at` is where the model's
 * check names a missing data type: `messageAttributes` for Publish,
 * `publishBatchRequestEntries.N.member.messageAttributes` for entry N of a PublishBatch.
 */
function messageAttributesFrom(params: QueryParams, at: string): MessageAttribute[] {
  const entries = params.indexed('MessageAttributes.entry');
  if (entries.length > MAX_MESSAGE_ATTRIBUTES) {
    throw invalidParameter(`MessageAttributes Reason: at most ${MAX_MESSAGE_ATTRIBUTES} attributes`);
  }
  return entries.map((entry) => {
    const name = entry.Name ?? '';
    const dataType = entry['Value.DataType'];
    if (dataType === undefined) {
      throw validationError(
        `1 validation error detected: Value null at '${at}.${name}.member.dataType' failed to satisfy constraint: Member must not be null`,
      );
    }
    checkAttributeName(name);
    const kind = /^(String|Number|Binary)(?:\..+)?$/.exec(dataType)?.[1];
    if (!kind) {
      throw parameterValueInvalid(
        `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`,
      );
    }
    const stringValue = entry['Value.StringValue'];
    const binaryValue = entry['Value.BinaryValue'];
    const field = kind === 'Binary' ? 'Binary' : 'String';
    const value = field === 'Binary' ? binaryValue : stringValue;
    const other = field === 'Binary' ? stringValue : binaryValue;
    if (value === undefined && other !== undefined) {
      throw parameterValueInvalid(`The message attribute '${name}' with type '${kind}' must use field '${field}'.`);
    }
    if (value === undefined || value === '') {
      throw parameterValueInvalid(`The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${kind}'.`);
    }
    return { name, dataType, stringValue: field === 'String' ? value : undefined, binaryValue: field === 'Binary' ? value : undefined };
  });
}

/** A message attribute's name as SNS allows it: up to 256 bytes of letters, digits, `-`, `_` and single inner dots. */
function checkAttributeName(name: string): void {
  if (Buffer.byteLength(name) > 256) throw parameterValueInvalid('Length of message attribute name must be less than 256 bytes.');
  const invalid = /[^A-Za-z0-9_.-]/u.exec(name)?.[0];
  if (invalid !== undefined) {
    const code = invalid.codePointAt(0)!.toString(16).toUpperCase();
    throw parameterValueInvalid(
      `Invalid non-alphanumeric character '#x${code}' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots.`,
    );
  }
  if (name.startsWith('.')) throw parameterValueInvalid("Invalid message attribute name starting with character '.' was found.");
  if (name.endsWith('.')) throw parameterValueInvalid("Invalid message attribute name ending with character '.' was found.");
  if (name.includes('..')) throw parameterValueInvalid("Message attribute name can not have successive '.' character.");
  if (name === '') throw parameterValueInvalid('The message attribute name must not be empty.');
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

/** What one message is, checked as SNS checks a Publish (or one entry of a PublishBatch). */
interface CheckedMessage {
  messageFor: (protocol: string) => string;
  subject: string | undefined;
  attributes: MessageAttribute[];
  /** The bytes SNS counts against its limit: the body and every attribute. */
  size: number;
  messageGroupId: string | undefined;
  messageDeduplicationId: string | undefined;
}

/** One message's parameters: Publish's own, or one entry's of a PublishBatch (named as Publish's). */
function checkedMessage(params: QueryParams, attributesAt = 'messageAttributes'): CheckedMessage {
  const message = params.get('Message') ?? '';
  if (message === '') throw invalidParameter('Empty message');
  const attributes = messageAttributesFrom(params, attributesAt);
  const size = Buffer.byteLength(message) + attributes.reduce((sum, attribute) => sum + attributeBytes(attribute), 0);
  if (size > MAX_MESSAGE_BYTES) throw invalidParameter('Message too long');
  const subject = params.get('Subject');
  if (subject !== undefined && (subject.length < 1 || subject.length > 100 || /[\u0000-\u001f]/.test(subject))) {
    throw invalidParameter('Subject');
  }
  return {
    messageFor: messageChooser(message, params.get('MessageStructure')),
    subject,
    attributes,
    size,
    messageGroupId: params.get('MessageGroupId') || undefined,
    messageDeduplicationId: params.get('MessageDeduplicationId') || undefined,
  };
}

/**
 * The topic to publish to, once its access policy lets the request's principal publish. PublishBatch
 * is authorized as Publish: "The PublishBatch API uses the same Publish API action for IAM policies"
 * (SNS Developer Guide, "Amazon SNS message batching").
 */
function publishableTopic(sns: SnsBackend, topicArn: string, request: RequestFacts): TopicRecord {
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
  return topic;
}

function checkFifo(topic: TopicRecord, message: CheckedMessage): void {
  if (topic.attributes.FifoTopic !== 'true') return;
  if (!message.messageGroupId) throw invalidParameter('The MessageGroupId parameter is required for FIFO topics');
  if (!message.messageDeduplicationId && topic.attributes.ContentBasedDeduplication !== 'true') {
    throw invalidParameter('The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly');
  }
}

/** Hands a message to every confirmed subscription of its topic whose filter policy lets it through; answers its id. */
function deliverToSubscribers(sns: SnsBackend, topic: TopicRecord, message: CheckedMessage): string {
  const messageId = randomUUID();
  const { messageFor, subject, attributes } = message;
  const publication: Publication = { topic, messageId, messageFor, subject, attributes, timestamp: new Date().toISOString() };
  for (const subscription of sns.subscriptionsOf(topic.arn)) {
    // Unconfirmed subscriptions get nothing until they confirm: SNS does not queue for them.
    if (subscription.pendingConfirmation || !passesFilter(subscription, publication)) continue;
    sns.deliver(subscription, notificationMessage(sns.origin, subscription, publication));
  }
  return messageId;
}

export const publish: Handler = (sns, params, request) => {
  // TargetArn is for platform endpoints in SNS; here only topics exist to publish to.
  // An empty TopicArn is a malformed ARN to SNS (recorded), not a missing one.
  const topicArn = params.get('TopicArn') ?? params.get('TargetArn');
  if (topicArn === undefined) throw invalidParameter('TopicArn or TargetArn Reason: no value for required parameter');
  const message = checkedMessage(params);
  const topic = publishableTopic(sns, topicArn, request);
  checkFifo(topic, message);
  const messageId = deliverToSubscribers(sns, topic, message);
  const fifo = topic.attributes.FifoTopic === 'true';
  return [el('MessageId', messageId), ...(fifo ? [el('SequenceNumber', sns.nextFifoSequenceNumber())] : [])];
};

/** At most 10 entries per PublishBatch (SNS API Reference, "PublishBatch"). */
const MAX_BATCH_ENTRIES = 10;
/** An entry's Id: up to 80 characters, alphanumeric, hyphens and underscores (SNS API Reference, "PublishBatchRequestEntry"). */
const BATCH_ENTRY_CHARACTERS = /^[A-Za-z0-9_-]+$/;
const MAX_BATCH_ENTRY_ID = 80;
const ENTRIES = 'PublishBatchRequestEntries.member';

/**
 * PublishBatch (SNS API Reference, "PublishBatch"): up to 10 messages to one topic, each with an
 * Id unique in the request, together at most 256 KiB (the sum of what each counts for Publish).
 * Whatever is wrong with the request (too many, no, or duplicate entries, a malformed Id or
 * entry, the total size, the topic, its policy) fails it whole; an accepted request answers per
 * entry, in `Successful` (its MessageId) or `Failed` (Id, Code, Message, SenderFault). The API
 * reference does not say which errors land in `Failed`; SNS puts there what fails on its side
 * for one entry, which the emulator never does, so its `Failed` stays empty: tests that need a
 * failed entry inject it into the client (test/delivery/dispatcher.test.ts).
 */
export const publishBatch: Handler = (sns, params, request) => {
  const topicArn = params.require('TopicArn');
  const entries = params.indexed(ENTRIES);
  if (entries.length > MAX_BATCH_ENTRIES) {
    throw new SnsError('TooManyEntriesInBatchRequest', 'The batch request contains more entries than permissible.');
  }
  if (entries.length === 0) throw new SnsError('EmptyBatchRequest', "The batch request doesn't contain any entries.");
  const ids = entries.map((entry) => entry.Id ?? '');
  if (new Set(ids).size !== ids.length) {
    throw new SnsError('BatchEntryIdsNotDistinct', 'Two or more batch entries in the request have the same Id.');
  }
  for (const id of ids) {
    if (!BATCH_ENTRY_CHARACTERS.test(id)) {
      throw new SnsError('InvalidBatchEntryId', `The Id of a batch entry in the batch request contains an impermissible character: ${id}`);
    }
    if (id.length > MAX_BATCH_ENTRY_ID) throw new SnsError('InvalidBatchEntryId', `The Id of a batch entry in the batch request is too long: ${id}`);
  }
  // Each entry's fields are named as Publish's parameters, under its own prefix.
  const messages = entries.map((entry, position) =>
    checkedMessage(
      new QueryParams(new Map(Object.entries(entry))),
      `publishBatchRequestEntries.${position + 1}.member.messageAttributes`,
    ),
  );
  if (messages.reduce((sum, message) => sum + message.size, 0) > MAX_MESSAGE_BYTES) {
    throw new SnsError('BatchRequestTooLong', 'The length of all the messages put together is more than the limit.');
  }
  const topic = publishableTopic(sns, topicArn, request);
  for (const message of messages) checkFifo(topic, message);
  const fifo = topic.attributes.FifoTopic === 'true';
  // In the order sent: SNS publishes a FIFO topic's batch in that order.
  const successful = messages.map((message, position) =>
    el('member', [
      el('Id', ids[position]!),
      el('MessageId', deliverToSubscribers(sns, topic, message)),
      ...(fifo ? [el('SequenceNumber', sns.nextFifoSequenceNumber())] : []),
    ]),
  );
  return [el('Successful', successful), el('Failed', [])];
};

