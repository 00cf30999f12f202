/**
 * A stand-in for Amazon SNS on one machine, for tests and local runs.
 *
 * It speaks the SNS Query protocol (form-encoded POST `Action=…&Version=2010-03-31`, XML answers
 * in the 2010-03-31 namespace) closely enough that `@aws-sdk/client-sns` and the AWS CLI work
 * against it unchanged, and it delivers to http/https subscribers the way SNS does: a
 * SubscriptionConfirmation first, Notifications only once confirmed, an UnsubscribeConfirmation
 * after an Unsubscribe, SNS's JSON message shape and `x-amz-sns-*` headers, SNS's timeout,
 * retries with backoff, dead letters by the redrive policy (`GET /_emulator/dead-letters`).
 * Every message is signed as SNS signs it, with a key and certificate of the emulator's own; the
 * certificate is served at the message's SigningCertURL. The same port speaks HTTPS too, with a
 * certificate of a local authority a receiver can trust, and the URLs in messages (SigningCertURL,
 * SubscribeURL, UnsubscribeURL) are https:// ones, as SNS's are, so receivers verify and confirm
 * over HTTPS with the code they run against SNS. Other protocols (email, sqs, lambda, …)
 * are recorded, not sent; `GET /_emulator/deliveries` lists what was recorded.
 *
 * Run it alone with `tsx infra/local/sns/emulator.ts` (env SNS_PORT, DATA_DIR, IN_MEMORY).
 *
 * This file is the public entry: options, start/close, and the standalone run. The workings sit
 * beside it, roughly in the order a request meets them:
 *   request-handler.ts  one HTTP request: auth check, dispatch, save, XML answer
 *   query-protocol.ts   parameters in, XML out
 *   errors.ts           errors as SNS names them
 *   actions/            one handler per SNS action, by resource (topics, subscriptions, publish,
 *                       tags), and the action table (index.ts)
 *   state.ts            topics, subscriptions, recorded deliveries, dead letters; the state file
 *   filter-policy.ts    which subscriptions a publication goes to
 *   topic-policy.ts     who may publish to a topic: its access policy's Deny statements
 *   messages.ts         the confirmation and notification bodies and headers
 *   signing.ts          the signing key and certificate, and the signature on each message
 *   local-authority.ts  the local certificate authority and the HTTPS certificate it issues
 *   https-on-same-port.ts  TLS connections on the HTTP port, told apart by their first byte
 *   x509.ts             writing those certificates
 *   delivery.ts         the HTTP/S POST queue: timeout, retries, a lane per subscription
 *   masking.ts          endpoints' passwords masked in listings and log lines
 *   types.ts            the records and messages the modules above share
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  DEFAULT_DELIVERY_LIMITS,
  type DeliveryLimits,
  MAX_DELIVERY_BACKOFF_MS,
  MAX_DELIVERY_RETRIES,
  SNS_DELIVERY_TIMEOUT_MS,
} from './delivery';
import { maskPasswords } from './masking';
import { handleRequest } from './request-handler';
import { acceptHttpsOnSamePort } from './https-on-same-port';
import { loadOrCreateTlsIdentity, type TlsIdentity } from './local-authority';
import { loadOrCreateSigningIdentity } from './signing';
import { DEFAULT_DEAD_LETTERS_PER_SUBSCRIPTION, SnsBackend } from './state';
import type { DeadLetter } from './types';
import type { DeliveryStatusLogEvent } from './delivery-status-log';

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
  /**
   * When set: state is loaded from this JSON file at start and written after every change, and
   * at close with the deliveries still pending, which the next start resumes.
   */
  stateFile?: string;
  /**
   * When set: the signing key and certificate are kept in this directory (signing-key.pem,
   * signing-cert.pem), and so are the local certificate authority and the HTTPS key and
   * certificate it issued (local-ca.pem, tls-key.pem, tls-cert.pem), made there at first start.
   * Otherwise they are made anew for this run (the authority's certificate in a temporary file).
   */
  signingDir?: string;
  /** http/https delivery attempts after the first, default 3. */
  deliveryRetries?: number;
  /** Base backoff, doubled per retry, default 200 ms. */
  deliveryBackoffMs?: number;
  /** For tests only: SNS's 15 s is the default, and what any real endpoint should be held to. */
  deliveryTimeoutMs?: number;
  /** For tests only: the limits per subscription (defaults: 10,000 pending, 50 in flight, 1,000 dead letters kept) and in all (32 in flight, shared). */
  limits?: Partial<DeliveryLimits & { deadLettersPerSubscription: number }>;
  /**
   * Called with each new dead letter, as SNS would send it to the redrive policy's queue: the
   * local stack hands it to the dead-letter recorder (deadLetterQueueMessageOf gives its SQS body
   * and attributes). It is kept for GET /_emulator/dead-letters either way.
   */
  onDeadLetter?: (letter: DeadLetter) => void;
  /**
   * Called with each delivery status record a topic's logging attributes ask for, as SNS writes it
   * to CloudWatch Logs (delivery-status-log.ts); the local stack hands them to the attempts consumer.
   */
  onDeliveryStatus?: (logEvent: DeliveryStatusLogEvent) => void;
  log?: (line: string) => void;
}

