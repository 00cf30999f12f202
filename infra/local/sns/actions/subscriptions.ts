/**
 * The SNS actions the emulator answers, one handler each, and the table the request handler
 * dispatches on. Handlers check their parameters as SNS does, change the backend, and return
 * the elements of the action's `<…Result>`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { isPlainObject, parseFilterPolicy, passesFilter } from '../filter-policy';
import { type MessageAttribute, notificationMessage, type Publication } from '../messages';
import { attributesXml, el, invalidParameter, type QueryParams, resourceNotFound, SnsError } from '../query-protocol';
import { type SnsBackend, type SubscriptionRecord, type Tag, TOPIC_ARN, TOPIC_NAME } from '../state';

/** SNS pages every listing at 100 entries. */
const PAGE_SIZE = 100;
/** SNS's limit for a message with its attributes. */
const MAX_MESSAGE_BYTES = 256 * 1024;
const MAX_TAGS_PER_TOPIC = 50;
const MAX_MESSAGE_ATTRIBUTES = 10;

/** Protocols whose endpoint must confirm (by SubscribeURL or ConfirmSubscription) before it gets messages. */
const CONFIRMED_BY_ENDPOINT = new Set(['http', 'https', 'email', 'email-json']);

/** What each protocol accepts as an endpoint; SNS answers InvalidParameter otherwise. */
const ENDPOINT_RULES: Record<string, { pattern: RegExp; reason: string }> = {
  http: { pattern: /^http:\/\/[^\s/]+\S*$/i, reason: 'Endpoint must be an http:// URL' },
  https: { pattern: /^https:\/\/[^\s/]+\S*$/i, reason: 'Endpoint must be an https:// URL' },
  email: { pattern: /^[^@\s]+@[^@\s]+$/, reason: 'Invalid email address' },
  'email-json': { pattern: /^[^@\s]+@[^@\s]+$/, reason: 'Invalid email address' },
  sqs: { pattern: /^arn:[^:]+:sqs:[^:]+:[^:]+:[A-Za-z0-9_-]+(?:\.fifo)?$/, reason: 'Invalid SQS queue ARN' },
  lambda: {
    pattern: /^arn:[^:]+:lambda:[^:]+:[^:]+:function:[A-Za-z0-9_-]+(?::[A-Za-z0-9_$-]+)?$/,
    reason: 'Invalid Lambda function ARN',
  },
  sms: { pattern: /^\+?[0-9]{1,15}$/, reason: 'Invalid phone number' },
  application: { pattern: /^arn:[^:]+:sns:[^:]+:[^:]+:endpoint\/\S+$/, reason: 'Invalid platform endpoint ARN' },
  firehose: { pattern: /^arn:[^:]+:firehose:[^:]+:[^:]+:deliverystream\/\S+$/, reason: 'Invalid Firehose stream ARN' },
};

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
]);

const SUBSCRIPTION_ATTRIBUTES = new Set([
  'DeliveryPolicy',
  'FilterPolicy',
  'FilterPolicyScope',
  'RawMessageDelivery',
  'RedrivePolicy',
  'ReplayPolicy',
  'SubscriptionRoleArn',
]);

/** Raw delivery strips the JSON envelope; SNS allows it only where a raw body makes sense. */
const RAW_DELIVERY_PROTOCOLS = new Set(['http', 'https', 'sqs', 'firehose']);

interface RequestFacts {
  /** Signed with SigV4 (SDK, CLI), as opposed to a bare URL visit such as a SubscribeURL. */
  signed: boolean;
}

type Handler = (sns: SnsBackend, params: QueryParams, request: RequestFacts) => readonly string[] | undefined;

function sameTags(a: Tag[], b: Tag[]): boolean {
  const key = (tags: Tag[]) => JSON.stringify([...tags].sort((x, y) => x.Key.localeCompare(y.Key)));
  return key(a) === key(b);
}

