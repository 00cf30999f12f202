/**
 * A stand-in for Amazon SNS on one machine, for tests and local runs.
 *
 * It speaks the SNS Query protocol (form-encoded POST `Action=…&Version=2010-03-31`, XML answers
 * in the 2010-03-31 namespace) closely enough that `@aws-sdk/client-sns` and the AWS CLI work
 * against it unchanged, and it delivers to http/https subscribers the way SNS does: a
 * SubscriptionConfirmation first, Notifications only once confirmed, SNS's JSON message shape
 * and `x-amz-sns-*` headers, retries with backoff. Other protocols (email, sqs, lambda, …) are
 * recorded, not sent; `GET /_emulator/deliveries` lists what was recorded.
 *
 * Run it alone with `tsx infra/local/sns-emulator.ts` (env SNS_PORT, DATA_DIR, IN_MEMORY).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

export interface SnsEmulatorOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Default '127.0.0.1': never bind anything else by default. */
  host?: string;
  /** Default '000000000000'. */
  accountId?: string;
  /** Default 'us-east-1' (ARNs use it). */
  region?: string;
  /** When set: state is loaded from this JSON file at start and written after every change. */
  stateFile?: string;
  /** http/https delivery attempts after the first, default 3. */
  deliveryRetries?: number;
  /** Base backoff, doubled per retry, default 200 ms. */
  deliveryBackoffMs?: number;
  log?: (line: string) => void;
}

export interface SnsEmulator {
  /** e.g. 'http://127.0.0.1:54321' */
  endpoint: string;
  port: number;
  /** Stops the server and any pending deliveries and retry timers. */
  close(): Promise<void>;
}

/** What the emulator handed to a subscriber (sent over HTTP, or only recorded for other protocols). */
export interface RecordedDelivery {
  at: string;
  type: MessageType;
  messageId: string;
  topicArn: string;
  subscriptionArn: string;
  protocol: string;
  endpoint: string;
  body: string;
}

type MessageType = 'SubscriptionConfirmation' | 'Notification';

// ---------------------------------------------------------------------------------------------
// Limits and constants
// ---------------------------------------------------------------------------------------------

const XML_NAMESPACE = 'http://sns.amazonaws.com/doc/2010-03-31/';
/** SNS pages every listing at 100 entries. */
const PAGE_SIZE = 100;
/** SNS's limit for a message with its attributes. */
const MAX_MESSAGE_BYTES = 256 * 1024;
/** A 256 KiB message, form-encoded, can grow up to nine-fold (%XX per byte of 3-byte UTF-8). */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const MAX_LIST_ENTRIES = 1_000;
const MAX_TAGS_PER_TOPIC = 50;
const MAX_MESSAGE_ATTRIBUTES = 10;
const MAX_RECORDED_DELIVERIES = 1_000;
/** Deliveries waiting for an answer or a retry; past this, new ones are dropped (and logged). */
const MAX_PENDING_DELIVERIES = 1_000;
const DELIVERY_TIMEOUT_MS = 5_000;
const MAX_DELIVERY_RETRIES = 10;
const MAX_DELIVERY_BACKOFF_MS = 60_000;
const DELIVERIES_PATH = '/_emulator/deliveries';

const TOPIC_NAME = /^(?:[A-Za-z0-9_-]{1,256}|[A-Za-z0-9_-]{1,251}\.fifo)$/;
const TOPIC_ARN = /^arn:[^:]+:sns:[^:]*:[^:]+:[A-Za-z0-9_-]+(?:\.fifo)?$/;
const SUBSCRIPTION_ARN = /^(arn:[^:]+:sns:[^:]*:[^:]+:[A-Za-z0-9_-]+(?:\.fifo)?):[0-9a-f-]{36}$/;

/** Protocols whose endpoint must confirm (by SubscribeURL or ConfirmSubscription) before it gets messages. */
const CONFIRMED_BY_ENDPOINT = new Set(['http', 'https', 'email', 'email-json']);
const HTTP_PROTOCOLS = new Set(['http', 'https']);

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