export interface SnsEmulator {
  /** e.g. 'http://127.0.0.1:54321': for the AWS CLI and SDK. */
  endpoint: string;
  /** e.g. 'https://127.0.0.1:54321': the same port over TLS, which the URLs in messages use. */
  httpsEndpoint: string;
  port: number;
  /** Where the certificate that verifies its messages' signatures is served: every SigningCertURL (https). */
  signingCertUrl: string;
  /**
   * The local certificate authority that issued the HTTPS certificate: the file a receiver
   * trusts (NODE_EXTRA_CA_CERTS=<file> for Node), and its PEM text.
   */
  certificateAuthority: { file: string; pem: string };
  /** Stops the server and the deliveries, keeping those not finished in the state file (if any). */
  close(): Promise<void>;
}

export type { DeadLetter, RecordedDelivery } from './types';
export { deadLetterQueueMessageOf } from './messages';
export type { DeliveryStatusLogEvent } from './delivery-status-log';

function checkedOption(name: string, value: number, max: number, min = 0): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

export async function startSnsEmulator(options: SnsEmulatorOptions = {}): Promise<SnsEmulator> {
  // Made meanwhile (its keys and the signing key are made in parallel).
  const tlsLoading = loadOrCreateTlsIdentity(options.signingDir, options.log);
  try {
    return await startServing(options, tlsLoading);
  } catch (error) {
    // A start that fails removes the authority's temporary file of this run, if it made one.
    await tlsLoading.then((tls) => tls.dispose(), () => {});
    throw error;
  }
}

async function startServing(options: SnsEmulatorOptions, tlsLoading: Promise<TlsIdentity>): Promise<SnsEmulator> {
  const sink = options.log ?? (() => {});
  // Every line the emulator writes names endpoints with their passwords masked, as SNS's listings do.
  const log = (line: string) => sink(maskPasswords(line));
  const limits = options.limits ?? {};
  const signing = await loadOrCreateSigningIdentity(options.signingDir);
  const sns = new SnsBackend({
    accountId: options.accountId ?? '000000000000',
    region: options.region ?? 'us-east-1',
    stateFile: options.stateFile,
    signing,
    deliveryRetries: checkedOption('deliveryRetries', options.deliveryRetries ?? 3, MAX_DELIVERY_RETRIES),
    delivery: {
      backoffMs: checkedOption('deliveryBackoffMs', options.deliveryBackoffMs ?? 200, MAX_DELIVERY_BACKOFF_MS),
      timeoutMs: checkedOption('deliveryTimeoutMs', options.deliveryTimeoutMs ?? SNS_DELIVERY_TIMEOUT_MS, SNS_DELIVERY_TIMEOUT_MS, 1),
      limits: {
        pendingPerSubscription: checkedOption(
          'limits.pendingPerSubscription',
          limits.pendingPerSubscription ?? DEFAULT_DELIVERY_LIMITS.pendingPerSubscription,
          1_000_000,
          1,
        ),
        inFlightPerSubscription: checkedOption(
          'limits.inFlightPerSubscription',
          limits.inFlightPerSubscription ?? DEFAULT_DELIVERY_LIMITS.inFlightPerSubscription,
          1_000,
          1,
        ),
        inFlightInAll: checkedOption('limits.inFlightInAll', limits.inFlightInAll ?? DEFAULT_DELIVERY_LIMITS.inFlightInAll, 10_000, 1),
      },
    },
    deadLettersPerSubscription: checkedOption(
      'limits.deadLettersPerSubscription',
      limits.deadLettersPerSubscription ?? DEFAULT_DEAD_LETTERS_PER_SUBSCRIPTION,
      1_000_000,
      1,
    ),
    onDeadLetter: options.onDeadLetter,
    onDeliveryStatus: options.onDeliveryStatus,
    log,
  });
  sns.load();

  const handler: RequestListener = (request, response) => {
    handleRequest(sns, request, response).catch((error: unknown) => {
      log(`request failed: ${String(error)}`);
      response.destroy();
    });
  };
  const server = createServer(handler);
  // A client error (malformed HTTP) must not take the emulator down.
  server.on('clientError', (_error, socket) => socket.destroy());
  const tls = await tlsLoading;
  const closeAllConnections = acceptHttpsOnSamePort(server, { key: tls.key, cert: tls.certificate }, handler);

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const endpoint = `http://${authority}`;
  const httpsEndpoint = `https://${authority}`;
  // What subscribers get points at the HTTPS side (SigningCertURL, SubscribeURL, UnsubscribeURL).
  sns.endpoint = httpsEndpoint;
  log(`SNS emulator listening on ${endpoint} and ${httpsEndpoint} (certificate authority ${tls.authorityFile})`);
  // Resumed deliveries may be confirmations, whose SubscribeURL must already answer.
  sns.resume();

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections from SDK clients (and HTTPS ones) would otherwise hold close() open.
      closeAllConnections();
      // No request can add a delivery any more once the server is closed.
      await stopped;
      await sns.stop();
      tls.dispose();
    })();
    return closing;
  };
  return {
    endpoint,
    httpsEndpoint,
    port,
    signingCertUrl: httpsEndpoint + signing.certificatePath,
    certificateAuthority: { file: tls.authorityFile, pem: tls.authorityPem },
    close,
  };
}

// ---------------------------------------------------------------------------------------------
// Standalone: tsx infra/local/sns/emulator.ts
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
    signingDir: inMemory ? undefined : join(dataDir, 'sns'),
    log: (line) => console.log(`[sns] ${line}`),
  });
  console.log(`SNS emulator: ${emulator.endpoint} (${inMemory ? 'in memory' : `state in ${join(dataDir, 'sns.json')}`})`);
  console.log(`  aws sns list-topics --endpoint-url ${emulator.endpoint}`);
  console.log(`  receivers trust its HTTPS with NODE_EXTRA_CA_CERTS=${emulator.certificateAuthority.file} (docs/receiving.md)`);
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
