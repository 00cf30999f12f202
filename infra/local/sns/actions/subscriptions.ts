/**
 * Subscribe, ConfirmSubscription, Unsubscribe, GetSubscriptionAttributes,
 * SetSubscriptionAttributes, ListSubscriptions, ListSubscriptionsByTopic.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { localPrincipalArn } from '../../../aws/local-account';
import { SnsError, invalidParameter } from '../errors';
import { authorizationError, explicitlyDenied } from '../topic-policy';
import { parseFilterPolicy } from '../filter-policy';
import { maskPasswords } from '../masking';
import { attributesXml, el, type QueryParams } from '../query-protocol';
import { checkedSubscriptionArn, TOPIC_ARN } from '../arns';
import type { SubscriptionRecord } from '../types';
import { type Handler, page } from './handler';

/** Protocols whose endpoint must confirm (by SubscribeURL or ConfirmSubscription) before it gets messages. */
const CONFIRMED_BY_ENDPOINT = new Set(['http', 'https', 'email', 'email-json']);

/**
 * What each protocol accepts as an endpoint; SNS answers InvalidParameter otherwise, with
 * "Endpoint Reason: <reason>", or `reason` alone where `whole` (as recorded).
 */
const ENDPOINT_RULES: Record<string, { pattern: RegExp; reason: string; whole?: boolean }> = {
  http: { pattern: /^http:\/\/[^\s/]+\S*$/i, reason: 'Endpoint must be an http:// URL' },
  https: { pattern: /^https:\/\/[^\s/]+\S*$/i, reason: 'Endpoint must be an https:// URL' },
  email: { pattern: /^[^@\s]+@[^@\s]+$/, reason: 'Invalid email address' },
  'email-json': { pattern: /^[^@\s]+@[^@\s]+$/, reason: 'Invalid email address' },
  // Recorded: a queue URL or a bare name is "Invalid parameter: SQS endpoint ARN", no Reason.
  sqs: { pattern: /^arn:[^:]+:sqs:[^:]+:[^:]+:[A-Za-z0-9_-]+(?:\.fifo)?$/, reason: 'SQS endpoint ARN', whole: true },
  lambda: {
    pattern: /^arn:[^:]+:lambda:[^:]+:[^:]+:function:[A-Za-z0-9_-]+(?::[A-Za-z0-9_$-]+)?$/,
    reason: 'Invalid Lambda function ARN',
  },
  sms: { pattern: /^\+?[0-9]{1,15}$/, reason: 'Invalid phone number' },
  application: { pattern: /^arn:[^:]+:sns:[^:]+:[^:]+:endpoint\/\S+$/, reason: 'Invalid platform endpoint ARN' },
  firehose: { pattern: /^arn:[^:]+:firehose:[^:]+:[^:]+:deliverystream\/\S+$/, reason: 'Invalid Firehose stream ARN' },
};

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

/**
 * Subscribe's Attributes, checked as SetSubscriptionAttributes checks each, but refused under
 * "Attributes Reason: " (recorded: "Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid
 * value [wrongvalue]. ..." and "... Attributes Reason: FilterPolicy: failed to parse JSON. ...",
 * tests/aws/services/sns/test_sns.snapshot.json of localstack/localstack).
 */
function subscriptionAttributesFrom(params: QueryParams, protocol: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, value] of params.stringMap('Attributes')) {
    if (!SUBSCRIPTION_ATTRIBUTES.has(name)) throw invalidParameter(`Attributes Reason: Unknown attribute ${name}`);
    attributes[name] = checkedSubscriptionAttribute(name, value, protocol, (reason) => invalidParameter(`Attributes Reason: ${reason}`));
  }
  return attributes;
}

/** How an attribute's value is refused: SetSubscriptionAttributes' "Invalid parameter: <reason>", or Subscribe's. */
type Refusal = (reason: string) => SnsError;

/** JSON of a policy attribute; SNS names the attribute and the parser's complaint. */
function parsedPolicy(name: string, value: string, refuse: Refusal): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw refuse(`${name}: failed to parse JSON. ${(error as Error).message}`);
  }
}

