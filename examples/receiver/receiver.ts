/**
 * A reference receiver of this service's webhooks (docs/receiving.md): it verifies every message
 * (verify.ts), confirms its subscription, deduplicates on (configId, eventId), answers at once and
 * prints each event it accepted after answering. `npm run receiver`, configured by:
 *   TOPIC_ARNS           required: the exact topic ARNs of its own subscriptions (what create answered),
 *                        comma-separated; no wildcard: the topic prefix is shared by every tenant
 *   PORTAL_ID            required: its portal; a message of another portal is refused
 *   RECEIVER_CREDENTIALS optional user:password; when set, a request without them in basic auth (the
 *                        endpoint URL https://user:password@host/..., which the service masks) gets 401
 *   ALLOWED_CERT_ORIGIN  unset for SNS (https://sns.<region>.amazonaws.com); npm start: https://127.0.0.1:9911,
 *                        with NODE_EXTRA_CA_CERTS=<the local CA file npm start prints>
 *   SIGNATURE_VERSIONS   accepted SignatureVersions, comma-separated: 2 (SHA256withRSA) unless set, e.g. 1,2
 *   RECEIVER_PORT (4000), RECEIVER_HOST (127.0.0.1)
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Refused, type SnsMessage, verifySnsMessage, type VerifyOptions } from './verify';

const AWS_CERT_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;
/** Older messages are refused: replays, or retries long past any the service's delivery policy makes. */
const MAX_AGE_MS = 60 * 60 * 1000;
/** Duplicates of an event arrive within this: SNS retries for ~26 minutes, the dispatcher for ~15. */
const DEDUP_WINDOW_MS = 60 * 60 * 1000;
/** Pairs remembered at most, so a flood of events cannot exhaust memory: past it, the oldest go first. */
const MAX_REMEMBERED = 100_000;
const MAX_BODY_BYTES = 1024 * 1024;
/** Past this many events waiting for work, new ones get 503, and SNS sends them again later. */
const MAX_WAITING = 1_000;

type PortalEvent = { event: string; portalId: string; configId: string; eventId: string; data: unknown };

/** Who the receiver is: its portal, and the credentials its endpoint URL carries (if any). */
interface Identity {
  portalId: string;
  /** `Basic <base64 of user:password>`, as SNS sends an endpoint URL's credentials. */
  authorization?: Buffer;
}

function identityFromEnvironment(): Identity {
  const portalId = process.env.PORTAL_ID?.trim();
  if (!portalId) throw new Error('Set PORTAL_ID to your portal: a message of another portal is refused.');
  const credentials = process.env.RECEIVER_CREDENTIALS?.trim();
  if (credentials !== undefined && credentials !== '' && !/^[^:]+:.+$/.test(credentials)) throw new Error('RECEIVER_CREDENTIALS must be user:password.');
  return { portalId, ...(credentials && { authorization: Buffer.from(`Basic ${Buffer.from(credentials).toString('base64')}`) }) };
}

/** Whether the request carries the credentials (compared in constant time); true when none are required. */
function authorized(request: IncomingMessage, identity: Identity): boolean {
  if (!identity.authorization) return true;
  const given = Buffer.from(request.headers.authorization ?? '');
  return given.length === identity.authorization.length && timingSafeEqual(given, identity.authorization);
}

