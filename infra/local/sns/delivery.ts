/**
 * HTTP/S delivery to subscribers: a background queue of POSTs with timeouts, retries and
 * exponential backoff, bounded, and cancelled as a whole on close.
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Deliveries waiting for an answer or a retry; past this, new ones are dropped (and logged). */
const MAX_PENDING_DELIVERIES = 1_000;
const DELIVERY_TIMEOUT_MS = 5_000;
/** Upper bounds for the deliveryRetries and deliveryBackoffMs options. */
export const MAX_DELIVERY_RETRIES = 10;
export const MAX_DELIVERY_BACKOFF_MS = 60_000;

export interface HttpDelivery {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** For log lines. */
  label: string;
  /** False once the subscription (or its topic) is gone: SNS sends nothing more for it, retries included. */
  stillWanted: () => boolean;
  /** Retries after the first attempt; default: the queue's own. */
  retries?: number;
  /** Called once when the delivery is given up on (retries exhausted, or refused by the endpoint). */
  onGiveUp?: (reason: string, attempts: number) => void;
}

/**
 * Backoff doubles per retry up to this many times the base: local time is compressed, so a
 * delivery policy's dozen retries over half an hour end here within seconds.
 */
const MAX_BACKOFF_FACTOR = 8;

type AttemptOutcome = 'delivered' | { retryable: boolean; reason: string };

/**
 * Sends deliveries in the background: the API answers at once, whatever the endpoint does.
 * A connection error, a timeout, a 5xx or a 429 is retried with exponential backoff; other
 * 4xx answers are the endpoint refusing the message, which SNS does not retry either. Every
 * path is caught, so a bad endpoint can never crash the process, and close() cancels all of it.
 */
export class DeliveryQueue {
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
    if (!delivery.stillWanted()) {
      this.log(`dropped ${delivery.label}: its subscription no longer exists`);
      this.pending--;
      return;
    }
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
    if (!outcome.retryable || retry >= (delivery.retries ?? this.retries)) {
      this.log(`gave up on ${delivery.label} after ${retry + 1} attempt(s): ${outcome.reason}`);
      this.pending--;
      delivery.onGiveUp?.(outcome.reason, retry + 1);
      return;
    }
    const delay = this.backoffMs * Math.min(2 ** retry, MAX_BACKOFF_FACTOR);
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
