/**
 * What the emulator knows: topics (with their attributes and tags), subscriptions, the
 * deliveries it recorded and the dead letters it keeps. SnsBackend holds them for the action
 * handlers and, when a state file is configured, loads them from it at start and saves them
 * after changes; deliveries still pending at stop are saved there too, and resumed at start.
 */
import { readStateFile, writeStateFile } from '../state-file';
import { DeliveryQueue, type DeliverySettings, type PendingDelivery } from './delivery';
import { checkedSubscriptionArn, TOPIC_ARN, topicArnOfSubscription } from './arns';
import { type DeadLetterOverflow, DeadLetterStore } from './dead-letter-store';
import { invalidParameter, malformedArn, type SnsError, subscriptionNotFound, topicNotFound } from './errors';
import { confirmationMessage, type MessageOrigin, subscribeUrl, unsubscribeConfirmationMessage } from './messages';
import { type DeliveryStatusLogEvent, deliveryStatusLogEventOf } from './delivery-status-log';
import type { LogGroupRecord } from './log-groups';
import type { SigningIdentity } from './signing';
import type { DeadLetter, OutgoingMessage, RecordedDelivery, SubscriptionRecord, TopicRecord } from './types';
import { deadLetterTargetOf, deliveryPolicyOf, maxReceivesPerSecondOf, notificationContentType, retriesOf } from './subscription-policies';

const MAX_RECORDED_DELIVERIES = 1_000;
export const DEFAULT_DEAD_LETTERS_PER_SUBSCRIPTION = 1_000;
/** Dead letters are saved at most this often: a burst of them must not rewrite the file per letter. */
const DEAD_LETTER_SAVE_DELAY_MS = 1_000;

const HTTP_PROTOCOLS = new Set(['http', 'https']);

interface PersistedState {
  version: 1;
  nextSeq: number;
  topics: TopicRecord[];
  subscriptions: SubscriptionRecord[];
  /** Optional: a state file without dead letters loads as having none. */
  deadLetters?: DeadLetter[];
  deadLetterOverflow?: DeadLetterOverflow[];
  /** Deliveries not finished when the emulator stopped; resumed at the next start. */
  pendingDeliveries?: PendingDelivery[];
}

interface Settings {
  accountId: string;
  region: string;
  stateFile: string | undefined;
  /** The key every message is signed with, and the certificate served for it. */
  signing: SigningIdentity;
  /** Retries of an http/https delivery whose subscription has no delivery policy. */
  deliveryRetries: number;
  delivery: DeliverySettings;
  /** Dead letters kept per subscription (the latest); older ones are counted in deadLetterOverflow. */
  deadLettersPerSubscription: number;
  /** Called with each new dead letter, as SNS sends it to the queue its redrive policy names. */
  onDeadLetter?: (letter: DeadLetter) => void;
  /** Called with each delivery status record a topic's logging asks for, as SNS writes it to CloudWatch Logs. */
  onDeliveryStatus?: (logEvent: DeliveryStatusLogEvent) => void;
  log: (line: string) => void;
}

/** Topics, subscriptions, and what happens to them: everything the action handlers work on. */
export class SnsBackend {
  readonly topics = new Map<string, TopicRecord>();
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  readonly recorded: RecordedDelivery[] = [];
  /** The delivery status log groups SNS would have made (log-groups.ts), by name. */
  readonly logGroups = new Map<string, LogGroupRecord>();
  /** The dead letters kept, each subscription's latest (GET /_emulator/dead-letters). */
  private readonly kept: DeadLetterStore;
  /** Set once the server listens; SubscribeURL and UnsubscribeURL point back here. */
  endpoint = '';
  private nextSeq = 1;
  private fifoSequence = 0n;
  private readonly deliveries: DeliveryQueue;
  /** Loaded from the state file, sent once the server listens (resume()). */
  private toResume: PendingDelivery[] = [];
  private saveTimer: NodeJS.Timeout | undefined;