/** An ARN as SNS checks a redrive policy's target: six elements, the first `arn`. */
const ANY_ARN = /^arn:[^:]+:[^:]+:[^:]*:[^:]*:.+$/;

/**
 * A subscription's DeliveryPolicy as SNS stores it: every policy named, the absent ones null,
 * and `guaranteed` false unless given (recorded: GetSubscriptionAttributes of an http
 * subscription, tests/aws/services/sns/test_sns.snapshot.json of localstack/localstack).
 */
function normalizedDeliveryPolicy(policy: Record<string, unknown>): Record<string, unknown> {
  return {
    healthyRetryPolicy: policy.healthyRetryPolicy ?? null,
    sicklyRetryPolicy: policy.sicklyRetryPolicy ?? null,
    throttlePolicy: policy.throttlePolicy ?? null,
    requestPolicy: policy.requestPolicy ?? null,
    guaranteed: policy.guaranteed ?? false,
  };
}

/** SNS's retry policy for http/https where a delivery policy leaves a field out. */
export const DEFAULT_HEALTHY_RETRY_POLICY = {
  minDelayTarget: 20,
  maxDelayTarget: 20,
  numRetries: 3,
  numMaxDelayRetries: 0,
  numNoDelayRetries: 0,
  numMinDelayRetries: 0,
  backoffFunction: 'linear',
} as const;

/**
 * GetSubscriptionAttributes' EffectiveDeliveryPolicy of an http/https subscription: its own
 * policies, else its topic's defaults (recorded: a topic's `defaultRequestPolicy`), SNS's
 * retry defaults filled in.
 */
function effectiveDeliveryPolicy(stored: string | undefined, topicPolicy: string | undefined): string {
  // Both were checked to be JSON when set; an older state file's other shapes count as none.
  const objectOf = (text: string | undefined): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(text || '{}');
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  const policy = normalizedDeliveryPolicy(objectOf(stored));
  const http = objectOf(topicPolicy).http;
  const topicHttp = typeof http === 'object' && http !== null ? (http as Record<string, unknown>) : {};
  const healthy = (policy.healthyRetryPolicy ?? topicHttp.defaultHealthyRetryPolicy ?? {}) as Record<string, unknown>;
  return JSON.stringify({
    ...policy,
    healthyRetryPolicy: { ...DEFAULT_HEALTHY_RETRY_POLICY, ...healthy },
    requestPolicy: policy.requestPolicy ?? topicHttp.defaultRequestPolicy ?? null,
  });
}

/** The value to store for a subscription attribute, or InvalidParameter. */
function checkedSubscriptionAttribute(name: string, value: string, protocol: string, refuse: Refusal = invalidParameter): string {
  if (!SUBSCRIPTION_ATTRIBUTES.has(name)) throw invalidParameter('AttributeName');
  switch (name) {
    case 'RawMessageDelivery': {
      const normalized = value.toLowerCase();
      if (normalized !== 'true' && normalized !== 'false') {
        throw refuse(`RawMessageDelivery: Invalid value [${value}]. Must be true or false.`);
      }
      if (normalized === 'true' && !RAW_DELIVERY_PROTOCOLS.has(protocol)) {
        throw refuse(`Delivery protocol [${protocol}] does not support raw message delivery.`);
      }
      return normalized;
    }
    case 'FilterPolicy':
      if (value !== '') {
        parsedPolicy(name, value, refuse);
        try {
          parseFilterPolicy(value);
        } catch (error) {
          if (!(error instanceof SnsError) || error.code !== 'InvalidParameter') throw error;
          throw refuse(error.message.replace(/^Invalid parameter: /, ''));
        }
      }
      return value;
    case 'FilterPolicyScope':
      if (value !== 'MessageAttributes' && value !== 'MessageBody') {
        throw refuse(`FilterPolicyScope: Invalid value [${value}]. Please use either MessageBody or MessageAttributes`);
      }
      return value;
    case 'RedrivePolicy': {
      if (value === '') return value;
      // A target that is not an ARN fails every Subscribe on AWS: refused here too, never stored.
      const target = (parsedPolicy(name, value, refuse) as { deadLetterTargetArn?: unknown } | null)?.deadLetterTargetArn;
      if (typeof target !== 'string' || !ANY_ARN.test(target)) throw refuse('RedrivePolicy: deadLetterTargetArn is an invalid arn');
      return value;
    }
    case 'DeliveryPolicy': {
      if (value === '') return value;
      const policy = parsedPolicy(name, value, refuse);
      const isObject = typeof policy === 'object' && policy !== null && !Array.isArray(policy);
      return isObject && HTTP_PROTOCOLS.has(protocol) ? JSON.stringify(normalizedDeliveryPolicy(policy as Record<string, unknown>)) : value;
    }
    case 'ReplayPolicy':
      if (value !== '') parsedPolicy(name, value, refuse);
      return value;
    default:
      return value;
  }
}

