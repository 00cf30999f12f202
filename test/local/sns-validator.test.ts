/**
 * A receiver built on AWS's own validator, `sns-validator` (aws-js-sns-message-validator),
 * verifies the emulator's messages given nothing but the host pattern docs/receiving.md names
 * and the local certificate authority, as NODE_EXTRA_CA_CERTS=<its file>, in a Node process of
 * its own (the variable is read only at start): the SubscriptionConfirmation (and it confirms by
 * its SubscribeURL over HTTPS), Notifications with and without a Subject, for SignatureVersion 1
 * and 2. The UnsubscribeConfirmation it refuses, as it would SNS's: sns-validator 0.3.5 leaves
 * Token out of that type's string to sign, which AWS's page (and the emulator, and AWS's PHP
 * validator) include; the same process verifies it over the page's string with the certificate
 * it fetched. Without the authority, the same process refuses everything: the trust is the file's.
 */
import { CreateTopicCommand, PublishCommand, SNSClient, SubscribeCommand, UnsubscribeCommand } from '@aws-sdk/client-sns';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type SnsEmulator, startSnsEmulator } from '../../infra/local/sns/emulator';
import { PROJECT_ROOT } from '../support/npm-start';
import type { SnsEnvelope } from '../support/sns-signature';
import { waitFor } from '../support/wait-for';

/** The host pattern docs/receiving.md and npm start's printout give AWS's validator. */
const HOST_PATTERN = String.raw`/^127\.0\.0\.1(:\d+)?$/`;

/**
 * A receiver's part, run in its own Node process: each message of stdin through
 * `new MessageValidator(HOST_PATTERN).validate`, a confirmation's SubscribeURL visited with
 * https.get, and the signature checked by AWS's page with the certificate the URL serves.
 */
const RECEIVER_SCRIPT = `
const MessageValidator = require('sns-validator');
const https = require('node:https');
const crypto = require('node:crypto');
const get = (url) => new Promise((resolve) => https.get(url, (response) => {
  let body = '';
  response.on('data', (chunk) => (body += chunk)).on('end', () => resolve({ status: response.statusCode, body }));
}).on('error', (error) => resolve({ error: error.message })));
const FIELDS = { Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] };
const CONFIRMATION = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
(async () => {
  const results = [];
  for (const message of JSON.parse(require('node:fs').readFileSync(0, 'utf8'))) {
    const validator = new MessageValidator(${HOST_PATTERN});
    const validated = await new Promise((resolve) => validator.validate(message, (error) => resolve(error ? error.message : 'valid')));
    const certificate = await get(message.SigningCertURL);
    const stringToSign = (FIELDS[message.Type] || CONFIRMATION).filter((name) => name in message).map((name) => name + '\\n' + message[name] + '\\n').join('');
    const byAwsPage = certificate.body !== undefined && crypto.verify(message.SignatureVersion === '2' ? 'sha256' : 'sha1', Buffer.from(stringToSign), certificate.body, Buffer.from(message.Signature, 'base64'));
    const visit = message.Type === 'SubscriptionConfirmation' ? await get(message.SubscribeURL) : undefined;
    results.push({ type: message.Type, validated, byAwsPage, visited: visit && (visit.status ?? visit.error) });
  }
  console.log(JSON.stringify(results));
})();
`;

interface Verdict {
  type: string;
  validated: string;
  byAwsPage: boolean;
  visited?: number | string;
}

/** RECEIVER_SCRIPT in a new Node process from the project's directory, with only PATH and `variables` in its environment. */
function receiverVerdicts(messages: SnsEnvelope[], variables: Record<string, string>): Promise<Verdict[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['-e', RECEIVER_SCRIPT],
      { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, ...variables }, timeout: 30_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as Verdict[])),
    );
    child.stdin!.end(JSON.stringify(messages));
  });
}

let emulator: SnsEmulator;
let sns: SNSClient;
let receiver: Server;
let receiverUrl: string;
const arrived: SnsEnvelope[] = [];

