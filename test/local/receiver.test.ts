/**
 * The reference receiver (examples/receiver, `npm run receiver`) as docs/receiving.md runs it,
 * with verification on: against `npm start`, its subscription confirms itself, a portal event
 * and a test event arrive verified and are printed once, tampered messages (body, signature, a
 * certificate on another host) and genuine ones of another topic are refused, a retried message
 * is processed once, and an UnsubscribeConfirmation is noted without subscribing again. Then,
 * with a key of the test's own standing in for SNS's, what the emulator cannot send: old and
 * future timestamps, an unknown SignatureVersion, a certificate that cannot be fetched (5xx, so
 * SNS sends the message again).
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CreateTopicCommand, GetSubscriptionAttributesCommand, ListSubscriptionsByTopicCommand, PublishCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CLIENTS_FILE } from '../../infra/local/auth/clients';
import { freePort } from '../../infra/local/free-port';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { loadOrCreateSigningIdentity, signatureFields, type SignedFields, type SigningIdentity } from '../../infra/local/sns/signing';
import { trustAuthorityOf } from '../support/local-authority';
import { type NpmStart, PROJECT_ROOT, startNpmStart, tokenFor } from '../support/npm-start';
import { closeServer, linesOf, post, type ReceiverProcess, signedNotification, startCertificateServer, startReceiver } from '../support/reference-receiver';
import { type SnsEnvelope, snsSignatureVerifies } from '../support/sns-signature';
import { waitFor } from '../support/wait-for';

const REGION = 'us-east-1';
const ACCOUNT = '000000000000';
const CREATE = 'asset_bank.media.create';
const API = '/v7/webhooks/public/api/subscriptions';

describe('a start that cannot work', () => {
  /** `npm run receiver` with `variables`, until it exits: its code and everything it printed. */
  async function runUntilExit(variables: Record<string, string>) {
    const child = spawn('npm', ['run', 'receiver'], { cwd: PROJECT_ROOT, env: { ...process.env, ...variables }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    return { code, output };
  }
  const variables = (port: number) => ({
    RECEIVER_PORT: String(port),
    TOPIC_ARNS: 'arn:aws:sns:us-east-1:000000000000:webhooks-0190a5b2-6c3d-7e4f-8a9b-0c1d2e3f4a5b',
    PORTAL_ID: 'portal-a',
  });

  it('without TOPIC_ARNS or PORTAL_ID says so in one line, no stack trace', async () => {
    const noTopics = await runUntilExit({ ...variables(await freePort()), TOPIC_ARNS: '' });
    expect(noTopics.code).toBe(1);
    expect(`\n${noTopics.output}`).toContain('\nnpm run receiver failed: Set TOPIC_ARNS to the topic ARNs of your subscriptions (what create answered), comma-separated.\n');
    expect(noTopics.output).not.toMatch(/\n\s+at |Error:|throw/);
    const noPortal = await runUntilExit({ ...variables(await freePort()), PORTAL_ID: '' });
    expect(`\n${noPortal.output}`).toContain('\nnpm run receiver failed: Set PORTAL_ID to your portal: a message of another portal is refused.\n');
  }, 60_000);

  it('refuses a wildcard in TOPIC_ARNS: every tenant\'s topics share the prefix', async () => {
    const { code, output } = await runUntilExit({ ...variables(await freePort()), TOPIC_ARNS: 'arn:aws:sns:us-east-1:000000000000:webhooks-*' });
    expect(code).toBe(1);
    expect(`\n${output}`).toContain("\nnpm run receiver failed: TOPIC_ARNS takes exact topic ARNs, no wildcard: a pattern accepts every tenant's topics.\n");
  }, 40_000);

  it('on a port in use says so in one line, naming RECEIVER_PORT, no stack trace', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const { code, output } = await runUntilExit(variables(port));
      expect(code).toBe(1);
      expect(`\n${output}`).toContain(
        `\nnpm run receiver failed: Port ${port} on 127.0.0.1 is in use: stop what listens there (another receiver?), or choose another port: RECEIVER_PORT=${port + 1} npm run receiver\n`,
      );
      expect(output).not.toMatch(/\n\s+at |Unhandled|EADDRINUSE/);
    } finally {
      await closeServer(busy);
    }
  }, 40_000);
});

