/**
 * HTTP/S delivery to subscribers: a POST per attempt with SNS's timeout, retries with
 * exponential backoff for the failures SNS retries, and one lane per subscription, so a slow or
 * failing endpoint can neither hold up nor crowd out another's deliveries. The requests the
 * process keeps open are shared equally among the subscriptions with something to send: one with
 * thousands waiting holds no more connections than one with a single message, whose request then
 * waits behind a few dozen others in this one process rather than hundreds. SNS delivers and
 * throttles each subscription's messages on its own (its delivery policy is per subscription, the
 * throttle "the maximum number of deliveries per second, per subscription": "Amazon SNS message
 * delivery retries", https://docs.aws.amazon.com/sns/latest/dg/sns-message-delivery-retries.html).
 * Every delivery ends delivered, given up on (the backend dead-letters it) or handed back by
 * close(), to be kept.
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { MessageType } from './types';

/**
 * How long an endpoint has to answer: SNS's connection "will time out in 15 seconds" ("Step 1:
 * Make sure your endpoint is ready to process Amazon SNS messages").
 */
export const SNS_DELIVERY_TIMEOUT_MS = 15_000;
/** Upper bounds for the deliveryRetries and deliveryBackoffMs options. */
export const MAX_DELIVERY_RETRIES = 10;
export const MAX_DELIVERY_BACKOFF_MS = 60_000;

/** What one subscription, and all of them, may hold of the emulator: SNS has no such limits, one process does. */
export interface DeliveryLimits {
  /** Deliveries accepted and not yet finished; past this a new one is given up on at once. */
  pendingPerSubscription: number;
  /** Requests open to the endpoint at a time; the rest wait their turn in the lane. */
  inFlightPerSubscription: number;
  /**
   * Requests open at a time over all subscriptions, shared equally among those with deliveries
   * (each may have at least one open, however many share): past a few dozen, more connections
   * add no deliveries a second to one process, only requests for each new one to wait behind.
   */
  inFlightInAll: number;
}

export const DEFAULT_DELIVERY_LIMITS: DeliveryLimits = { pendingPerSubscription: 10_000, inFlightPerSubscription: 50, inFlightInAll: 32 };

/** One message for one http/https subscriber: plain data, so what is pending can be saved and resumed. */
export interface PendingDelivery {
  subscriptionArn: string;
  url: string;
  type: MessageType;
  messageId: string;
  body: string;
  headers: Record<string, string>;
  /** Retries after the first attempt. */
  retries: number;
  /** Attempts that were answered or failed so far; one cut short by close() does not count. */
  attempts: number;
  /** Where the subscription's redrive policy sends a notification given up on. */
  deadLetterTargetArn?: string;
  /** The HTTP status of the last attempt that was answered, if any (for delivery status logging). */
  lastStatusCode?: number;
}

export interface DeliveryHooks {
  /** False once the subscription (or its topic) is gone: SNS sends nothing more for it, retries included. */
  stillWanted(delivery: PendingDelivery): boolean;
  /** Called once for a delivery given up on: refused, out of retries, or over its subscription's limit. */
  gaveUp(delivery: PendingDelivery, reason: string): void;
  /** Called once for a delivery the endpoint took (2xx). */
  delivered?(delivery: PendingDelivery): void;
  /**
   * The subscription's throttle (its delivery policy's `throttlePolicy.maxReceivesPerSecond`),
   * read before each attempt so a change applies to what is still waiting; undefined: none.
   */
  maxReceivesPerSecondOf?(subscriptionArn: string): number | undefined;
  log(line: string): void;
}

export interface DeliverySettings {
  backoffMs: number;
  timeoutMs: number;
  limits: DeliveryLimits;
}

/**
 * Backoff doubles per retry up to this many times the base: local time is compressed, so a
 * delivery policy's dozen retries over half an hour end here within seconds.
 */
const MAX_BACKOFF_FACTOR = 8;

type AttemptOutcome = 'delivered' | 'cut short' | { retryable: boolean; reason: string };

interface Lane {
  /** Ready for an attempt, oldest first. */
  waiting: PendingDelivery[];
  inFlight: number;
  /** Waiting, in flight or backing off. */
  pending: number;
  /** Set while the lane waits for its throttle's next slot. */
  throttleTimer?: NodeJS.Timeout;
}