// ---------------------------------------------------------------------------------------------
// Errors, as SNS names them
// ---------------------------------------------------------------------------------------------

/** An error answered as `<ErrorResponse>`; `code` is what the SDK maps to its exception class. */
class SnsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    readonly type: 'Sender' | 'Receiver' = 'Sender',
  ) {
    super(message);
  }
}

const invalidParameter = (what: string) => new SnsError('InvalidParameter', `Invalid parameter: ${what}`);
const topicNotFound = () => new SnsError('NotFound', 'Topic does not exist', 404);
const subscriptionNotFound = () => new SnsError('NotFound', 'Subscription does not exist', 404);
const resourceNotFound = () => new SnsError('ResourceNotFound', 'Resource does not exist', 404);

// ---------------------------------------------------------------------------------------------
// XML
// ---------------------------------------------------------------------------------------------

function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r]/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** One element: string content is text (escaped here); an array is child elements built with `el`. */
function el(name: string, content: string | readonly string[] = []): string {
  const inner = typeof content === 'string' ? escapeXml(content) : content.join('');
  return `<${name}>${inner}</${name}>`;
}

function successXml(action: string, result: readonly string[] | undefined, requestId: string): string {
  const resultElement = result ? el(`${action}Result`, result) : '';
  const metadata = el('ResponseMetadata', [el('RequestId', requestId)]);
  return `<?xml version="1.0"?>\n<${action}Response xmlns="${XML_NAMESPACE}">${resultElement}${metadata}</${action}Response>\n`;
}

function errorXml(error: SnsError, requestId: string): string {
  const body = el('Error', [el('Type', error.type), el('Code', error.code), el('Message', error.message)]);
  return `<?xml version="1.0"?>\n<ErrorResponse xmlns="${XML_NAMESPACE}">${body}${el('RequestId', requestId)}</ErrorResponse>\n`;
}

function attributesXml(attributes: Record<string, string>): string {
  return el(
    'Attributes',
    Object.entries(attributes).map(([key, value]) => el('entry', [el('key', key), el('value', value)])),
  );
}

// ---------------------------------------------------------------------------------------------
// Query parameters
// ---------------------------------------------------------------------------------------------

/** The request's parameters (query string and form body), with the Query protocol's list and map shapes. */
class QueryParams {
  constructor(private readonly values: Map<string, string>) {}

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  require(name: string): string {
    const value = this.values.get(name);
    if (value === undefined || value === '') throw invalidParameter(`${name} Reason: no value for required parameter`);
    return value;
  }

  /** Booleans arrive as the text 'true'/'false' from both the SDK and the CLI. */
  flag(name: string): boolean {
    return this.values.get(name)?.toLowerCase() === 'true';
  }

  /**
   * `prefix.1`, `prefix.1.Key`, `prefix.2.Key`… grouped by index, in index order. Each group maps
   * the rest of the name to the value ('' for `prefix.N` itself). Collected by scanning the
   * names rather than counting up, so a gap in the numbering loses nothing.
   */
  indexed(prefix: string): Record<string, string>[] {
    const groups = new Map<number, Record<string, string>>();
    for (const [name, value] of this.values) {
      if (!name.startsWith(`${prefix}.`)) continue;
      const rest = name.slice(prefix.length + 1);
      const dot = rest.indexOf('.');
      const index = dot === -1 ? rest : rest.slice(0, dot);
      if (!/^[0-9]{1,6}$/.test(index)) continue;
      let group = groups.get(Number(index));
      if (!group) {
        if (groups.size >= MAX_LIST_ENTRIES) throw invalidParameter(`${prefix} Reason: too many entries`);
        group = Object.create(null) as Record<string, string>;
        groups.set(Number(index), group);
      }
      group[dot === -1 ? '' : rest.slice(dot + 1)] = value;
    }
    return [...groups.entries()].sort(([a], [b]) => a - b).map(([, group]) => group);
  }