function validateTags(tags: Tag[]): void {
  const keys = new Set<string>();
  for (const { Key, Value } of tags) {
    if (Key.length < 1 || Key.length > 128) throw invalidParameter('Tags Reason: tag keys must be 1-128 characters');
    if (Value.length > 256) throw invalidParameter('Tags Reason: tag values must be at most 256 characters');
    if (Key.toLowerCase().startsWith('aws:')) throw invalidParameter('Tags Reason: the aws: prefix is reserved');
    if (keys.has(Key)) throw invalidParameter(`Tags Reason: duplicate tag key ${Key}`);
    keys.add(Key);
  }
}

/** Adds or replaces tags, keeping the order in which keys first appeared. */
function mergeTags(existing: Tag[], added: Tag[]): Tag[] {
  const merged = new Map(existing.map((tag) => [tag.Key, tag.Value]));
  for (const tag of added) merged.set(tag.Key, tag.Value);
  if (merged.size > MAX_TAGS_PER_TOPIC) {
    const message = `Could not complete request: tag quota of ${MAX_TAGS_PER_TOPIC} per resource exceeded`;
    throw new SnsError('TagLimitExceeded', message);
  }
  return [...merged].map(([Key, Value]) => ({ Key, Value }));
}

function tagsXml(tags: Tag[]): string {
  return el(
    'Tags',
    tags.map((tag) => el('member', [el('Key', tag.Key), el('Value', tag.Value)])),
  );
}

/** The value to store for a topic attribute, or InvalidParameter. */
function checkedTopicAttribute(name: string, value: string): string {
  if (!TOPIC_ATTRIBUTES.has(name)) throw invalidParameter(`Attributes Reason: Unknown attribute ${name}`);
  // 1: SHA1 signatures (SNS's default), 2: SHA256; SNS knows no other.
  if (name === 'SignatureVersion' && value !== '1' && value !== '2') {
    throw invalidParameter('Attributes Reason: SignatureVersion must be 1 or 2');
  }
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

const createTopic: Handler = (sns, params) => {
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

const deleteTopic: Handler = (sns, params) => {
  const arn = params.require('TopicArn');
  if (!TOPIC_ARN.test(arn)) throw invalidParameter('TopicArn');
  // Deleting a topic that does not exist succeeds in SNS too.
  for (const subscription of sns.subscriptionsOf(arn)) sns.subscriptions.delete(subscription.arn);
  sns.topics.delete(arn);
  return undefined;
};

const getTopicAttributes: Handler = (sns, params) => {
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

const setTopicAttributes: Handler = (sns, params) => {
  const topic = sns.topic(params.require('TopicArn'));
  const name = params.require('AttributeName');
  if (!TOPIC_ATTRIBUTES.has(name) || name === 'FifoTopic') throw invalidParameter('AttributeName');
  topic.attributes[name] = checkedTopicAttribute(name, params.get('AttributeValue') ?? '');
  return undefined;
};

function subscriptionAttributesFrom(params: QueryParams, protocol: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, value] of params.stringMap('Attributes')) {
    attributes[name] = checkedSubscriptionAttribute(name, value, protocol);
  }
  return attributes;
}

/** The value to store for a subscription attribute, or InvalidParameter. */
function checkedSubscriptionAttribute(name: string, value: string, protocol: string): string {
  if (!SUBSCRIPTION_ATTRIBUTES.has(name)) throw invalidParameter(`AttributeName Reason: Unknown attribute ${name}`);
  switch (name) {
    case 'RawMessageDelivery': {
      const normalized = value.toLowerCase();
      if (normalized !== 'true' && normalized !== 'false') throw invalidParameter('RawMessageDelivery: must be true or false');
      if (normalized === 'true' && !RAW_DELIVERY_PROTOCOLS.has(protocol)) {
        throw invalidParameter(`Delivery protocol [${protocol}] does not support raw message delivery.`);
      }
      return normalized;
    }
    case 'FilterPolicy':
      if (value !== '') parseFilterPolicy(value);
      return value;
    case 'FilterPolicyScope':
      if (value !== 'MessageAttributes' && value !== 'MessageBody') throw invalidParameter('FilterPolicyScope');
      return value;
    case 'DeliveryPolicy':
    case 'RedrivePolicy':
    case 'ReplayPolicy':
      if (value !== '') {
        try {
          JSON.parse(value);
        } catch {
          throw invalidParameter(`${name}: failed to parse JSON`);
        }
      }
      return value;
    default:
      return value;
  }
}

/** Equal once defaults are filled in: RawMessageDelivery=false is what an absent one means. */
function sameAttributes(a: Record<string, string>, b: Record<string, string>): boolean {
  const left: Record<string, string> = { RawMessageDelivery: 'false', ...a };
  const right: Record<string, string> = { RawMessageDelivery: 'false', ...b };
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].every((key) => (left[key] ?? '') === (right[key] ?? ''));
}