function labelOf(delivery: PendingDelivery): string {
  return `${delivery.type} ${delivery.messageId} to ${delivery.url}`;
}

/**
 * How SNS reads an endpoint's answer. Only a status outside 200–4xx (or no answer in time) is a
 * failed attempt, retried by the delivery policy ("Step 1: Make sure your endpoint is ready to
 * process Amazon SNS messages"). Within that range only a 2xx takes the message; a 3xx or 4xx
 * (429 included: the page makes no exception) is the endpoint turning it down, which SNS never
 * retries and, as a client-side error, sends to the dead-letter queue ("Amazon SNS dead-letter
 * queues (DLQs)").
 */
function outcomeOf(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  return { retryable: status < 300 || status >= 500, reason: `HTTP ${status}` };
}

/**
 * Sends deliveries in the background: the API answers at once, whatever the endpoints do. Every
 * path is caught, so a bad endpoint can never crash the process, and close() stops all of it.
 */
export class DeliveryQueue {
  private readonly lanes = new Map<string, Lane>();
  /** Every delivery accepted and not finished, in the order accepted: what close() hands back. */
  private readonly unfinished = new Set<PendingDelivery>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  /**
   * When a throttled subscription may start its next attempt (Unix ms). Kept apart from the lanes,
   * which go when they empty: a delivery arriving right after the last one finished still waits.
   */
  private readonly nextSlots = new Map<string, number>();

  constructor(
    private readonly settings: DeliverySettings,
    private readonly hooks: DeliveryHooks,
  ) {}

  /** Deliveries not finished yet, all subscriptions together. */
  get size(): number {
    return this.unfinished.size;
  }

  enqueue(delivery: PendingDelivery): void {
    if (this.stopping.signal.aborted) {
      // Accepted while stopping: kept with the rest rather than lost.
      this.unfinished.add(delivery);
      return;
    }
    let lane = this.lanes.get(delivery.subscriptionArn);
    if (!lane) this.lanes.set(delivery.subscriptionArn, (lane = { waiting: [], inFlight: 0, pending: 0 }));
    const limit = this.settings.limits.pendingPerSubscription;
    if (lane.pending >= limit) {
      // Never a silent drop: it is given up on like any undeliverable message, so it is dead-lettered.
      this.giveUp(delivery, `the emulator's limit of ${limit} pending deliveries for the subscription was reached`);
      return;
    }
    lane.pending++;
    this.unfinished.add(delivery);
    lane.waiting.push(delivery);
    this.pump(lane);
  }

  /**
   * Cancels retry timers and aborts requests in flight, and resolves, once those have settled,
   * with every delivery not finished: waiting, backing off, or cut short (that attempt uncounted).
   */
  async close(): Promise<PendingDelivery[]> {
    this.stopping.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
    return [...this.unfinished];
  }

  /**
   * What one lane may have open now: an equal share of the requests in all among the lanes with
   * deliveries pending (a lane goes when it has none), at least one, at most its own limit. A
   * share, not a pool: a lane whose endpoint hangs holds its own share and no one else's.
   */
  private laneLimit(): number {
    const { inFlightPerSubscription, inFlightInAll } = this.settings.limits;
    return Math.min(inFlightPerSubscription, Math.max(1, Math.floor(inFlightInAll / Math.max(1, this.lanes.size))));
  }

  private pump(lane: Lane): void {
    while (lane.inFlight < this.laneLimit() && lane.waiting.length > 0) {
      if (lane.throttleTimer || !this.takeSlot(lane, lane.waiting[0]!.subscriptionArn)) return;
      const delivery = lane.waiting.shift()!;
      if (!this.hooks.stillWanted(delivery)) {
        this.hooks.log(`dropped ${labelOf(delivery)}: its subscription no longer exists`);
        this.finish(delivery);
        continue;
      }
      lane.inFlight++;
      const run = this.tryOnce(delivery)
        .then((outcome) => {
          lane.inFlight--;
          this.afterAttempt(delivery, outcome);
          if (!this.stopping.signal.aborted) this.pump(lane);
        })
        .catch((error: unknown) => this.hooks.log(`delivery bookkeeping failed: ${String(error)}`));
      this.inFlight.add(run);
      void run.finally(() => this.inFlight.delete(run));
    }
  }

