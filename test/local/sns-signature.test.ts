/**
 * The SNS emulator signs as SNS does: every SubscriptionConfirmation, Notification and
 * UnsubscribeConfirmation it POSTs verifies, by the steps of AWS's page "Verifying the
 * signatures of Amazon SNS messages", with Node's crypto.verify and the certificate fetched from
 * its SigningCertURL: SHA1withRSA for SignatureVersion 1, SHA256withRSA for 2, and nothing else.
 * The check is test/support/sns-signature.ts, independent of the emulator's and the reference
 * receiver's code. Also: the certificate, and the key kept in a directory across restarts.
 */
import { CreateTopicCommand, PublishCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { X509Certificate } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
import { trustAuthorityOf } from '../support/local-authority';
import { fetchCertificate, type SnsEnvelope, snsSignatureVerifies, verifiesWith } from '../support/sns-signature';
import { waitFor } from '../support/wait-for';

interface Arrived {
  headers: IncomingHttpHeaders;
  message: SnsEnvelope;
}

let emulator: SnsEmulator;
let sns: SNSClient;
let receiverUrl: string;
let closeReceiver: () => Promise<void>;
const arrived: Arrived[] = [];
let directory: string;

beforeAll(async () => {
  emulator = await startSnsEmulator();
  trustAuthorityOf(emulator);
  sns = new SNSClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' }, maxAttempts: 1 });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      arrived.push({ headers: request.headers, message: JSON.parse(Buffer.concat(chunks).toString('utf8')) as SnsEnvelope });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeReceiver = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  directory = await mkdtemp(join(tmpdir(), 'sns-signing-'));
});

afterAll(async () => {
  sns?.destroy();
  await emulator?.close();
  await closeReceiver?.();
  if (directory) await rm(directory, { recursive: true, force: true });
});

/** The n-th message of `type` on `topicArn` (0-based), once it arrived. */
function nth(topicArn: string, type: string, n = 0): Promise<Arrived> {
  return waitFor(`${type} #${n} on ${topicArn}`, () => arrived.filter((entry) => entry.message.TopicArn === topicArn && entry.message.Type === type)[n]);
}

describe.each<{ version: string; attributes: Record<string, string>; hash: 'sha1' | 'sha256'; otherHash: 'sha1' | 'sha256' }>([
  // No attribute: SNS's default, 1.
  { version: '1', attributes: {}, hash: 'sha1', otherHash: 'sha256' },
  { version: '2', attributes: { SignatureVersion: '2' }, hash: 'sha256', otherHash: 'sha1' },
])('SignatureVersion $version', ({ version, attributes, hash, otherHash }) => {
  let topicArn: string;
  const expectSigned = async ({ message }: Arrived) => {
    expect(message.SignatureVersion).toBe(version);
    const url = new URL(message.SigningCertURL!);
    expect(url.origin).toBe(emulator.httpsEndpoint);
    expect(url.pathname).toMatch(/^\/SimpleNotificationService-[0-9a-f]{32}\.pem$/);
    const certificate = await fetchCertificate(message);
    // RSA-2048: a 256-byte signature, not a digest of the string to sign.
    expect(Buffer.from(message.Signature!, 'base64')).toHaveLength(256);
    expect(verifiesWith(message, certificate, hash)).toBe(true);
    expect(verifiesWith(message, certificate, otherHash)).toBe(false);
    return certificate;
  };

  beforeAll(async () => {
    ({ TopicArn: topicArn } = (await sns.send(new CreateTopicCommand({ Name: `signed-v${version}`, Attributes: attributes }))) as { TopicArn: string });
  });

  it('signs the SubscriptionConfirmation over Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type', async () => {
    await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'http', Endpoint: `${receiverUrl}/v${version}` }));
    const confirmation = await nth(topicArn, 'SubscriptionConfirmation');
    const certificate = await expectSigned(confirmation);
    for (const field of ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn']) {
      expect([field, verifiesWith({ ...confirmation.message, [field]: `${confirmation.message[field]}x` }, certificate, hash)]).toEqual([field, false]);
    }
    expect(verifiesWith({ ...confirmation.message, Type: 'UnsubscribeConfirmation' }, certificate, hash)).toBe(false);
    expect((await fetch(confirmation.message.SubscribeURL!)).status).toBe(200);
  });

  it('signs each Notification over Message, MessageId, Subject (when there is one), Timestamp, TopicArn, Type', async () => {
    await sns.send(new PublishCommand({ TopicArn: topicArn, Message: '{"event":"x","é":"ü\\n"}', Subject: 'With a subject' }));
    await sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'no subject', MessageAttributes: { event: { DataType: 'String', StringValue: 'x' } } }));
    const withSubject = await nth(topicArn, 'Notification', 0);
    const without = await nth(topicArn, 'Notification', 1);
    expect(without.message).not.toHaveProperty('Subject');
    const certificate = await expectSigned(withSubject);
    await expectSigned(without);
    for (const field of ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn']) {
      expect([field, verifiesWith({ ...withSubject.message, [field]: `${withSubject.message[field]}x` }, certificate, hash)]).toEqual([field, false]);
    }
    // Subject is signed when present: dropping it, or adding one, breaks the signature.
    const { Subject: _dropped, ...withoutItsSubject } = withSubject.message;
    expect(verifiesWith(withoutItsSubject, certificate, hash)).toBe(false);
    expect(verifiesWith({ ...without.message, Subject: 'added' }, certificate, hash)).toBe(false);
    // Fields outside the string to sign (UnsubscribeURL, MessageAttributes) are not covered, as on SNS.
    expect(verifiesWith({ ...without.message, UnsubscribeURL: 'http://elsewhere/' }, certificate, hash)).toBe(true);
  });

  it('signs the UnsubscribeConfirmation a confirmed endpoint gets once unsubscribed', async () => {
    const notification = await nth(topicArn, 'Notification', 0);
    expect((await fetch(notification.message.UnsubscribeURL!)).status).toBe(200);
    const goodbye = await nth(topicArn, 'UnsubscribeConfirmation');
    expect(goodbye.headers).toMatchObject({
      'x-amz-sns-message-type': 'UnsubscribeConfirmation',
      'x-amz-sns-topic-arn': topicArn,
      'x-amz-sns-subscription-arn': notification.headers['x-amz-sns-subscription-arn'],
    });
    expect(goodbye.message).toMatchObject({ Token: expect.any(String), SubscribeURL: expect.stringContaining('Action=ConfirmSubscription') });
    expect(goodbye.message.Message).toContain(`You have chosen to deactivate subscription ${notification.headers['x-amz-sns-subscription-arn']}.`);
    await expectSigned(goodbye);
  });
});