function newToken(): string {
  return randomBytes(64).toString('hex');
}

const subscribe: Handler = (sns, params) => {
  const topic = sns.topic(params.require('TopicArn'));
  const protocol = params.require('Protocol').toLowerCase();
  const rule = Object.hasOwn(ENDPOINT_RULES, protocol) ? ENDPOINT_RULES[protocol] : undefined;
  if (!rule) throw invalidParameter(`Amazon SNS does not support this protocol string: ${protocol}`);
  const endpoint = params.get('Endpoint') ?? '';
  if (!rule.pattern.test(endpoint)) throw invalidParameter(`Endpoint Reason: ${rule.reason}`);
  if (protocol === 'sqs' && endpoint.endsWith('.fifo') && topic.attributes.FifoTopic !== 'true') {
    throw invalidParameter('Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics');
  }
  const attributes = subscriptionAttributesFrom(params, protocol);
  // SNS keeps a pending subscription's ARN to itself unless asked for it.
  const answer = (subscription: SubscriptionRecord) => {
    const hidden = subscription.pendingConfirmation && !params.flag('ReturnSubscriptionArn');
    return [el('SubscriptionArn', hidden ? 'pending confirmation' : subscription.arn)];
  };

  // Subscribing the same endpoint again returns the existing subscription, as in SNS.
  const existing = sns.subscriptionsOf(topic.arn).find((s) => s.protocol === protocol && s.endpoint === endpoint);
  if (existing) {
    if (params.indexed('Attributes.entry').length > 0 && !sameAttributes(existing.attributes, attributes)) {
      throw invalidParameter('Attributes Reason: Subscription already exists with different attributes');
    }
    if (existing.pendingConfirmation) sns.sendConfirmation(existing);
    return answer(existing);
  }

  // SNS confirms sqs and lambda endpoints of its own account itself; another account's owner must confirm.
  const needsConfirmation =
    CONFIRMED_BY_ENDPOINT.has(protocol) ||
    ((protocol === 'sqs' || protocol === 'lambda') && endpoint.split(':')[4] !== sns.settings.accountId);
  const subscription: SubscriptionRecord = {
    arn: `${topic.arn}:${randomUUID()}`,
    topicArn: topic.arn,
    protocol,
    endpoint,
    owner: sns.settings.accountId,
    attributes,
    pendingConfirmation: needsConfirmation,
    // SNS reports subscriptions it confirmed itself (sqs, lambda…) as authenticated.
    confirmationWasAuthenticated: !needsConfirmation,
    token: newToken(),
    seq: sns.takeSeq(),
  };
  sns.subscriptions.set(subscription.arn, subscription);
  if (needsConfirmation) sns.sendConfirmation(subscription);
  return answer(subscription);
};

const confirmSubscription: Handler = (sns, params, request) => {
  const topic = sns.topic(params.require('TopicArn'));
  const token = params.require('Token');
  const subscription = sns.subscriptionsOf(topic.arn).find((s) => s.token === token);
  if (!subscription) throw invalidParameter('Token');
  if (subscription.pendingConfirmation) {
    subscription.pendingConfirmation = false;
    // A signed ConfirmSubscription call is authenticated; a visit of the SubscribeURL is not.
    subscription.confirmationWasAuthenticated = request.signed;
  }
  return [el('SubscriptionArn', subscription.arn)];
};

const unsubscribe: Handler = (sns, params) => {
  const subscription = sns.subscription(params.require('SubscriptionArn'));
  sns.subscriptions.delete(subscription.arn);
  return undefined;
};