  constructor(readonly settings: Settings) {
    this.kept = new DeadLetterStore(settings.deadLettersPerSubscription, settings.log);
    this.deliveries = new DeliveryQueue(settings.delivery, {
      // Unsubscribe and DeleteTopic (which takes its subscriptions along) remove the record.
      // An UnsubscribeConfirmation is sent for a subscription already gone: only its topic's deletion stops it.
      stillWanted: (delivery) =>
        delivery.type === 'UnsubscribeConfirmation'
          ? this.topics.has(topicArnOfSubscription(delivery.subscriptionArn))
          : this.subscriptions.has(delivery.subscriptionArn),
      gaveUp: (delivery, reason) => this.gaveUp(delivery, reason),
      delivered: (delivery) => this.logDeliveryStatus(delivery, { delivered: true, statusCode: delivery.lastStatusCode ?? null, providerResponse: 'OK' }),
      maxReceivesPerSecondOf: (subscriptionArn) => {
        const subscription = this.subscriptions.get(subscriptionArn);
        return subscription && maxReceivesPerSecondOf(deliveryPolicyOf(subscription), this.topics.get(subscription.topicArn));
      },
      log: settings.log,
    });
  }

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
  topic(arn: string, missing: () => SnsError = topicNotFound, parameter = 'TopicArn'): TopicRecord {
    const malformed = malformedArn(parameter, arn);
    if (malformed) throw malformed;
    if (!TOPIC_ARN.test(arn)) throw invalidParameter(parameter);
    const topic = this.topics.get(arn);
    if (!topic) throw missing();
    return topic;
  }

  subscription(arn: string): SubscriptionRecord {
    const subscription = this.subscriptions.get(checkedSubscriptionArn(arn));
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
    const policy = deliveryPolicyOf(subscription);
    // Notifications only: confirmations are text/plain whatever the policies say (recorded).
    const contentType = message.type === 'Notification' ? notificationContentType(policy, this.topics.get(subscription.topicArn)) : undefined;
    this.deliveries.enqueue({
      subscriptionArn: subscription.arn,
      url: subscription.endpoint,
      type: message.type,
      messageId: message.messageId,
      body: message.body,
      headers: typeof contentType === 'string' ? { ...message.headers, 'content-type': contentType } : message.headers,
      retries: retriesOf(policy) ?? this.settings.deliveryRetries,
      attempts: 0,
      deadLetterTargetArn: deadLetterTargetOf(subscription),
    });
  }

  /** Only notifications are redriven: a confirmation that failed is simply not confirmed. */
  private gaveUp(delivery: PendingDelivery, reason: string): void {
    this.logDeliveryStatus(delivery, { delivered: false, statusCode: delivery.lastStatusCode ?? null, providerResponse: reason });
    if (delivery.type !== 'Notification' || !delivery.deadLetterTargetArn) return;
    const subscription = this.subscriptions.get(delivery.subscriptionArn);
    this.deadLetter({
      at: new Date().toISOString(),
      deadLetterTargetArn: delivery.deadLetterTargetArn,
      topicArn: subscription?.topicArn ?? delivery.subscriptionArn.slice(0, delivery.subscriptionArn.lastIndexOf(':')),
      subscriptionArn: delivery.subscriptionArn,
      endpoint: delivery.url,
      messageId: delivery.messageId,
      reason,
      attempts: delivery.attempts,
      body: delivery.body,
    });
  }

  /** Hands on the delivery status record of a notification's delivery, if its topic logs it. */
  private logDeliveryStatus(delivery: PendingDelivery, outcome: { delivered: boolean; statusCode: number | null; providerResponse: string }): void {
    if (delivery.type !== 'Notification') return;
    const topic = this.topics.get(topicArnOfSubscription(delivery.subscriptionArn));
    if (!topic) return;
    const logEvent = deliveryStatusLogEventOf(topic, this.settings, delivery, outcome);
    if (!logEvent) return;
    // SNS makes the log group with the first record it writes there, keeping records forever.
    if (!this.logGroups.has(logEvent.logGroup)) this.logGroups.set(logEvent.logGroup, { creationTime: Date.now() });
    if (!this.settings.onDeliveryStatus) return;
    try {
      this.settings.onDeliveryStatus(logEvent);
    } catch (error) {
      this.settings.log(`delivery status of ${delivery.messageId} not handed on: ${String(error)}`);
    }
  }