describe('the signing certificate', () => {
  it('is an RSA-2048 certificate of the emulator\'s own, valid now, served as PEM at SigningCertURL; other names are 404', async () => {
    const response = await fetch(emulator.signingCertUrl);
    expect(response.status).toBe(200);
    const pem = await response.text();
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/);
    const certificate = await fetchCertificate({ SigningCertURL: emulator.signingCertUrl });
    expect(certificate.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(certificate.checkIssued(certificate)).toBe(true);
    expect(Date.parse(certificate.validFrom)).toBeLessThan(Date.now());
    expect(Date.parse(certificate.validTo)).toBeGreaterThan(Date.now() + 365 * 24 * 3600 * 1000);
    expect((await fetch(`${emulator.httpsEndpoint}/SimpleNotificationService-0123456789abcdef0123456789abcdef.pem`)).status).toBe(404);
    // The HTTP endpoint (the AWS CLI's and SDK's) serves the same paths.
    expect(await (await fetch(`${emulator.endpoint}${new URL(emulator.signingCertUrl).pathname}`)).text()).toBe(pem);
    expect((await fetch(`${emulator.endpoint}/SimpleNotificationService-0123456789abcdef0123456789abcdef.pem`)).status).toBe(404);
  });

  it('is kept in signingDir across restarts (same URL, same key, key readable by its owner only); in memory each run has its own', async () => {
    const signingDir = join(directory, 'kept');
    const first = await startSnsEmulator({ signingDir });
    trustAuthorityOf(first);
    const firstPem = await (await fetch(first.signingCertUrl)).text();
    await first.close();
    expect((await stat(join(signingDir, 'signing-key.pem'))).mode & 0o777).toBe(0o600);
    // The HTTPS key beside it, and the authority's certificate, whose key was never written.
    expect((await stat(join(signingDir, 'tls-key.pem'))).mode & 0o777).toBe(0o600);
    expect((await readdir(signingDir)).sort()).toEqual(['local-ca.pem', 'signing-cert.pem', 'signing-key.pem', 'tls-cert.pem', 'tls-key.pem']);
    expect(first.certificateAuthority.file).toBe(join(signingDir, 'local-ca.pem'));

    const second = await startSnsEmulator({ signingDir });
    trustAuthorityOf(second);
    const client = new SNSClient({ endpoint: second.endpoint, region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' }, maxAttempts: 1 });
    try {
      expect(new URL(second.signingCertUrl).pathname).toBe(new URL(first.signingCertUrl).pathname);
      // A receiver trusting the first run's authority trusts the second's HTTPS.
      expect(second.certificateAuthority.pem).toBe(first.certificateAuthority.pem);
      expect(await (await fetch(second.signingCertUrl)).text()).toBe(firstPem);
      const { TopicArn } = await client.send(new CreateTopicCommand({ Name: 'after-restart', Attributes: { SignatureVersion: '2' } }));
      await client.send(new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: `${receiverUrl}/restarted` }));
      const confirmation = await nth(TopicArn!, 'SubscriptionConfirmation');
      // A receiver that cached the first run's certificate still verifies the second run's messages.
      expect(verifiesWith(confirmation.message, new X509Certificate(firstPem), 'sha256')).toBe(true);
      expect(await snsSignatureVerifies(confirmation.message)).toBe(true);
    } finally {
      client.destroy();
      await second.close();
    }

    const inMemory = await startSnsEmulator();
    trustAuthorityOf(inMemory);
    // Its authority, made for this run, is in a file of its own while it runs, and gone after.
    expect(await readFile(inMemory.certificateAuthority.file, 'utf8')).toBe(inMemory.certificateAuthority.pem);
    await inMemory.close();
    await expect(stat(inMemory.certificateAuthority.file)).rejects.toThrow(/ENOENT/);
    expect(inMemory.certificateAuthority.pem).not.toBe(emulator.certificateAuthority.pem);
    expect(new URL(inMemory.signingCertUrl).pathname).not.toBe(new URL(emulator.signingCertUrl).pathname);
  });

  it('refuses to start on a key it cannot use, rather than replace it', async () => {
    const signingDir = join(directory, 'broken');
    const first = await startSnsEmulator({ signingDir });
    trustAuthorityOf(first);
    await first.close();
    await writeFile(join(signingDir, 'signing-key.pem'), 'not a key');
    await expect(startSnsEmulator({ signingDir })).rejects.toThrow(/signing key or certificate in .*broken is unusable/);
  });
});