const getSubscriptionAttributes: Handler = (sns, params) => {
  const subscription = sns.subscription(params.require('SubscriptionArn'));
  const { attributes } = subscription;
  return [
    attributesXml({
      ...attributes,
      SubscriptionArn: subscription.arn,
      TopicArn: subscription.topicArn,
      Owner: subscription.owner,
      Protocol: subscription.protocol,
      Endpoint: subscription.endpoint,
      PendingConfirmation: String(subscription.pendingConfirmation),
      ConfirmationWasAuthenticated: String(subscription.confirmationWasAuthenticated),
      RawMessageDelivery: attributes.RawMessageDelivery ?? 'false',
      ...(attributes.FilterPolicy ? { FilterPolicyScope: attributes.FilterPolicyScope ?? 'MessageAttributes' } : {}),
    }),
  ];
};

const setSubscriptionAttributes: Handler = (sns, params) => {
  const subscription = sns.subscription(params.require('SubscriptionArn'));
  const name = params.require('AttributeName');
  const value = checkedSubscriptionAttribute(name, params.get('AttributeValue') ?? '', subscription.protocol);
  // An empty policy removes it, as in SNS.
  if (value === '' && name !== 'SubscriptionRoleArn') delete subscription.attributes[name];
  else subscription.attributes[name] = value;
  return undefined;
};

/** One page of records in creation order; the token names the last record's position. */
function page<T extends { seq: number }>(records: T[], params: QueryParams): { items: T[]; nextToken?: string } {
  const token = params.get('NextToken');
  let after = 0;
  if (token) {
    after = Number(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Number.isSafeInteger(after) || after < 1) throw invalidParameter('NextToken');
  }
  const remaining = records.filter((record) => record.seq > after).sort((a, b) => a.seq - b.seq);
  const items = remaining.slice(0, PAGE_SIZE);
  const last = items.at(-1);
  if (remaining.length <= PAGE_SIZE || !last) return { items };
  return { items, nextToken: Buffer.from(String(last.seq)).toString('base64url') };
}

const listTopics: Handler = (sns, params) => {
  const { items, nextToken } = page([...sns.topics.values()], params);
  return [
    el(
      'Topics',
      items.map((topic) => el('member', [el('TopicArn', topic.arn)])),
    ),
    ...(nextToken ? [el('NextToken', nextToken)] : []),
  ];
};

function subscriptionsXml(subscriptions: SubscriptionRecord[], nextToken: string | undefined): string[] {
  const member = (subscription: SubscriptionRecord) =>
    el('member', [
      // SNS lists an unconfirmed subscription under this placeholder instead of its ARN.
      el('SubscriptionArn', subscription.pendingConfirmation ? 'PendingConfirmation' : subscription.arn),
      el('Owner', subscription.owner),
      el('Protocol', subscription.protocol),
      el('Endpoint', subscription.endpoint),
      el('TopicArn', subscription.topicArn),
    ]);
  return [el('Subscriptions', subscriptions.map(member)), ...(nextToken ? [el('NextToken', nextToken)] : [])];
}

const listSubscriptions: Handler = (sns, params) => {
  const { items, nextToken } = page([...sns.subscriptions.values()], params);
  return subscriptionsXml(items, nextToken);
};

const listSubscriptionsByTopic: Handler = (sns, params) => {
  const topic = sns.topic(params.require('TopicArn'));
  const { items, nextToken } = page(sns.subscriptionsOf(topic.arn), params);
  return subscriptionsXml(items, nextToken);
};

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

