/**
 * What the emulator knows: topics (with their attributes and tags), subscriptions, and the
 * deliveries it recorded. SnsBackend holds them for the action handlers and, when a state file
 * is configured, loads topics and subscriptions from it at start and saves them after changes.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DeliveryQueue } from './delivery';
import { invalidParameter, type SnsError, subscriptionNotFound, topicNotFound } from './errors';
import { confirmationMessage, type MessageOrigin, subscribeUrl, unsubscribeConfirmationMessage } from './messages';
import type { SigningIdentity } from './signing';
import type { DeadLetter, OutgoingMessage, RecordedDelivery, SubscriptionRecord, TopicRecord } from './types';

const MAX_RECORDED_DELIVERIES = 1_000;
const MAX_DEAD_LETTERS = 1_000;
/** SNS's limit on a delivery policy's numRetries. */
const MAX_POLICY_RETRIES = 100;

export const TOPIC_NAME = /^(?:[A-Za-z0-9_-]{1,256}|[A-Za-z0-9_-]{1,251}\.fifo)$/;
export const TOPIC_ARN = /^arn:[^:]+:sns:[^:]*:[^:]+:[A-Za-z0-9_-]+(?:\.fifo)?$/;
const SUBSCRIPTION_ARN = /^(arn:[^:]+:sns:[^:]*:[^:]+:[A-Za-z0-9_-]+(?:\.fifo)?):[0-9a-f-]{36}$/;

const HTTP_PROTOCOLS = new Set(['http', 'https']);

interface PersistedState {
  version: 1;
  nextSeq: number;
  topics: TopicRecord[];
  subscriptions: SubscriptionRecord[];
  /** Optional: a state file without dead letters loads as having none. */
  deadLetters?: DeadLetter[];
}

interface Settings {
  accountId: string;
  region: string;
  stateFile: string | undefined;
  /** The key every message is signed with, and the certificate served for it. */
  signing: SigningIdentity;
  log: (line: string) => void;
}

/** Topics, subscriptions, and what happens to them: everything the action handlers work on. */
export class SnsBackend {
  readonly topics = new Map<string, TopicRecord>();
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  readonly recorded: RecordedDelivery[] = [];
  readonly deadLetters: DeadLetter[] = [];
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

  /** What messages are built from: the emulator's address and its signing identity. */
  get origin(): MessageOrigin {
    return { endpoint: this.endpoint, signing: this.settings.signing };
  }

  subscriptionsOf(topicArn: string): SubscriptionRecord[] {
    return [...this.subscriptions.values()].filter((subscription) => subscription.topicArn === topicArn);
  }

  record(delivery: RecordedDelivery): void {
    this.recorded.push(delivery);
    if (this.recorded.length > MAX_RECORDED_DELIVERIES) this.recorded.shift();
  }

  /**
   * Records the message for the subscriber and, for http/https, sends it. Retries stop once the
   * subscription is gone, unless `stillWanted` says otherwise.
   */
  deliver(subscription: SubscriptionRecord, message: OutgoingMessage, stillWanted?: () => boolean): void {
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
    const policy = deliveryPolicyOf(subscription);
    const deadLetterTargetArn = deadLetterTargetOf(subscription);
    const contentType = policy?.requestPolicy?.headerContentType;
    this.deliveries.enqueue({
      url: subscription.endpoint,
      body: message.body,
      headers: typeof contentType === 'string' ? { ...message.headers, 'content-type': contentType } : message.headers,
      label: `${message.type} ${message.messageId} to ${subscription.endpoint}`,
      // Unsubscribe and DeleteTopic (which takes its subscriptions along) remove the record.
      stillWanted: stillWanted ?? (() => this.subscriptions.has(subscription.arn)),
      retries: retriesOf(policy),
      // Only notifications are redriven: a confirmation that failed is simply not confirmed.
      onGiveUp:
        message.type === 'Notification' && deadLetterTargetArn
          ? (reason, attempts) =>
              this.deadLetter({
                at: new Date().toISOString(),
                deadLetterTargetArn,
                topicArn: subscription.topicArn,
                subscriptionArn: subscription.arn,
                endpoint: subscription.endpoint,
                messageId: message.messageId,
                reason,
                attempts,
                body: message.body,
              })
          : undefined,
    });
  }

  /** Keeps a message every delivery attempt failed for (GET /_emulator/dead-letters), and saves it. */
  deadLetter(letter: DeadLetter): void {
    this.deadLetters.push(letter);
    if (this.deadLetters.length > MAX_DEAD_LETTERS) this.deadLetters.shift();
    this.settings.log(`dead-lettered ${letter.messageId} of ${letter.subscriptionArn} to ${letter.deadLetterTargetArn}`);
    try {
      this.save();
    } catch (error) {
      this.settings.log(`could not save the state file: ${String(error)}`);
    }
  }

  sendConfirmation(subscription: SubscriptionRecord): void {
    const message = confirmationMessage(this.origin, this.topic(subscription.topicArn), subscription);
    if (!HTTP_PROTOCOLS.has(subscription.protocol)) {
      // Nothing can click a link in an e-mail here; the log shows where to confirm by hand.
      this.settings.log(`confirm ${subscription.protocol}:${subscription.endpoint} at ${subscribeUrl(this.endpoint, subscription)}`);
    }
    this.deliver(subscription, message);
  }

  /** After an Unsubscribe: SNS tells a confirmed http/https endpoint, whose subscription is already gone. */
  sendUnsubscribeConfirmation(subscription: SubscriptionRecord): void {
    const topic = this.topics.get(subscription.topicArn);
    if (!topic || subscription.pendingConfirmation || !HTTP_PROTOCOLS.has(subscription.protocol)) return;
    // Sent for a subscription that no longer exists by design: only the topic's deletion stops it.
    this.deliver(subscription, unsubscribeConfirmationMessage(this.origin, topic, subscription), () => this.topics.has(topic.arn));
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
    if (Array.isArray(state.deadLetters)) this.deadLetters.push(...state.deadLetters.slice(-MAX_DEAD_LETTERS));
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
      deadLetters: this.deadLetters,
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

interface DeliveryPolicy {
  healthyRetryPolicy?: { numRetries?: unknown };
  requestPolicy?: { headerContentType?: unknown };
}

/** The subscription's DeliveryPolicy (checked to be JSON when it was set), or undefined. */
function deliveryPolicyOf(subscription: SubscriptionRecord): DeliveryPolicy | undefined {
  const text = subscription.attributes.DeliveryPolicy;
  if (!text) return undefined;
  try {
    const policy: unknown = JSON.parse(text);
    return typeof policy === 'object' && policy !== null ? (policy as DeliveryPolicy) : undefined;
  } catch {
    return undefined;
  }
}

/** The retries a delivery policy asks for; undefined leaves the emulator's default. */
function retriesOf(policy: DeliveryPolicy | undefined): number | undefined {
  const retries = policy?.healthyRetryPolicy?.numRetries;
  return typeof retries === 'number' && Number.isInteger(retries) && retries >= 0 ? Math.min(retries, MAX_POLICY_RETRIES) : undefined;
}

/** The dead-letter queue of the subscription's RedrivePolicy, or undefined. */
function deadLetterTargetOf(subscription: SubscriptionRecord): string | undefined {
  const text = subscription.attributes.RedrivePolicy;
  if (!text) return undefined;
  try {
    const target = (JSON.parse(text) as { deadLetterTargetArn?: unknown }).deadLetterTargetArn;
    return typeof target === 'string' && target !== '' ? target : undefined;
  } catch {
    return undefined;
  }
}