  /** A list: `Name.member.N`. */
  members(name: string): string[] {
    return this.indexed(`${name}.member`).flatMap((group) => (group[''] === undefined ? [] : [group['']]));
  }

  /** A string map: `Name.entry.N.key` / `Name.entry.N.value`. */
  stringMap(name: string): Map<string, string> {
    const map = new Map<string, string>();
    for (const entry of this.indexed(`${name}.entry`)) {
      if (entry.key === undefined) throw invalidParameter(`${name} Reason: entry without a key`);
      map.set(entry.key, entry.value ?? '');
    }
    return map;
  }

  /** Tags: `Tags.member.N.Key` / `Tags.member.N.Value`. */
  tags(name = 'Tags'): Tag[] {
    return this.indexed(`${name}.member`).map((member) => ({ Key: member.Key ?? '', Value: member.Value ?? '' }));
  }
}

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

interface Tag {
  Key: string;
  Value: string;
}

interface TopicRecord {
  arn: string;
  name: string;
  attributes: Record<string, string>;
  tags: Tag[];
  /** Creation order; listings page by it. */
  seq: number;
}

interface SubscriptionRecord {
  arn: string;
  topicArn: string;
  protocol: string;
  endpoint: string;
  owner: string;
  attributes: Record<string, string>;
  pendingConfirmation: boolean;
  confirmationWasAuthenticated: boolean;
  /** The confirmation token; kept so a SubscribeURL still works after a restart. */
  token: string;
  seq: number;
}

interface PersistedState {
  version: 1;
  nextSeq: number;
  topics: TopicRecord[];
  subscriptions: SubscriptionRecord[];
}

interface Settings {
  accountId: string;
  region: string;
  stateFile: string | undefined;
  log: (line: string) => void;
}

interface RequestFacts {
  /** Signed with SigV4 (SDK, CLI), as opposed to a bare URL visit such as a SubscribeURL. */
  signed: boolean;
}

/** Topics, subscriptions, and what happens to them: everything the action handlers work on. */
class SnsBackend {
  readonly topics = new Map<string, TopicRecord>();
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  readonly recorded: RecordedDelivery[] = [];
  /** Set once the server listens; SubscribeURL and UnsubscribeURL point back here. */
  endpoint = '';
  private nextSeq = 1;
  private fifoSequence = 0n;

  constructor(
    readonly settings: Settings,
    private readonly deliveries: DeliveryQueue,
  ) {}

  topicArnFor(name: string): string {
    return `arn:aws:sns:${this.settings.region}:${this.settings.accountId}:${name}`;
  }

  takeSeq(): number {
    return this.nextSeq++;
  }

  nextFifoSequenceNumber(): string {
    this.fifoSequence += 1n;
    return this.fifoSequence.toString().padStart(20, '0');
  }

  /** The topic, after checking the ARN's shape (InvalidParameter) and existence (NotFound by default). */
  topic(arn: string, missing: () => SnsError = topicNotFound): TopicRecord {
    if (!TOPIC_ARN.test(arn)) throw invalidParameter('TopicArn');
    const topic = this.topics.get(arn);
    if (!topic) throw missing();
    return topic;
  }

  subscription(arn: string): SubscriptionRecord {
    if (!SUBSCRIPTION_ARN.test(arn)) throw invalidParameter('SubscriptionArn');
    const subscription = this.subscriptions.get(arn);
    if (!subscription) throw subscriptionNotFound();
    return subscription;
  }

  subscriptionsOf(topicArn: string): SubscriptionRecord[] {
    return [...this.subscriptions.values()].filter((subscription) => subscription.topicArn === topicArn);
  }

  record(delivery: RecordedDelivery): void {
    this.recorded.push(delivery);
    if (this.recorded.length > MAX_RECORDED_DELIVERIES) this.recorded.shift();
  }