beforeAll(async () => {
  emulator = await startSnsEmulator({ deliveryRetries: 0 });
  sns = new SNSClient({ endpoint: emulator.endpoint, region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' }, maxAttempts: 1 });
  // Only collects what arrives: the receiver's part runs in its own process, on these bodies.
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      arrived.push(JSON.parse(body) as SnsEnvelope);
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  sns?.destroy();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await emulator?.close();
});

function arrivedOn(topicArn: string, type: string, count = 1): Promise<SnsEnvelope[]> {
  return waitFor(`${count} ${type} on ${topicArn}`, () => {
    const found = arrived.filter((message) => message.TopicArn === topicArn && message.Type === type);
    return found.length >= count ? found : undefined;
  });
}

describe.each<{ version: string; attributes: Record<string, string> }>([
  // No attribute: SNS's default, 1.
  { version: '1', attributes: {} },
  { version: '2', attributes: { SignatureVersion: '2' } },
])('SignatureVersion $version', ({ version, attributes }) => {
  const trusting = () => ({ NODE_EXTRA_CA_CERTS: emulator.certificateAuthority.file });

  it('sns-validator verifies the SubscriptionConfirmation and Notifications, and the receiver confirms by SubscribeURL over HTTPS', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `validated-v${version}`, Attributes: attributes }));
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: `${receiverUrl}/v${version}`, ReturnSubscriptionArn: true }),
    );
    const [confirmation] = await arrivedOn(TopicArn!, 'SubscriptionConfirmation');
    expect(confirmation).toMatchObject({
      SignatureVersion: version,
      SigningCertURL: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/SimpleNotificationService-[0-9a-f]{32}\.pem$/),
      SubscribeURL: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/\?Action=ConfirmSubscription&/),
    });

    expect(await receiverVerdicts([confirmation!], trusting())).toEqual([
      { type: 'SubscriptionConfirmation', validated: 'valid', byAwsPage: true, visited: 200 },
    ]);

    await sns.send(new PublishCommand({ TopicArn, Message: '{"event":"x","é":"ü\\n"}', Subject: 'With a subject' }));
    await sns.send(new PublishCommand({ TopicArn, Message: 'no subject' }));
    const notifications = await arrivedOn(TopicArn!, 'Notification', 2);
    expect(notifications.map((message) => message.UnsubscribeURL)).toEqual([
      expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/\?Action=Unsubscribe&/),
      expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/\?Action=Unsubscribe&/),
    ]);
    expect(await receiverVerdicts(notifications, trusting())).toEqual([
      { type: 'Notification', validated: 'valid', byAwsPage: true },
      { type: 'Notification', validated: 'valid', byAwsPage: true },
    ]);
    // Tampered, the same message is refused: the verdicts above are sns-validator's own.
    const tampered = { ...notifications[0]!, Message: 'forged' };
    expect(await receiverVerdicts([tampered], trusting())).toEqual([
      { type: 'Notification', validated: 'The message signature is invalid.', byAwsPage: false },
    ]);

    await sns.send(new UnsubscribeCommand({ SubscriptionArn }));
    const [goodbye] = await arrivedOn(TopicArn!, 'UnsubscribeConfirmation');
    // sns-validator 0.3.5 signs only a SubscriptionConfirmation's Token in; SNS's page signs it for both types.
    expect(await receiverVerdicts([goodbye!], trusting())).toEqual([
      { type: 'UnsubscribeConfirmation', validated: 'The message signature is invalid.', byAwsPage: true },
    ]);
  });

  it('without the authority, the same receiver can fetch no certificate and confirms nothing', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `untrusted-v${version}`, Attributes: attributes }));
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn, Protocol: 'http', Endpoint: `${receiverUrl}/untrusted-v${version}`, ReturnSubscriptionArn: true }),
    );
    const [confirmation] = await arrivedOn(TopicArn!, 'SubscriptionConfirmation');

    const [verdict] = await receiverVerdicts([confirmation!], {});

    expect(verdict).toEqual({ type: 'SubscriptionConfirmation', validated: expect.stringMatching(/certificate/), byAwsPage: false, visited: expect.stringMatching(/certificate/) });
    expect(verdict!.validated).not.toBe('The certificate is located on an invalid domain.');
    await sns.send(new UnsubscribeCommand({ SubscriptionArn }));
  });
});