  /**
   * SNS's throttle: at most `maxReceivesPerSecond` attempts a second, evenly spaced, the rest
   * waiting their turn (none dropped; "Amazon SNS message delivery retries", "Creating an HTTP/S
   * delivery policy"). True when an attempt may start now; otherwise the lane is woken at its slot.
   */
  private takeSlot(lane: Lane, subscriptionArn: string): boolean {
    const rate = this.hooks.maxReceivesPerSecondOf?.(subscriptionArn);
    if (rate === undefined) return true;
    const now = Date.now();
    const slot = this.nextSlots.get(subscriptionArn) ?? now;
    if (slot <= now) {
      this.nextSlots.set(subscriptionArn, now + 1000 / rate);
      return true;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      lane.throttleTimer = undefined;
      this.pump(lane);
    }, slot - now);
    lane.throttleTimer = timer;
    this.timers.add(timer);
    return false;
  }

  private async tryOnce(delivery: PendingDelivery): Promise<AttemptOutcome> {
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    delivery.lastStatusCode = undefined;
    try {
      const status = await postOnce(delivery, AbortSignal.any([this.stopping.signal, timeout]));
      delivery.lastStatusCode = status;
      return outcomeOf(status);
    } catch (error) {
      if (timeout.aborted) return { retryable: true, reason: `no answer within ${this.settings.timeoutMs} ms` };
      if (this.stopping.signal.aborted) return 'cut short';
      return { retryable: true, reason: plainReason(error, new URL(delivery.url)) };
    }
  }

  private afterAttempt(delivery: PendingDelivery, outcome: AttemptOutcome): void {
    if (outcome === 'cut short') return;
    delivery.attempts++;
    if (outcome === 'delivered') {
      this.hooks.log(`delivered ${labelOf(delivery)}`);
      this.finish(delivery);
      this.hooks.delivered?.(delivery);
      return;
    }
    if (!outcome.retryable || delivery.attempts > delivery.retries) {
      this.finish(delivery);
      this.giveUp(delivery, outcome.reason);
      return;
    }
    // Stopping: kept as it is, to be retried after the next start.
    if (this.stopping.signal.aborted) return;
    const delay = this.settings.backoffMs * Math.min(2 ** (delivery.attempts - 1), MAX_BACKOFF_FACTOR);
    // One plain line per failed attempt that will be retried: an endpoint that cannot be reached
    // (the walk-through's hooks.example.invalid never resolves) is expected locally, not alarming.
    this.hooks.log(`retrying ${labelOf(delivery)} in ${delay} ms: attempt ${delivery.attempts} of ${delivery.retries + 1} failed, ${outcome.reason}`);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const lane = this.lanes.get(delivery.subscriptionArn)!;
      lane.waiting.push(delivery);
      this.pump(lane);
    }, delay);
    this.timers.add(timer);
  }

  private giveUp(delivery: PendingDelivery, reason: string): void {
    this.hooks.log(`gave up on ${labelOf(delivery)} after ${delivery.attempts} attempt(s): ${reason}`);
    this.hooks.gaveUp(delivery, reason);
  }

  private finish(delivery: PendingDelivery): void {
    this.unfinished.delete(delivery);
    const lane = this.lanes.get(delivery.subscriptionArn);
    if (lane && --lane.pending === 0) {
      this.lanes.delete(delivery.subscriptionArn);
      if ((this.nextSlots.get(delivery.subscriptionArn) ?? 0) <= Date.now()) this.nextSlots.delete(delivery.subscriptionArn);
    }
  }
}

/** One POST to the subscriber's endpoint, and only there: no redirects followed, no other host. Resolves with the status. */
/** Why an attempt found no endpoint to talk to, in words rather than a system error code. */
function plainReason(error: unknown, url: URL): string {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `its host ${url.hostname} does not resolve`;
  if (code === 'ECONNREFUSED') return `nothing listens at ${url.hostname}:${port} (connection refused)`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the endpoint closed the connection before answering';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${url.hostname} cannot be reached from this machine`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `its TLS certificate is not trusted (${code})`;
  return (error as Error).message || String(error);
}

function postOnce(delivery: PendingDelivery, signal: AbortSignal): Promise<number> {
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