const HTTP_PROTOCOLS = new Set(['http', 'https']);

/**
 * Whether a Subscribe again asks for what the subscription has: each attribute it names equals
 * the subscription's, defaults filled in (RawMessageDelivery=false, FilterPolicyScope=
 * MessageAttributes); attributes it leaves out are no difference (recorded).
 */
function sameAttributes(existing: Record<string, string>, requested: Record<string, string>): boolean {
  const defaults: Record<string, string> = { RawMessageDelivery: 'false', FilterPolicyScope: 'MessageAttributes' };
  return Object.entries(requested).every(([key, value]) => (existing[key] ?? defaults[key] ?? '') === value);
}

export function newToken(): string {
  return randomBytes(64).toString('hex');
}

export const subscribe: Handler = (sns, params, request) => {
  const topic = sns.topic(params.require('TopicArn'));
  // The topic's access policy first, as SNS authorizes a request before it reads its parameters.
  if (topic.attributes.Policy) {
    const { accountId } = sns.settings;
    const check = { principalArn: localPrincipalArn(request.accessKeyId ?? '', accountId), principalAccount: accountId, action: 'sns:Subscribe', resource: topic.arn };
    if (explicitlyDenied(topic.attributes.Policy, check)) throw authorizationError(check);
  }
  const protocol = params.require('Protocol').toLowerCase();
  const rule = Object.hasOwn(ENDPOINT_RULES, protocol) ? ENDPOINT_RULES[protocol] : undefined;
  if (!rule) throw invalidParameter(`Amazon SNS does not support this protocol string: ${protocol}`);
  const endpoint = params.get('Endpoint') ?? '';
  if (!rule.pattern.test(endpoint)) throw invalidParameter(rule.whole ? rule.reason : `Endpoint Reason: ${rule.reason}`);
  if (protocol === 'sqs' && endpoint.endsWith('.fifo') && topic.attributes.FifoTopic !== 'true') {
    // "Invalid parameter: " twice, as recorded (test_validations_for_fifo, test_sns.snapshot.json of localstack/localstack).
    throw invalidParameter('Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics');
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
    principal: localPrincipalArn(request.accessKeyId ?? '', sns.settings.accountId),
  };
  sns.subscriptions.set(subscription.arn, subscription);
  if (needsConfirmation) sns.sendConfirmation(subscription);
  return answer(subscription);
};

/**
 * SNS confirms by the token: the TopicArn must be a topic ARN of this Region, but the token alone
 * finds the subscription (recorded: a SubscribeURL naming a topic that does not exist, in the right
 * Region, confirms). A token that is not SNS's shape (hex) is "Invalid token".
 */
export const confirmSubscription: Handler = (sns, params, request) => {
  const topicArn = params.require('TopicArn');
  if (!TOPIC_ARN.test(topicArn) || topicArn.split(':')[3] !== sns.settings.region) throw invalidParameter('Topic');
  const token = params.require('Token');
  if (!/^[0-9a-f]+$/i.test(token)) throw new SnsError('InvalidParameter', 'Invalid token');
  const subscription = [...sns.subscriptions.values()].find((s) => s.token === token);
  if (!subscription) throw invalidParameter('Token');
  if (subscription.pendingConfirmation) {
    subscription.pendingConfirmation = false;
    // A signed ConfirmSubscription call is authenticated; a visit of the SubscribeURL is not.
    subscription.confirmationWasAuthenticated = request.signed;
  }
  return [el('SubscriptionArn', subscription.arn)];
};