  /** Records the message for the subscriber and, for http/https, sends it. */
  deliver(subscription: SubscriptionRecord, message: OutgoingMessage): void {
    this.record({
      at: new Date().toISOString(),
      type: message.type,
      messageId: message.messageId,
      topicArn: subscription.topicArn,
      subscriptionArn: subscription.arn,
      protocol: subscription.protocol,
      endpoint: subscription.endpoint,
      body: message.body,
    });
    if (!HTTP_PROTOCOLS.has(subscription.protocol)) {
      this.settings.log(`recorded ${message.type} ${message.messageId} for ${subscription.protocol}:${subscription.endpoint}`);
      return;
    }
    this.deliveries.enqueue({
      url: subscription.endpoint,
      body: message.body,
      headers: message.headers,
      label: `${message.type} ${message.messageId} to ${subscription.endpoint}`,
    });
  }

  sendConfirmation(subscription: SubscriptionRecord): void {
    const message = confirmationMessage(this, subscription);
    if (!HTTP_PROTOCOLS.has(subscription.protocol)) {
      // Nothing can click a link in an e-mail here; the log shows where to confirm by hand.
      this.settings.log(`confirm ${subscription.protocol}:${subscription.endpoint} at ${subscribeUrl(this, subscription)}`);
    }
    this.deliver(subscription, message);
  }

  load(): void {
    const file = this.settings.stateFile;
    if (!file) return;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    let state: PersistedState;
    try {
      state = JSON.parse(text) as PersistedState;
    } catch (error) {
      throw new Error(`SNS emulator state file ${file} is not valid JSON (${(error as Error).message}); fix or remove it.`);
    }
    if (state?.version !== 1 || !Array.isArray(state.topics) || !Array.isArray(state.subscriptions)) {
      throw new Error(`SNS emulator state file ${file} is not in the expected format; fix or remove it.`);
    }
    for (const topic of state.topics) this.topics.set(topic.arn, topic);
    for (const subscription of state.subscriptions) this.subscriptions.set(subscription.arn, subscription);
    this.nextSeq = Math.max(Number(state.nextSeq) || 1, ...[...state.topics, ...state.subscriptions].map((r) => r.seq + 1));
  }