const publish: Handler = (sns, params) => {
  // TargetArn is for platform endpoints in SNS; here only topics exist to publish to.
  const topicArn = params.get('TopicArn') || params.get('TargetArn');
  if (!topicArn) throw invalidParameter('TopicArn or TargetArn Reason: no value for required parameter');
  const message = params.get('Message') ?? '';
  if (message === '') throw invalidParameter('Empty message');
  const attributes = messageAttributesFrom(params);
  const size = Buffer.byteLength(message) + attributes.reduce((sum, a) => sum + Buffer.byteLength(JSON.stringify(a)), 0);
  if (size > MAX_MESSAGE_BYTES) throw invalidParameter('Message too long');
  const subject = params.get('Subject');
  if (subject !== undefined && (subject.length < 1 || subject.length > 100 || /[\u0000-\u001f]/.test(subject))) {
    throw invalidParameter('Subject');
  }
  const messageFor = messageChooser(message, params.get('MessageStructure'));
  const messageId = randomUUID();

  const topic = sns.topic(topicArn);
  const fifo = topic.attributes.FifoTopic === 'true';
  if (fifo && !params.get('MessageGroupId')) throw invalidParameter('The MessageGroupId parameter is required for FIFO topics');
  if (fifo && !params.get('MessageDeduplicationId') && topic.attributes.ContentBasedDeduplication !== 'true') {
    throw invalidParameter('MessageDeduplicationId Reason: required unless the topic has ContentBasedDeduplication');
  }
  const publication: Publication = { topic, messageId, messageFor, subject, attributes, timestamp: new Date().toISOString() };
  for (const subscription of sns.subscriptionsOf(topic.arn)) {
    // Unconfirmed subscriptions get nothing until they confirm: SNS does not queue for them.
    if (subscription.pendingConfirmation || !passesFilter(subscription, publication)) continue;
    sns.deliver(subscription, notificationMessage(sns, subscription, publication));
  }
  return [el('MessageId', messageId), ...(fifo ? [el('SequenceNumber', sns.nextFifoSequenceNumber())] : [])];
};

const tagResource: Handler = (sns, params) => {
  const topic = sns.topic(params.require('ResourceArn'), resourceNotFound);
  const tags = params.tags();
  validateTags(tags);
  topic.tags = mergeTags(topic.tags, tags);
  return [];
};

const untagResource: Handler = (sns, params) => {
  const topic = sns.topic(params.require('ResourceArn'), resourceNotFound);
  const removed = new Set(params.members('TagKeys'));
  topic.tags = topic.tags.filter((tag) => !removed.has(tag.Key));
  return [];
};

const listTagsForResource: Handler = (sns, params) => {
  const topic = sns.topic(params.require('ResourceArn'), resourceNotFound);
  return [tagsXml(topic.tags)];
};

/** Every action the emulator answers; `writes` marks those whose success is saved to the state file. */
export const ACTIONS: Record<string, { run: Handler; writes: boolean }> = {
  CreateTopic: { run: createTopic, writes: true },
  DeleteTopic: { run: deleteTopic, writes: true },
  GetTopicAttributes: { run: getTopicAttributes, writes: false },
  SetTopicAttributes: { run: setTopicAttributes, writes: true },
  Subscribe: { run: subscribe, writes: true },
  ConfirmSubscription: { run: confirmSubscription, writes: true },
  Unsubscribe: { run: unsubscribe, writes: true },
  GetSubscriptionAttributes: { run: getSubscriptionAttributes, writes: false },
  SetSubscriptionAttributes: { run: setSubscriptionAttributes, writes: true },
  ListTopics: { run: listTopics, writes: false },
  ListSubscriptions: { run: listSubscriptions, writes: false },
  ListSubscriptionsByTopic: { run: listSubscriptionsByTopic, writes: false },
  Publish: { run: publish, writes: false },
  TagResource: { run: tagResource, writes: true },
  UntagResource: { run: untagResource, writes: true },
  ListTagsForResource: { run: listTagsForResource, writes: false },
};

/**
 * What a bare URL may do: SNS hands out SubscribeURL and UnsubscribeURL for exactly these.
 * Everything else needs a signed request (the SDK and CLI always sign, dummy credentials will
 * do). A web page can POST a form to 127.0.0.1 but cannot add an Authorization header without
 * a CORS preflight the emulator never grants, so a browser cannot drive the emulator into
 * subscribing and then calling arbitrary URLs.
 */
export const UNSIGNED_ACTIONS = new Set(['ConfirmSubscription', 'Unsubscribe']);