describe('against npm start', () => {
  let stack: NpmStart;
  let receiver: ReceiverProcess;
  let sns: SNSClient;
  let events: EventBridgeClient;
  let token: string;
  let created: { configId: string; topicArn: string; subscriptionArn: string };
  let attacker: Awaited<ReturnType<typeof startCertificateServer>> | undefined;
  let receiverVariables: Record<string, string>;
  let receiverPort: number;

  beforeAll(async () => {
    // Another portal that may write, beside the shipped clients: the tenant next door.
    const clientsFile = join(mkdtempSync(join(tmpdir(), 'receiver-clients-')), 'clients.json');
    const shipped = JSON.parse(readFileSync(DEFAULT_CLIENTS_FILE, 'utf8')) as object[];
    writeFileSync(clientsFile, JSON.stringify([...shipped, { clientId: 'portal-b-admin', clientSecret: 'portal-b-admin-secret', portalId: 'portal-b', scopes: ['webhooks.config:read', 'webhooks.config:write'] }]));
    stack = await startNpmStart({ variables: { LOCAL_OAUTH_CLIENTS: clientsFile } });
    // As the printout says: the emulator's HTTPS origin, and its certificate authority's file.
    const authorityFile = /NODE_EXTRA_CA_CERTS=(\S+)/.exec(stack.output())?.[1];
    expect(stack.output()).toContain(`ALLOWED_CERT_ORIGIN=https://127.0.0.1:${stack.ports.sns}`);
    receiverVariables = { ALLOWED_CERT_ORIGIN: `https://127.0.0.1:${stack.ports.sns}`, NODE_EXTRA_CA_CERTS: authorityFile!, PORTAL_ID: 'portal-a' };
    receiverPort = await freePort();
    // This process follows the messages' URLs too.
    trustAuthorityOf({ certificateAuthority: { pem: readFileSync(authorityFile!, 'utf8') } });
    sns = new SNSClient({ endpoint: `http://127.0.0.1:${stack.ports.sns}`, region: REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
    events = new EventBridgeClient({ endpoint: `http://127.0.0.1:${stack.ports.events}`, region: REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
    token = await tokenFor(stack, 'portal-a-admin', 'portal-a-admin-secret');
  }, 120_000);

  afterAll(async () => {
    sns?.destroy();
    events?.destroy();
    await closeServer(attacker?.server);
    await receiver?.stop();
    await stack?.stop();
  }, 60_000);

  async function api(method: string, path: string, body?: unknown, bearer = token) {
    const response = await fetch(`${stack.baseUrl}${API}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON
    return { status: response.status, body: (await response.json()) as any };
  }

  /** The bodies the SNS emulator sent to one subscription, by type. */
  async function sent(subscriptionArn: string, type: string): Promise<SnsEnvelope[]> {
    const response = await fetch(`http://127.0.0.1:${stack.ports.sns}/_emulator/deliveries`, { signal: AbortSignal.timeout(5_000) });
    const { deliveries } = (await response.json()) as { deliveries: { subscriptionArn: string; type: string; body: string }[] };
    return deliveries.filter((entry) => entry.subscriptionArn === subscriptionArn && entry.type === type).map((entry) => JSON.parse(entry.body) as SnsEnvelope);
  }

  async function portalEventNotification(eventId: string): Promise<SnsEnvelope> {
    const notifications = await sent(created.subscriptionArn, 'Notification');
    return notifications.find((message) => JSON.parse(message.Message!).eventId === eventId)!;
  }

  let portalEventId: string;

  it('confirms its subscription itself, once given its topic ARN, the confirmation verified', async () => {
    // As docs/receiving.md says: create first, then run the receiver with the topic ARN create
    // answered; SNS sends the confirmation again until the receiver confirms it.
    const answer = await api('POST', '', { name: 'Reference receiver', protocol: 'http', endpoint: `http://127.0.0.1:${receiverPort}/hooks`, events: [CREATE] });
    expect(answer.status).toBe(200);
    created = answer.body.record;
    receiver = await startReceiver({ ...receiverVariables, RECEIVER_PORT: String(receiverPort), TOPIC_ARNS: created.topicArn });

    await waitFor('the receiver to confirm', () => (linesOf(receiver, new RegExp(`^confirmed ${created.topicArn}$`)).length === 1 ? true : undefined), 20_000);
    const listed = await waitFor('the API to list it confirmed', async () => {
      const { body } = await api('GET', '/list');
      return body.configs.find((config: { configId: string; confirmed: boolean }) => config.configId === created.configId && config.confirmed);
    });
    expect(listed).toMatchObject({ confirmed: true });
    const [confirmation] = await sent(created.subscriptionArn, 'SubscriptionConfirmation');
    expect(confirmation!.SignatureVersion).toBe('2');
    expect(await snsSignatureVerifies(confirmation!)).toBe(true);
  });

  it('accepts a portal event and a test event, each verified, and prints each once', async () => {
    const put = await events.send(
      new PutEventsCommand({
        Entries: [{ EventBusName: 'webhooks-portal-events', Source: 'portal.events', DetailType: CREATE, Detail: JSON.stringify({ portalId: 'portal-a', mediaId: 'm-1' }) }],
      }),
    );
    portalEventId = put.Entries![0]!.EventId!;
    const printed = `event ${CREATE} ${portalEventId} of ${created.configId}: {"mediaId":"m-1"}`;
    await waitFor('the portal event to be printed', () => (receiver.output().includes(printed) ? true : undefined), 20_000);

    expect((await api('POST', '/test', { config_id: created.configId })).status).toBe(200);
    const testEvent = new RegExp(`^event webhooks\\.test (\\S+) of ${created.configId}: \\{"name":"Reference receiver"\\}$`);
    await waitFor('the test event to be printed', () => (linesOf(receiver, testEvent).length === 1 ? true : undefined), 20_000);

    const notifications = await sent(created.subscriptionArn, 'Notification');
    expect(notifications).toHaveLength(2);
    for (const notification of notifications) expect(await snsSignatureVerifies(notification)).toBe(true);
    expect(linesOf(receiver, /^(refused|failed|could not)/)).toEqual([]);
  });

  it('refuses a tampered message (body, signature, or a certificate on another host) with a 4xx, and acts on none', async () => {
    const genuine = await portalEventNotification(portalEventId);
    const forgedEventId = randomUUID();
    const forgedMessage = JSON.stringify({ ...JSON.parse(genuine.Message!), eventId: forgedEventId, data: { mediaId: 'forged' } });

    expect(await post(receiver, { ...genuine, Message: forgedMessage })).toBe(403);
    const signature = Buffer.from(genuine.Signature!, 'base64');
    signature[10]! ^= 1;
    expect(await post(receiver, { ...genuine, Signature: signature.toString('base64') })).toBe(403);

    // A forger signs with a key of its own and points SigningCertURL at its own server.
    const forgerIdentity = await loadOrCreateSigningIdentity(undefined);
    attacker = await startCertificateServer(forgerIdentity);
    const forged = { ...genuine, Message: forgedMessage };
    const { Signature, SigningCertURL } = signatureFields(forgerIdentity, attacker.origin, '2', forged as unknown as SignedFields);
    const forgery = { ...forged, Signature, SigningCertURL };
    // By signature alone it is perfect; only its certificate's host gives it away.
    expect(await snsSignatureVerifies(forgery)).toBe(true);
    attacker.requests.length = 0;
    expect(await post(receiver, forgery)).toBe(403);
    expect(attacker.requests).toEqual([]);

    expect(linesOf(receiver, /^refused: the signature does not verify$/)).toHaveLength(2);
    expect(linesOf(receiver, /^refused: certificate URL http:\/\/127\.0\.0\.1:\d+\/SimpleNotificationService-[0-9a-f]+\.pem is not allowed$/)).toHaveLength(1);
    expect(receiver.output()).not.toContain(forgedEventId);
  });

  it('refuses a genuine message of a topic not its own, and so never confirms that subscription', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: 'not-a-webhooks-topic', Attributes: { SignatureVersion: '2' } }));
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: `${receiver.url}/other`, ReturnSubscriptionArn: true }),
    );
    await waitFor('the refusal', () => (linesOf(receiver, new RegExp(`^refused: topic ${TopicArn} is not one of ours$`)).length === 1 ? true : undefined), 20_000);
    const [confirmation] = await sent(SubscriptionArn!, 'SubscriptionConfirmation');
    expect(await snsSignatureVerifies(confirmation!)).toBe(true);
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn }));
    expect(Attributes?.PendingConfirmation).toBe('true');
  });

  it("refuses to confirm a subscription another portal made to its URL: that portal's topic is not one it was given", async () => {
    const otherToken = await tokenFor(stack, 'portal-b-admin', 'portal-b-admin-secret');
    const other = await api('POST', '', { name: 'Payment approved: wire 10000 EUR', protocol: 'http', endpoint: `${receiver.url}/hooks`, events: [CREATE] }, otherToken);
    expect(other.status).toBe(200);
    const foreignTopic: string = other.body.record.topicArn;
    // Same account, same prefix as its own topic: only the exact ARN tells them apart.
    expect(foreignTopic.slice(0, foreignTopic.lastIndexOf('-', foreignTopic.length - 30))).toBe(created.topicArn.slice(0, created.topicArn.lastIndexOf('-', created.topicArn.length - 30)));
    await waitFor('the refusal', () => (linesOf(receiver, new RegExp(`^refused: topic ${foreignTopic} is not one of ours$`)).length >= 1 ? true : undefined), 20_000);
    const [confirmation] = await sent(other.body.record.subscriptionArn, 'SubscriptionConfirmation');
    expect(await snsSignatureVerifies(confirmation!)).toBe(true);
    const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: other.body.record.subscriptionArn }));
    expect(Attributes?.PendingConfirmation).toBe('true');
    expect(linesOf(receiver, new RegExp(`^confirmed ${foreignTopic}$`))).toEqual([]);
    // Unconfirmed, it gets nothing: not even the other portal's test event.
    expect((await api('POST', '/test', { config_id: other.body.record.configId }, otherToken)).body.code).toBe('ENDPOINT_NOT_CONFIRMED');
    expect(await sent(other.body.record.subscriptionArn, 'Notification')).toEqual([]);
  });

  it('processes a retried message once: the same message again, or the same event in a new message', async () => {
    const genuine = await portalEventNotification(portalEventId);
    const printed = new RegExp(`^event ${CREATE} ${portalEventId} `);
    const duplicate = new RegExp(`^duplicate ${portalEventId} of ${created.configId}: already accepted$`);

    // As SNS retries when it did not get the first answer: the identical body.
    expect(await post(receiver, genuine)).toBe(200);
    expect(linesOf(receiver, duplicate)).toHaveLength(1);

    // As the dispatcher publishes an event again after a failure: a new message, same (configId, eventId).
    const { MessageId } = await sns.send(
      new PublishCommand({ TopicArn: created.topicArn, Message: genuine.Message, MessageAttributes: { event: { DataType: 'String', StringValue: CREATE } } }),
    );
    expect(MessageId).not.toBe(genuine.MessageId);
    await waitFor('the second duplicate', () => (linesOf(receiver, duplicate).length === 2 ? true : undefined), 20_000);
    const republished = (await sent(created.subscriptionArn, 'Notification')).find((message) => message.MessageId === MessageId);
    expect(await snsSignatureVerifies(republished!)).toBe(true);
    expect(linesOf(receiver, printed)).toHaveLength(1);
  });

  it('notes an UnsubscribeConfirmation, verified, without subscribing again', async () => {
    const genuine = await portalEventNotification(portalEventId);
    expect((await fetch(genuine.UnsubscribeURL!, { signal: AbortSignal.timeout(5_000) })).status).toBe(200);
    await waitFor('the note', () => (linesOf(receiver, new RegExp(`^unsubscribed from ${created.topicArn}$`)).length === 1 ? true : undefined), 20_000);
    const [goodbye] = await sent(created.subscriptionArn, 'UnsubscribeConfirmation');
    expect(await snsSignatureVerifies(goodbye!)).toBe(true);
    const { Subscriptions } = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: created.topicArn }));
    expect(Subscriptions).toEqual([]);
  });
});