  /**
   * Writes the whole state after a change. Synchronously, so writes can never interleave or be
   * reordered, and through a temporary file renamed over the old one, so a crash mid-write
   * leaves the previous state, never half a file. The state is small; this is cheap.
   */
  save(): void {
    const file = this.settings.stateFile;
    if (!file) return;
    const state: PersistedState = {
      version: 1,
      nextSeq: this.nextSeq,
      topics: [...this.topics.values()],
      subscriptions: [...this.subscriptions.values()],
    };
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(temporary, JSON.stringify(state, null, 2));
      renameSync(temporary, file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Messages to subscribers (SNS's HTTP/S JSON formats)
// ---------------------------------------------------------------------------------------------

interface OutgoingMessage {
  type: MessageType;
  messageId: string;
  body: string;
  headers: Record<string, string>;
}

interface MessageAttribute {
  name: string;
  dataType: string;
  stringValue?: string;
  binaryValue?: string;
}

interface Publication {
  topic: TopicRecord;
  messageId: string;
  /** Message per protocol: with MessageStructure=json each protocol may get its own text. */
  messageFor: (protocol: string) => string;
  subject: string | undefined;
  attributes: MessageAttribute[];
  timestamp: string;
}

function subscribeUrl(sns: SnsBackend, subscription: SubscriptionRecord): string {
  const { topicArn, token } = subscription;
  return `${sns.endpoint}/?${new URLSearchParams({ Action: 'ConfirmSubscription', TopicArn: topicArn, Token: token })}`;
}

function unsubscribeUrl(sns: SnsBackend, subscriptionArn: string): string {
  return `${sns.endpoint}/?${new URLSearchParams({ Action: 'Unsubscribe', SubscriptionArn: subscriptionArn })}`;
}

/**
 * SNS signs Message, MessageId, Subject, SubscribeURL, Timestamp, Token, TopicArn and Type with
 * its private key. The emulator has no certificate an endpoint could check, so the field holds
 * a digest of the same string-to-sign: well-formed and stable, not verifiable. Endpoints must
 * not verify signatures when pointed at the emulator.
 */
function placeholderSignature(fields: Record<string, string | undefined>): string {
  const signed = ['Message', 'MessageId', 'Subject', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const stringToSign = signed
    .filter((key) => fields[key] !== undefined)
    .map((key) => `${key}\n${fields[key]}\n`)
    .join('');
  return createHash('sha1').update(stringToSign).digest('base64');
}

function signatureFields(sns: SnsBackend, topic: TopicRecord, fields: Record<string, string | undefined>) {
  return {
    SignatureVersion: topic.attributes.SignatureVersion ?? '1',
    Signature: placeholderSignature(fields),
    SigningCertURL: `${sns.endpoint}/SimpleNotificationService-emulator.pem`,
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

function confirmationMessage(sns: SnsBackend, subscription: SubscriptionRecord): OutgoingMessage {
  const topic = sns.topic(subscription.topicArn);
  const messageId = randomUUID();
  const fields = {
    Type: 'SubscriptionConfirmation' as const,
    MessageId: messageId,
    Token: subscription.token,
    TopicArn: topic.arn,
    Message:
      `You have chosen to subscribe to the topic ${topic.arn}.\n` +
      'To confirm the subscription, visit the SubscribeURL included in this message.',
    SubscribeURL: subscribeUrl(sns, subscription),
    Timestamp: new Date().toISOString(),
  };
  return {
    type: 'SubscriptionConfirmation',
    messageId,
    body: JSON.stringify({ ...fields, ...signatureFields(sns, topic, fields) }, null, 2),
    headers: snsHeaders('SubscriptionConfirmation', messageId, topic.arn),
  };
}

function notificationMessage(sns: SnsBackend, subscription: SubscriptionRecord, publication: Publication): OutgoingMessage {
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
    ...signatureFields(sns, topic, fields),
    UnsubscribeURL: unsubscribeUrl(sns, subscription.arn),
    ...(publication.attributes.length > 0 ? { MessageAttributes: attributes } : {}),
  };
  return { type: 'Notification', messageId, body: JSON.stringify(body, null, 2), headers };
}

// ---------------------------------------------------------------------------------------------
// Filter policies (the common subset of SNS's matching rules)
// ---------------------------------------------------------------------------------------------

const FILTER_OPERATORS = new Set(['prefix', 'suffix', 'equals-ignore-case', 'anything-but', 'exists', 'numeric']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a FilterPolicy when it is set, so a policy the emulator cannot apply is refused up front. */
function parseFilterPolicy(text: string): Record<string, unknown> {
  let policy: unknown;
  try {
    policy = JSON.parse(text);
  } catch {
    throw invalidParameter('FilterPolicy: failed to parse JSON');
  }
  if (!isPlainObject(policy)) throw invalidParameter('FilterPolicy: must be a JSON object');
  const check = (node: Record<string, unknown>, depth: number): void => {
    if (depth > 5) throw invalidParameter('FilterPolicy: too deeply nested');
    for (const rule of Object.values(node)) {
      if (isPlainObject(rule)) {
        check(rule, depth + 1);
      } else if (Array.isArray(rule)) {
        for (const condition of rule) {
          if (!isPlainObject(condition)) continue;
          const operator = Object.keys(condition)[0] ?? '';
          if (!FILTER_OPERATORS.has(operator)) throw invalidParameter(`FilterPolicy: Unrecognized match type ${operator}`);
        }
      } else {
        throw invalidParameter('FilterPolicy: match values must be in an array');
      }
    }
  };
  check(policy, 1);
  return policy;
}

function matchesPolicy(policy: Record<string, unknown>, data: unknown): boolean {
  return Object.entries(policy).every(([key, rule]) => {
    const value = isPlainObject(data) && Object.hasOwn(data, key) ? data[key] : undefined;
    if (isPlainObject(rule)) return matchesPolicy(rule, value);
    return Array.isArray(rule) && rule.some((condition) => matchesCondition(condition, value));
  });
}

function matchesCondition(condition: unknown, value: unknown): boolean {
  if (isPlainObject(condition) && 'exists' in condition) return condition.exists === (value !== undefined);
  if (value === undefined) return false;
  // An array value (String.Array attribute, JSON array in the body) matches when any element does.
  const candidates = Array.isArray(value) ? value : [value];
  return candidates.some((candidate) =>
    isPlainObject(condition) ? matchesOperator(condition, candidate) : candidate === condition,
  );
}

function matchesOperator(condition: Record<string, unknown>, value: unknown): boolean {
  const [operator, argument] = Object.entries(condition)[0] ?? [];
  const text = typeof value === 'string' ? value : undefined;
  switch (operator) {
    case 'prefix':
      return text !== undefined && text.startsWith(String(argument));
    case 'suffix':
      return text !== undefined && text.endsWith(String(argument));
    case 'equals-ignore-case':
      return text !== undefined && text.toLowerCase() === String(argument).toLowerCase();
    case 'anything-but':
      if (isPlainObject(argument)) return !matchesOperator(argument, value);
      return !(Array.isArray(argument) ? argument : [argument]).includes(value);
    case 'numeric':
      return typeof value === 'number' && matchesNumeric(Array.isArray(argument) ? argument : [], value);
    default:
      return false;
  }
}

/** `["=", 5]`, `[">", 0, "<=", 10]`: every comparison must hold. */
function matchesNumeric(comparisons: unknown[], value: number): boolean {
  for (let i = 0; i + 1 < comparisons.length; i += 2) {
    const bound = Number(comparisons[i + 1]);
    const holds = {
      '=': value === bound,
      '<': value < bound,
      '<=': value <= bound,
      '>': value > bound,
      '>=': value >= bound,
    }[String(comparisons[i])];
    if (!holds) return false;
  }
  return comparisons.length >= 2;
}

/** The values a filter policy sees: message attributes by default, the JSON body with FilterPolicyScope=MessageBody. */
function filterData(subscription: SubscriptionRecord, publication: Publication): unknown {
  if (subscription.attributes.FilterPolicyScope === 'MessageBody') {
    try {
      return JSON.parse(publication.messageFor(subscription.protocol));
    } catch {
      return undefined;
    }
  }
  return Object.fromEntries(
    publication.attributes.map((attribute) => {
      const value = attribute.stringValue;
      if (attribute.dataType.startsWith('Number')) return [attribute.name, Number(value)];
      if (attribute.dataType === 'String.Array') {
        try {
          return [attribute.name, JSON.parse(value ?? '')];
        } catch {
          return [attribute.name, value];
        }
      }
      return [attribute.name, value];
    }),
  );
}

function passesFilter(subscription: SubscriptionRecord, publication: Publication): boolean {
  const policy = subscription.attributes.FilterPolicy;
  if (!policy) return true;
  return matchesPolicy(parseFilterPolicy(policy), filterData(subscription, publication));
}

// ---------------------------------------------------------------------------------------------
// HTTP/S delivery with retries
// ---------------------------------------------------------------------------------------------

interface HttpDelivery {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** For log lines. */
  label: string;
}

type AttemptOutcome = 'delivered' | { retryable: boolean; reason: string };

/**
 * Sends deliveries in the background: the API answers at once, whatever the endpoint does.
 * A connection error, a timeout, a 5xx or a 429 is retried with exponential backoff; other
 * 4xx answers are the endpoint refusing the message, which SNS does not retry either. Every
 * path is caught, so a bad endpoint can never crash the process, and close() cancels all of it.
 */
class DeliveryQueue {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private pending = 0;

  constructor(
    private readonly retries: number,
    private readonly backoffMs: number,
    private readonly log: (line: string) => void,
  ) {}

  enqueue(delivery: HttpDelivery): void {
    if (this.stopping.signal.aborted) return;
    if (this.pending >= MAX_PENDING_DELIVERIES) {
      this.log(`dropped ${delivery.label}: ${MAX_PENDING_DELIVERIES} deliveries already pending`);
      return;
    }
    this.pending++;
    this.attempt(delivery, 0);
  }

  /** Cancels retry timers and aborts requests in flight; resolves once those have settled. */
  async close(): Promise<void> {
    this.stopping.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private attempt(delivery: HttpDelivery, retry: number): void {
    const run = this.tryOnce(delivery)
      .then((outcome) => this.afterAttempt(delivery, retry, outcome))
      .catch((error: unknown) => this.log(`delivery bookkeeping failed: ${String(error)}`));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  private async tryOnce(delivery: HttpDelivery): Promise<AttemptOutcome> {
    const timeout = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
    try {
      const status = await postOnce(delivery, AbortSignal.any([this.stopping.signal, timeout]));
      if (status >= 200 && status < 300) return 'delivered';
      const refused = status >= 400 && status < 500 && status !== 429;
      return { retryable: !refused, reason: `HTTP ${status}` };
    } catch (error) {
      const reason = timeout.aborted ? `no answer within ${DELIVERY_TIMEOUT_MS} ms` : (error as Error).message || String(error);
      return { retryable: true, reason };
    }
  }

  private afterAttempt(delivery: HttpDelivery, retry: number, outcome: AttemptOutcome): void {
    if (this.stopping.signal.aborted) return;
    if (outcome === 'delivered') {
      this.log(`delivered ${delivery.label}`);
      this.pending--;
      return;
    }
    if (!outcome.retryable || retry >= this.retries) {
      this.log(`gave up on ${delivery.label} after ${retry + 1} attempt(s): ${outcome.reason}`);
      this.pending--;
      return;
    }
    const delay = this.backoffMs * 2 ** retry;
    this.log(`retrying ${delivery.label} in ${delay} ms: ${outcome.reason}`);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.attempt(delivery, retry + 1);
    }, delay);
    this.timers.add(timer);
  }
}

/** One POST to the subscriber's endpoint, and only there: no redirects followed, no other host. Resolves with the status. */
function postOnce(delivery: HttpDelivery, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(delivery.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const options: RequestOptions = {
      method: 'POST',
      headers: { ...delivery.headers, 'content-length': Buffer.byteLength(delivery.body) },
      // A fresh connection per attempt: nothing lingers in a pool after close().
      agent: false,
      signal,
    };
    const request = send(url, options, (response) => {
      response.on('error', () => {}); // an abort after the status arrived is not a failure of this attempt
      response.resume(); // the body is of no interest; drain it so the socket can close
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end(delivery.body);
  });
}

// ---------------------------------------------------------------------------------------------
// Action handlers
// ---------------------------------------------------------------------------------------------

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

function topicAttributesFrom(params: QueryParams, name: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [key, value] of params.stringMap('Attributes')) {
    if (!TOPIC_ATTRIBUTES.has(key)) throw invalidParameter(`Attributes Reason: Unknown attribute ${key}`);
    attributes[key] = value;
  }
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
  topic.attributes[name] = params.get('AttributeValue') ?? '';
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

  const needsConfirmation = CONFIRMED_BY_ENDPOINT.has(protocol);
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
const ACTIONS: Record<string, { run: Handler; writes: boolean }> = {
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
const UNSIGNED_ACTIONS = new Set(['ConfirmSubscription', 'Unsubscribe']);

// ---------------------------------------------------------------------------------------------
// HTTP server
// ---------------------------------------------------------------------------------------------

/** Reads the body up to MAX_REQUEST_BYTES; past that the rest is drained and the request refused. */
function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > MAX_REQUEST_BYTES) reject(invalidParameter('Request body too large'));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });
}

/** Query string and form body together: the SDK and CLI POST a form; a SubscribeURL is a GET. */
function requestParams(url: URL, body: string): QueryParams {
  const values = new Map(url.searchParams);
  for (const [name, value] of new URLSearchParams(body)) values.set(name, value);
  return new QueryParams(values);
}

function send(response: ServerResponse, status: number, contentType: string, body: string, requestId: string): void {
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'x-amzn-requestid': requestId,
  });
  response.end(body);
}

async function handleRequest(sns: SnsBackend, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const requestId = randomUUID();
  try {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const body = await readBody(request);
    if (request.method === 'GET' && url.pathname === DELIVERIES_PATH) {
      send(response, 200, 'application/json', JSON.stringify({ deliveries: sns.recorded }), requestId);
      return;
    }
    const params = requestParams(url, body);
    const action = params.get('Action');
    if (!action) throw new SnsError('MissingAction', 'Missing required parameter: Action');
    const spec = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
    if (!spec) throw new SnsError('InvalidAction', `The action ${action} is not valid for this web service.`);
    const signed = request.headers.authorization !== undefined;
    if (!signed && !UNSIGNED_ACTIONS.has(action)) {
      throw new SnsError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
    }
    const result = spec.run(sns, params, { signed });
    if (spec.writes) sns.save();
    send(response, 200, 'text/xml', successXml(action, result, requestId), requestId);
  } catch (error) {
    let snsError: SnsError;
    if (error instanceof SnsError) {
      snsError = error;
    } else {
      sns.settings.log(`internal error: ${(error as Error)?.stack ?? String(error)}`);
      snsError = new SnsError('InternalError', 'The emulator failed to process the request.', 500, 'Receiver');
    }
    if (!response.headersSent) send(response, snsError.status, 'text/xml', errorXml(snsError, requestId), requestId);
  }
}

function checkedOption(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new RangeError(`${name} must be an integer from 0 to ${max}`);
  return value;
}

export async function startSnsEmulator(options: SnsEmulatorOptions = {}): Promise<SnsEmulator> {
  const log = options.log ?? (() => {});
  const deliveries = new DeliveryQueue(
    checkedOption('deliveryRetries', options.deliveryRetries ?? 3, MAX_DELIVERY_RETRIES),
    checkedOption('deliveryBackoffMs', options.deliveryBackoffMs ?? 200, MAX_DELIVERY_BACKOFF_MS),
    log,
  );
  const sns = new SnsBackend(
    {
      accountId: options.accountId ?? '000000000000',
      region: options.region ?? 'us-east-1',
      stateFile: options.stateFile,
      log,
    },
    deliveries,
  );
  sns.load();

  const server = createServer((request, response) => {
    handleRequest(sns, request, response).catch((error: unknown) => {
      log(`request failed: ${String(error)}`);
      response.destroy();
    });
  });
  // A client error (malformed HTTP) must not take the emulator down.
  server.on('clientError', (_error, socket) => socket.destroy());

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  sns.endpoint = endpoint;
  log(`SNS emulator listening on ${endpoint}`);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections from SDK clients would otherwise hold close() open.
      server.closeAllConnections();
      await Promise.all([stopped, deliveries.close()]);
    })();
    return closing;
  };
  return { endpoint, port, close };
}

// ---------------------------------------------------------------------------------------------
// Standalone: tsx infra/local/sns-emulator.ts
// ---------------------------------------------------------------------------------------------

function portFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`${name} must be a port number (0-65535), not "${text}".`);
  }
  return port;
}

async function main(): Promise<void> {
  const inMemory = process.env.IN_MEMORY === '1';
  const dataDir = process.env.DATA_DIR || '.data';
  const emulator = await startSnsEmulator({
    port: portFromEnv('SNS_PORT', 9911),
    region: process.env.AWS_REGION || 'us-east-1',
    stateFile: inMemory ? undefined : join(dataDir, 'sns.json'),
    log: (line) => console.log(`[sns] ${line}`),
  });
  console.log(`SNS emulator: ${emulator.endpoint} (${inMemory ? 'in memory' : `state in ${join(dataDir, 'sns.json')}`})`);
  console.log(`  aws sns list-topics --endpoint-url ${emulator.endpoint}`);
  const stop = (signal: string) => {
    console.log(`[sns] ${signal}: stopping`);
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
