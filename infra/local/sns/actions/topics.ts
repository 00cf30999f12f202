/** CreateTopic, DeleteTopic, ListTopics, GetTopicAttributes, SetTopicAttributes. */
import { invalidParameter, malformedArn } from '../errors';
import { attributesXml, el, type QueryParams } from '../query-protocol';
import { TOPIC_ARN, TOPIC_NAME } from '../arns';
import { policyStatements } from '../topic-policy';
import { type Handler, page } from './handler';
import { DEFAULT_HEALTHY_RETRY_POLICY } from './subscriptions';
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
  if (name === 'DeliveryPolicy' && value !== '') return normalizedTopicDeliveryPolicy(value);
  return value;
}

/**
 * A FIFO topic is named `.fifo` and created with FifoTopic=true; either without the other is
 * "Invalid parameter: Topic Name", as SNS answers (recorded).
 */
/** A topic's DeliveryPolicy as SNS stores it: its http part says disableSubscriptionOverrides, false unless given (recorded). */
function normalizedTopicDeliveryPolicy(value: string): string {
  let policy: unknown;
  try {
    policy = JSON.parse(value);
  } catch (error) {
    throw invalidParameter(`DeliveryPolicy: failed to parse JSON. ${(error as Error).message}`);
  }
  const http = (policy as { http?: unknown } | null)?.http;
  if (typeof http !== 'object' || http === null || Array.isArray(http)) return value;
  return JSON.stringify({ ...(policy as object), http: { disableSubscriptionOverrides: false, ...http } });
}

function topicAttributesFrom(params: QueryParams, name: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [key, value] of params.stringMap('Attributes')) attributes[key] = checkedTopicAttribute(key, value);
  const fifo = attributes.FifoTopic?.toLowerCase() === 'true';
  if (fifo !== name.endsWith('.fifo')) throw invalidParameter('Topic Name');
  // FifoTopic=false is what a standard topic is: not an attribute of its own.
  if (fifo) attributes.FifoTopic = 'true';
  else delete attributes.FifoTopic;
  return attributes;
}

export const createTopic: Handler = (sns, params) => {
  const name = params.get('Name') ?? '';
  if (!TOPIC_NAME.test(name)) throw invalidParameter('Topic Name');
  const attributes = topicAttributesFrom(params, name);
  const requested = params.tags();
  validateTags(requested);
  const tags = mergeTags([], requested);
  const arn = sns.topicArnFor(name);
  const existing = sns.topics.get(arn);
  if (existing) {
    // Idempotent, as in SNS, as long as the request does not contradict the existing topic: tags
    // it already has (all or some) and attributes it already has with the same values.
    const held = new Map(existing.tags.map((tag) => [tag.Key, tag.Value]));
    if (tags.some((tag) => held.get(tag.Key) !== tag.Value)) {
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

/** The policy SNS gives a topic created without one: its own account may do everything with it. */
function defaultTopicPolicy(topicArn: string, accountId: string): string {
  return JSON.stringify({
    Version: '2008-10-17',
    Id: '__default_policy_ID',
    Statement: [
      {
        Sid: '__default_statement_ID',
        Effect: 'Allow',
        Principal: { AWS: '*' },
        Action: [
          'SNS:GetTopicAttributes',
          'SNS:SetTopicAttributes',
          'SNS:AddPermission',
          'SNS:RemovePermission',
          'SNS:DeleteTopic',
          'SNS:Subscribe',
          'SNS:ListSubscriptionsByTopic',
          'SNS:Publish',
        ],
        Resource: topicArn,
        Condition: { StringEquals: { 'AWS:SourceOwner': accountId } },
      },
    ],
  });
}

/** The topic's http delivery policy with SNS's defaults filled in (GetTopicAttributes' EffectiveDeliveryPolicy). */
function effectiveTopicDeliveryPolicy(stored: string | undefined): string {
  let http: Record<string, unknown> = {};
  try {
    const policy = JSON.parse(stored || '{}') as { http?: Record<string, unknown> } | null;
    if (policy?.http && typeof policy.http === 'object') http = policy.http;
  } catch {
    // Checked to be JSON when set; an older state file's text counts as no policy.
  }
  return JSON.stringify({
    http: {
      defaultHealthyRetryPolicy: { ...DEFAULT_HEALTHY_RETRY_POLICY, ...(http.defaultHealthyRetryPolicy as object | undefined) },
      disableSubscriptionOverrides: http.disableSubscriptionOverrides ?? false,
      defaultRequestPolicy: { headerContentType: 'text/plain; charset=UTF-8', ...(http.defaultRequestPolicy as object | undefined) },
    },
  });
}

export const deleteTopic: Handler = (sns, params) => {
  const arn = params.require('TopicArn');
  const malformed = malformedArn('TopicArn', arn);
  if (malformed) throw malformed;
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
      Policy: defaultTopicPolicy(topic.arn, sns.settings.accountId),
      ...(topic.attributes.FifoTopic === 'true' ? { ContentBasedDeduplication: 'false' } : {}),
      ...topic.attributes,
      EffectiveDeliveryPolicy: effectiveTopicDeliveryPolicy(topic.attributes.DeliveryPolicy),
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