function optionsFromEnvironment(): VerifyOptions {
  const topics = (process.env.TOPIC_ARNS ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  if (topics.length === 0) throw new Error('Set TOPIC_ARNS to the topic ARNs of your subscriptions (what create answered), comma-separated.');
  // Every portal's topics share the stack's prefix: a pattern would confirm another tenant's subscription to this URL.
  if (topics.some((topic) => topic.includes('*'))) throw new Error('TOPIC_ARNS takes exact topic ARNs, no wildcard: a pattern accepts every tenant\'s topics.');
  const origin = process.env.ALLOWED_CERT_ORIGIN?.trim() ? new URL(process.env.ALLOWED_CERT_ORIGIN).origin : undefined;
  const signatureVersions = new Set((process.env.SIGNATURE_VERSIONS?.trim() || '2').split(',').map((version) => version.trim()));
  const unknown = [...signatureVersions].filter((version) => version !== '1' && version !== '2');
  if (unknown.length > 0) throw new Error(`SIGNATURE_VERSIONS must list 1 and/or 2 (got ${unknown.join(', ')}).`);
  return {
    signatureVersions,
    topicAllowed: (arn) => topics.includes(arn),
    originAllowed: (url) => (origin ? url.origin === origin : url.protocol === 'https:' && url.port === '' && AWS_CERT_HOST.test(url.hostname)),
    maxAgeMs: MAX_AGE_MS,
  };
}

/** Accepted (configId, eventId) pairs, oldest first, so expired ones are trimmed from the front. */
const accepted = new Map<string, number>();
function firstTime(key: string): boolean {
  for (const [old, expires] of accepted) {
    if (expires > Date.now()) break;
    accepted.delete(old);
  }
  if (accepted.has(key)) return false;
  if (accepted.size >= MAX_REMEMBERED) accepted.delete(accepted.keys().next().value!);
  accepted.set(key, Date.now() + DEDUP_WINDOW_MS);
  return true;
}

/** The work, done after answering: printing. A real receiver stores the event before it answers 2xx. */
const waiting: PortalEvent[] = [];
function work(): void {
  for (let event = waiting.shift(); event; event = waiting.shift()) {
    console.log(`event ${event.event} ${event.eventId} of ${event.configId}: ${JSON.stringify(event.data)}`);
  }
}

async function handle(request: IncomingMessage, response: ServerResponse, options: VerifyOptions, identity: Identity): Promise<void> {
  const answer = (status: number, text: string) => void response.writeHead(status, { 'content-type': 'text/plain' }).end(`${text}\n`);
  if (request.method !== 'POST') return answer(405, 'POST only');
  if (!authorized(request, identity)) {
    // SNS sends an endpoint URL's credentials in basic auth, and answers this challenge with them.
    console.error('refused: no valid credentials');
    return void response.writeHead(401, { 'www-authenticate': 'Basic realm="webhooks"', 'content-type': 'text/plain' }).end('credentials required\n');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    if ((size += chunk.length) > MAX_BODY_BYTES) return answer(413, 'too large');
    chunks.push(chunk);
  }
  let message: SnsMessage;
  try {
    message = await verifySnsMessage(JSON.parse(Buffer.concat(chunks).toString('utf8')), options);
  } catch (error) {
    console.error(`refused: ${(error as Error).message}`);
    // A 4xx is final: SNS does not send the message again. A 5xx asks for it again.
    return answer(error instanceof Refused && error.retry ? 503 : 403, 'refused');
  }

  if (message.Type === 'SubscriptionConfirmation') {
    // Visited before answering: if the visit fails, the 5xx makes SNS send the confirmation again.
    const visit = await fetch(message.SubscribeURL!, { redirect: 'error', signal: AbortSignal.timeout(5_000) }).catch((error: Error) => error);
    if (visit instanceof Error || !visit.ok) {
      console.error(`could not confirm ${message.TopicArn}: ${visit instanceof Error ? visit.message : `HTTP ${visit.status}`}`);
      return answer(503, 'not confirmed yet');
    }
    console.log(`confirmed ${message.TopicArn}`);
    return answer(200, 'confirmed');
  }
  if (message.Type === 'UnsubscribeConfirmation') {
    console.log(`unsubscribed from ${message.TopicArn}`); // its SubscribeURL would subscribe again: not visited
    return answer(200, 'noted');
  }

  let event: PortalEvent;
  try {
    event = JSON.parse(message.Message) as PortalEvent;
    if (typeof event.configId !== 'string' || typeof event.eventId !== 'string') throw new Error('no configId or eventId');
  } catch (error) {
    console.error(`refused ${message.MessageId}: not a portal event (${(error as Error).message})`);
    return answer(400, 'not a portal event');
  }
  // The topic is one of ours; its events must also say so: our portal, and the subscription the
  // topic is named after (`<prefix>-<configId>`).
  if (event.portalId !== identity.portalId || !message.TopicArn.endsWith(`-${event.configId}`)) {
    console.error(`refused ${message.MessageId}: portal ${String(event.portalId)}, subscription ${event.configId} are not ours`);
    return answer(403, 'refused');
  }
  if (waiting.length >= MAX_WAITING) return answer(503, 'busy');
  if (!firstTime(`${event.configId} ${event.eventId}`)) {
    console.log(`duplicate ${event.eventId} of ${event.configId}: already accepted`);
    return answer(200, 'duplicate');
  }
  waiting.push(event);
  answer(200, 'accepted');
  setImmediate(work);
}

/** A start that cannot work ends in one line saying what to do, as `npm start` does, not a stack trace. */
function failToStart(reason: string): never {
  console.error(`npm run receiver failed: ${reason}`);
  process.exit(1);
}

let options: VerifyOptions;
let identity: Identity;
try {
  options = optionsFromEnvironment();
  identity = identityFromEnvironment();
} catch (error) {
  failToStart((error as Error).message);
}
const server = createServer((request, response) => {
  handle(request, response, options, identity).catch((error: unknown) => {
    console.error(`failed: ${String(error)}`);
    if (!response.headersSent) response.writeHead(500).end();
  });
});
const host = process.env.RECEIVER_HOST || '127.0.0.1';
const listenPort = Number(process.env.RECEIVER_PORT || 4000);
server.once('error', (error: NodeJS.ErrnoException) =>
  failToStart(
    error.code === 'EADDRINUSE'
      ? `Port ${listenPort} on ${host} is in use: stop what listens there (another receiver?), or choose another port: RECEIVER_PORT=${listenPort + 1} npm run receiver`
      : error.message,
  ),
);
server.listen(listenPort, host, () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`Receiver listening on http://${address}:${port}/ for topics ${process.env.TOPIC_ARNS}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)).closeAllConnections());