  /**
   * Keeps a message SNS gave up on (GET /_emulator/dead-letters), and saves it soon. Each
   * subscription keeps its latest letters up to its share; older ones are counted per
   * subscription, so one failing endpoint never pushes out another's, and none goes unreported.
   */
  private deadLetter(letter: DeadLetter): void {
    this.kept.keep(letter);
    try {
      this.settings.onDeadLetter?.(letter);
    } catch (error) {
      this.settings.log(`dead letter ${letter.messageId} not handed on: ${String(error)}`);
    }
    this.settings.log(`dead-lettered ${letter.messageId} of ${letter.subscriptionArn} to ${letter.deadLetterTargetArn}: ${letter.reason}`);
    this.saveSoon();
  }

  /** Oldest first, at most settings.deadLettersPerSubscription of each subscription. */
  get deadLetters(): readonly DeadLetter[] {
    return this.kept.letters;
  }

  /** Dead letters counted but no longer kept, per subscription. */
  deadLetterOverflow(): DeadLetterOverflow[] {
    return this.kept.overflow();
  }

  private saveSoon(): void {
    if (this.saveTimer || !this.settings.stateFile) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      try {
        this.save();
      } catch (error) {
        this.settings.log(`could not save the state file: ${String(error)}`);
      }
    }, DEAD_LETTER_SAVE_DELAY_MS);
  }

  /** Sends the deliveries the state file held from the last stop. */
  resume(): void {
    const deliveries = this.toResume;
    this.toResume = [];
    if (deliveries.length === 0) return;
    this.settings.log(`resuming ${deliveries.length} deliveries still pending at the last stop`);
    for (const delivery of deliveries) this.deliveries.enqueue(delivery);
  }

  /**
   * Stops delivering and saves the state with every delivery not finished (and any not yet
   * resumed), so the next start resumes them; without a state file they are counted, and lost.
   */
  async stop(): Promise<void> {
    const pending = [...this.toResume, ...(await this.deliveries.close())];
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const file = this.settings.stateFile;
    if (file) {
      this.save(pending);
      if (pending.length > 0) this.settings.log(`kept ${pending.length} pending deliveries in ${file}; they resume at the next start`);
    } else if (pending.length > 0) {
      this.settings.log(`discarded ${pending.length} pending deliveries: no state file to keep them in`);
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
    this.deliver(subscription, unsubscribeConfirmationMessage(this.origin, topic, subscription));
  }

  load(): void {
    const file = this.settings.stateFile;
    if (!file) return;
    const state = readStateFile(file, 'SNS emulator state file') as PersistedState | undefined;
    if (state === undefined) return;
    if (state?.version !== 1 || !Array.isArray(state.topics) || !Array.isArray(state.subscriptions)) {
      throw new Error(`SNS emulator state file ${file} is not in the expected format; fix or remove it.`);
    }
    for (const topic of state.topics) this.topics.set(topic.arn, topic);
    for (const subscription of state.subscriptions) this.subscriptions.set(subscription.arn, subscription);
    this.kept.restore(Array.isArray(state.deadLetters) ? state.deadLetters : [], Array.isArray(state.deadLetterOverflow) ? state.deadLetterOverflow : []);
    if (Array.isArray(state.pendingDeliveries)) this.toResume = state.pendingDeliveries;
    this.nextSeq = Math.max(Number(state.nextSeq) || 1, ...[...state.topics, ...state.subscriptions].map((r) => r.seq + 1));
  }

  /**
   * Writes the whole state after a change. Synchronously, so writes can never interleave or be
   * reordered, and through a temporary file renamed over the old one, so a crash mid-write
   * leaves the previous state, never half a file. Topics and subscriptions are small; dead
   * letters, the bulk, bring a save at most once a second (saveSoon).
   */
  save(pendingDeliveries?: PendingDelivery[]): void {
    const file = this.settings.stateFile;
    if (!file) return;
    const state: PersistedState = {
      version: 1,
      nextSeq: this.nextSeq,
      topics: [...this.topics.values()],
      subscriptions: [...this.subscriptions.values()],
      deadLetters: this.kept.letters,
      deadLetterOverflow: this.deadLetterOverflow(),
      ...(pendingDeliveries && pendingDeliveries.length > 0 ? { pendingDeliveries } : {}),
    };
    writeStateFile(file, JSON.stringify(state, null, 2));
  }
}