/** Idempotent, as in SNS: a subscription already gone (or never there) is unsubscribed. */
export const unsubscribe: Handler = (sns, params) => {
  const arn = checkedSubscriptionArn(params.require('SubscriptionArn'));
  const subscription = sns.subscriptions.get(arn);
  if (!subscription) return undefined;
  sns.subscriptions.delete(subscription.arn);
  sns.sendUnsubscribeConfirmation(subscription);
  return undefined;
};

export const getSubscriptionAttributes: Handler = (sns, params) => {
  const subscription = sns.subscription(params.require('SubscriptionArn'));
  const { attributes } = subscription;
  const { FilterPolicy, FilterPolicyScope, ...others } = attributes;
  const http = HTTP_PROTOCOLS.has(subscription.protocol);
  return [
    attributesXml({
      ...others,
      // An empty (removed) filter policy hides its scope too.
      ...(FilterPolicy ? { FilterPolicy, FilterPolicyScope: FilterPolicyScope ?? 'MessageAttributes' } : {}),
      ...(http ? { EffectiveDeliveryPolicy: effectiveDeliveryPolicy(attributes.DeliveryPolicy, sns.topics.get(subscription.topicArn)?.attributes.DeliveryPolicy) } : {}),
      SubscriptionArn: subscription.arn,
      TopicArn: subscription.topicArn,
      Owner: subscription.owner,
      Protocol: subscription.protocol,
      Endpoint: subscription.endpoint,
      PendingConfirmation: String(subscription.pendingConfirmation),
      ConfirmationWasAuthenticated: String(subscription.confirmationWasAuthenticated),
      RawMessageDelivery: attributes.RawMessageDelivery ?? 'false',
      SubscriptionPrincipal: subscription.principal ?? localPrincipalArn('', sns.settings.accountId),
    }),
  ];
};

export const setSubscriptionAttributes: Handler = (sns, params) => {
  const subscription = sns.subscription(params.require('SubscriptionArn'));
  const name = params.require('AttributeName');
  const value = checkedSubscriptionAttribute(name, params.get('AttributeValue') ?? '', subscription.protocol);
  // An empty policy removes it, as in SNS.
  if (value === '' && name !== 'SubscriptionRoleArn') delete subscription.attributes[name];
  else subscription.attributes[name] = value;
  return undefined;
};

function subscriptionsXml(subscriptions: SubscriptionRecord[], nextToken: string | undefined): string[] {
  const member = (subscription: SubscriptionRecord) =>
    el('member', [
      // SNS lists an unconfirmed subscription under this placeholder instead of its ARN (SNS
      // Developer Guide, "Step 3: Confirm your Amazon SNS subscription"; shared/reconciliation/sns-inventory.ts).
      el('SubscriptionArn', subscription.pendingConfirmation ? 'PendingConfirmation' : subscription.arn),
      el('Owner', subscription.owner),
      el('Protocol', subscription.protocol),
      // A password never in a listing: GetSubscriptionAttributes alone shows it (masking.ts).
      el('Endpoint', maskPasswords(subscription.endpoint)),
      el('TopicArn', subscription.topicArn),
    ]);
  return [el('Subscriptions', subscriptions.map(member)), ...(nextToken ? [el('NextToken', nextToken)] : [])];
}

export const listSubscriptions: Handler = (sns, params) => {
  const { items, nextToken } = page([...sns.subscriptions.values()], params);
  return subscriptionsXml(items, nextToken);
};

export const listSubscriptionsByTopic: Handler = (sns, params) => {
  const topic = sns.topic(params.require('TopicArn'));
  const { items, nextToken } = page(sns.subscriptionsOf(topic.arn), params);
  return subscriptionsXml(items, nextToken);
};