describe('with a key of the test\'s own standing in for SNS\'s', () => {
  // Named as the service names a subscription's topic: `<prefix>-<configId>` (the notifications' configId is c-1).
  const topicArn = `arn:aws:sns:${REGION}:${ACCOUNT}:webhooks-own-c-1`;
  let identity: SigningIdentity;
  let certificates: Awaited<ReturnType<typeof startCertificateServer>>;
  let receiver: ReceiverProcess;

  beforeAll(async () => {
    identity = await loadOrCreateSigningIdentity(undefined);
    certificates = await startCertificateServer(identity);
    receiver = await startReceiver({ TOPIC_ARNS: topicArn, ALLOWED_CERT_ORIGIN: certificates.origin, PORTAL_ID: 'portal-a' });
  }, 60_000);

  afterAll(async () => {
    await receiver?.stop();
    await closeServer(certificates?.server);
  });

  it('accepts SignatureVersion 2 only, unless told otherwise, fetching the certificate once', async () => {
    const [first, second] = [signedNotification(identity, certificates.origin, topicArn, { version: '1' }), signedNotification(identity, certificates.origin, topicArn)];
    // A genuine signature, but over SHA1: refused by default, as docs/security.md advises.
    expect([await post(receiver, first), await post(receiver, second)]).toEqual([403, 200]);
    expect(linesOf(receiver, /^refused: SignatureVersion 1 is not accepted$/)).toHaveLength(1);
    const both = await startReceiver({ TOPIC_ARNS: topicArn, ALLOWED_CERT_ORIGIN: certificates.origin, PORTAL_ID: 'portal-a', SIGNATURE_VERSIONS: '1,2' });
    try {
      expect([await post(both, first), await post(both, signedNotification(identity, certificates.origin, topicArn))]).toEqual([200, 200]);
      await waitFor('both events', () => (linesOf(both, /^event /).length === 2 ? true : undefined));
    } finally {
      await both.stop();
    }
    await waitFor('the event', () => (linesOf(receiver, /^event /).length === 1 ? true : undefined));
    expect(certificates.requests).toEqual([identity.certificatePath, identity.certificatePath]);
  });

  it('refuses a message older than an hour or from the future, an unknown SignatureVersion, and what is not an SNS message', async () => {
    const hourAndMinuteAgo = new Date(Date.now() - 61 * 60 * 1000).toISOString();
    const inTenMinutes = new Date(Date.now() + 10 * 60 * 1000).toISOString();
    expect(await post(receiver, signedNotification(identity, certificates.origin, topicArn, { timestamp: hourAndMinuteAgo }))).toBe(403);
    expect(await post(receiver, signedNotification(identity, certificates.origin, topicArn, { timestamp: inTenMinutes }))).toBe(403);
    expect(await post(receiver, { ...signedNotification(identity, certificates.origin, topicArn), SignatureVersion: '3' })).toBe(403);
    expect(await post(receiver, 'not json')).toBe(403);
    expect(await post(receiver, { Type: 'Notification', Message: 'unsigned' })).toBe(403);
    expect((await fetch(`${receiver.url}/hooks`, { signal: AbortSignal.timeout(5_000) })).status).toBe(405);
    expect(linesOf(receiver, /^refused: Timestamp .* is out of range$/)).toHaveLength(2);
    expect(linesOf(receiver, /^refused: unknown SignatureVersion 3$/)).toHaveLength(1);
    expect(linesOf(receiver, /^event /)).toHaveLength(1);
  });

  it('answers 5xx while the certificate cannot be fetched, so SNS sends the message again, and accepts it then', async () => {
    const rotated = await loadOrCreateSigningIdentity(undefined);
    const message = signedNotification(rotated, certificates.origin, topicArn, { eventId: 'after-rotation' });
    expect(await post(receiver, message)).toBe(503);
    expect(linesOf(receiver, /^refused: no certificate at http:\/\/127\.0\.0\.1:\d+\/SimpleNotificationService-[0-9a-f]+\.pem \(HTTP 404\)$/)).toHaveLength(1);
    certificates.serve(rotated);
    expect(await post(receiver, message)).toBe(200);
    await waitFor('the event', () => (linesOf(receiver, /^event \S+ after-rotation of c-1: \{"mediaId":"m-1"\}$/).length === 1 ? true : undefined));
  });

  it("refuses an event, signed and of its own topic, that names another portal or another subscription", async () => {
    expect(await post(receiver, signedNotification(identity, certificates.origin, topicArn, { portalId: 'portal-b', eventId: 'other-portal' }))).toBe(403);
    expect(await post(receiver, signedNotification(identity, certificates.origin, topicArn, { configId: 'c-2', eventId: 'other-subscription' }))).toBe(403);
    expect(linesOf(receiver, /^refused \S+: portal portal-b, subscription c-1 are not ours$/)).toHaveLength(1);
    expect(linesOf(receiver, /^refused \S+: portal portal-a, subscription c-2 are not ours$/)).toHaveLength(1);
    expect(receiver.output()).not.toMatch(/other-portal|other-subscription/);
  });

  it('with RECEIVER_CREDENTIALS, answers a request without them 401 with a Basic challenge, and takes it with them', async () => {
    const guarded = await startReceiver({ TOPIC_ARNS: topicArn, ALLOWED_CERT_ORIGIN: certificates.origin, PORTAL_ID: 'portal-a', RECEIVER_CREDENTIALS: 'hook-user:s3cret pass' });
    try {
      const send = (authorization?: string) =>
        fetch(`${guarded.url}/hooks`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain; charset=UTF-8', ...(authorization && { authorization }) },
          body: JSON.stringify(signedNotification(identity, certificates.origin, topicArn)),
          signal: AbortSignal.timeout(10_000),
        });
      const without = await send();
      expect([without.status, without.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="webhooks"']);
      expect((await send(`Basic ${Buffer.from('hook-user:wrong').toString('base64')}`)).status).toBe(401);
      // What SNS sends for an endpoint https://hook-user:s3cret%20pass@host/hooks.
      expect((await send(`Basic ${Buffer.from('hook-user:s3cret pass').toString('base64')}`)).status).toBe(200);
      await waitFor('the event', () => (linesOf(guarded, /^event /).length === 1 ? true : undefined));
      expect(linesOf(guarded, /^refused: no valid credentials$/)).toHaveLength(2);
    } finally {
      await guarded.stop();
    }
  });
});
