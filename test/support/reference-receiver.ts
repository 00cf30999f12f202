/**
 * The reference receiver (examples/receiver) as test/local/receiver.test.ts drives it: `npm run
 * receiver` in a process of its own, its output, messages POSTed to it; and what stands in for
 * SNS's side where the emulator cannot: a certificate host and notifications signed with a key
 * of the test's own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../infra/local/free-port';
import { signatureFields, type SignedFields, type SigningIdentity } from '../../infra/local/sns/signing';
import { PROJECT_ROOT } from './npm-start';
import { waitFor } from './wait-for';

const CREATE = 'asset_bank.media.create';

export interface ReceiverProcess {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** `npm run receiver` with `variables`, on a free port; resolves once it listens. */
export async function startReceiver(variables: Record<string, string>): Promise<ReceiverProcess> {
  const port = variables.RECEIVER_PORT ? Number(variables.RECEIVER_PORT) : await freePort();
  const child: ChildProcess = spawn('npm', ['run', '--silent', 'receiver'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, RECEIVER_PORT: String(port), ...variables },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: stop() ends npm, tsx and node together.
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, signal);
  };
  const stop = async () => {
    killGroup('SIGTERM');
    const timer = setTimeout(() => killGroup('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitFor('the receiver to listen', () => (output.includes('Receiver listening on') ? true : child.exitCode === null ? undefined : true), 30_000, 50);
  } catch (error) {
    await stop();
    throw error;
  }
  if (!output.includes('Receiver listening on')) throw new Error(`npm run receiver did not start:\n${output}`);
  return { url: `http://127.0.0.1:${port}`, output: () => output, stop };
}

export function linesOf(receiver: ReceiverProcess, pattern: RegExp): string[] {
  return receiver.output().split('\n').filter((line) => pattern.test(line));
}

/** POSTs `message` to the receiver as SNS would. */
export async function post(receiver: ReceiverProcess, message: unknown, path = '/hooks'): Promise<number> {
  const response = await fetch(`${receiver.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain; charset=UTF-8' },
    body: typeof message === 'string' ? message : JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  });
  await response.text();
  return response.status;
}

/** A stand-in for SNS's certificate host: serves the certificates of `serve`d identities by their paths, counting requests. */
export async function startCertificateServer(...identities: SigningIdentity[]) {
  const requests: string[] = [];
  const served = new Map(identities.map((identity) => [identity.certificatePath, identity.certificatePem]));
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const pem = served.get(request.url ?? '');
    if (pem) response.writeHead(200).end(pem);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, requests, server, serve: (identity: SigningIdentity) => served.set(identity.certificatePath, identity.certificatePem) };
}

export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** A Notification of the service's shape, signed with `identity` as if SNS had sent it. */
export function signedNotification(
  identity: SigningIdentity,
  origin: string,
  topicArn: string,
  overrides: { version?: string; timestamp?: string; eventId?: string; portalId?: string; configId?: string } = {},
) {
  const fields: SignedFields = {
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: topicArn,
    Message: JSON.stringify({ event: CREATE, portalId: overrides.portalId ?? 'portal-a', configId: overrides.configId ?? 'c-1', occurredAt: new Date().toISOString(), eventId: overrides.eventId ?? randomUUID(), data: { mediaId: 'm-1' } }),
    Timestamp: overrides.timestamp ?? new Date().toISOString(),
  };
  return { ...fields, ...signatureFields(identity, origin, overrides.version ?? '2', fields) };
}
