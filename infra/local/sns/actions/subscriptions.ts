/**
 * Subscribe, ConfirmSubscription, Unsubscribe, GetSubscriptionAttributes,
 * SetSubscriptionAttributes, ListSubscriptions, ListSubscriptionsByTopic.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { invalidParameter } from '../errors';
import { parseFilterPolicy } from '../filter-policy';
import { maskPasswords } from '../masking';
import { attributesXml, el, type QueryParams } from '../query-protocol';
import type { SubscriptionRecord } from '../types';
import { type Handler, page } from './handler';

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

export const subscribe: Handler = (sns, params) => {
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

export const confirmSubscription: Handler = (sns, params, request) => {
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

export const unsubscribe: Handler = (sns, params) => {
  const subscription = sns.subscription(params.require('SubscriptionArn'));
  sns.subscriptions.delete(subscription.arn);
  sns.sendUnsubscribeConfirmation(subscription);
  return undefined;
};

export const getSubscriptionAttributes: Handler = (sns, params) => {
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
