/** CreateTopic, DeleteTopic, ListTopics, GetTopicAttributes, SetTopicAttributes. */
import { invalidParameter } from '../errors';
import { attributesXml, el, type QueryParams } from '../query-protocol';
import { TOPIC_ARN, TOPIC_NAME } from '../state';
import { policyStatements } from '../topic-policy';
import { type Handler, page } from './handler';
import { mergeTags, sameTags, validateTags } from './tags';

const TOPIC_ATTRIBUTES = new Set([
  'ArchivePolicy',
  'ContentBasedDeduplication',
  'DataProtectionPolicy',
  'DeliveryPolicy',
  'DisplayName',
  'FifoThroughputScope',
  'FifoTopic',
  'KmsMasterKeyId',
  'Policy',
  'SignatureVersion',
  'TracingConfig',
  // Delivery status logging ("Amazon SNS message delivery status"): the emulator writes its records
  // for http/https deliveries (infra/local/sns/delivery-status-log.ts).
  ...['HTTP', 'SQS', 'Lambda', 'Firehose', 'Application'].flatMap((protocol) => [
    `${protocol}SuccessFeedbackRoleArn`,
    `${protocol}SuccessFeedbackSampleRate`,
    `${protocol}FailureFeedbackRoleArn`,
  ]),
]);

/** The value to store for a topic attribute, or InvalidParameter. */
function checkedTopicAttribute(name: string, value: string): string {
  if (!TOPIC_ATTRIBUTES.has(name)) throw invalidParameter(`Attributes Reason: Unknown attribute ${name}`);
  // 1: SHA1 signatures (SNS's default), 2: SHA256; SNS knows no other.
  if (name === 'SignatureVersion' && value !== '1' && value !== '2') {
    throw invalidParameter('Attributes Reason: SignatureVersion must be 1 or 2');
  }
  if (name.endsWith('FeedbackSampleRate') && !(/^\d+$/.test(value) && Number(value) <= 100)) {
    throw invalidParameter(`Attributes Reason: ${name} must be an integer from 0 to 100`);
  }
  if (name.endsWith('FeedbackRoleArn') && value !== '' && !/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/.test(value)) {
    throw invalidParameter(`Attributes Reason: ${name} must be an IAM role ARN`);
  }
  // Checked when set, as SNS does; Publish enforces it.
  if (name === 'Policy' && value !== '') policyStatements(value);
  return value;
}

function topicAttributesFrom(params: QueryParams, name: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [key, value] of params.stringMap('Attributes')) attributes[key] = checkedTopicAttribute(key, value);
  const fifoName = name.endsWith('.fifo');
  const fifoAttribute = attributes.FifoTopic?.toLowerCase();
  if (fifoAttribute === 'true' && !fifoName) {
    throw invalidParameter('Topic Name Reason: FIFO topic names must end with .fifo');
  }
  if (fifoAttribute === 'false' && fifoName) {
    throw invalidParameter('Topic Name Reason: only FIFO topic names may end with .fifo');
  }
  if (fifoName) attributes.FifoTopic = 'true';
  return attributes;
}

export const createTopic: Handler = (sns, params) => {
  const name = params.require('Name');
  if (!TOPIC_NAME.test(name)) throw invalidParameter('Topic Name');
  const attributes = topicAttributesFrom(params, name);
  const requested = params.tags();
  validateTags(requested);
  const tags = mergeTags([], requested);
  const arn = sns.topicArnFor(name);
  const existing = sns.topics.get(arn);
  if (existing) {
    // Idempotent, as in SNS, as long as the request does not contradict the existing topic.
    if (tags.length > 0 && !sameTags(existing.tags, tags)) {
      throw invalidParameter('Tags Reason: Topic already exists with different tags');
    }
    if (Object.entries(attributes).some(([key, value]) => (existing.attributes[key] ?? '') !== value)) {
      throw invalidParameter('Attributes Reason: Topic already exists with different attributes');
    }
  } else {
    sns.topics.set(arn, { arn, name, attributes, tags, seq: sns.takeSeq() });
  }
  return [el('TopicArn', arn)];
};

export const deleteTopic: Handler = (sns, params) => {
  const arn = params.require('TopicArn');
  if (!TOPIC_ARN.test(arn)) throw invalidParameter('TopicArn');
  // Deleting a topic that does not exist succeeds in SNS too.
  for (const subscription of sns.subscriptionsOf(arn)) sns.subscriptions.delete(subscription.arn);
  sns.topics.delete(arn);
  return undefined;
};

export const getTopicAttributes: Handler = (sns, params) => {
  const topic = sns.topic(params.require('TopicArn'));
  const subscriptions = sns.subscriptionsOf(topic.arn);
  const pending = subscriptions.filter((subscription) => subscription.pendingConfirmation).length;
  return [
    attributesXml({
      DisplayName: '',
      ...topic.attributes,
      TopicArn: topic.arn,
      Owner: sns.settings.accountId,
      SubscriptionsConfirmed: String(subscriptions.length - pending),
      SubscriptionsPending: String(pending),
      SubscriptionsDeleted: '0',
    }),
  ];
};

export const setTopicAttributes: Handler = (sns, params) => {
  const topic = sns.topic(params.require('TopicArn'));
  const name = params.require('AttributeName');
  if (!TOPIC_ATTRIBUTES.has(name) || name === 'FifoTopic') throw invalidParameter('AttributeName');
  topic.attributes[name] = checkedTopicAttribute(name, params.get('AttributeValue') ?? '');
  return undefined;
};

export const listTopics: Handler = (sns, params) => {
  const { items, nextToken } = page([...sns.topics.values()], params);
  return [
    el(
      'Topics',
      items.map((topic) => el('member', [el('TopicArn', topic.arn)])),
    ),
    ...(nextToken ? [el('NextToken', nextToken)] : []),
  ];
};
