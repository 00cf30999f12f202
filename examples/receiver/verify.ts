/**
 * Is this message from SNS? The checks of AWS's page "Verifying the signatures of Amazon SNS
 * messages", with Node's crypto: the same code for SNS and for the SNS emulator of `npm start`;
 * only where certificates may come from (`originAllowed`) differs.
 */
import { verify, X509Certificate } from 'node:crypto';

export type SnsMessage = Record<'Type' | 'MessageId' | 'TopicArn' | 'Message' | 'Timestamp' | 'Signature' | 'SigningCertURL', string> &
  Partial<Record<'Subject' | 'Token' | 'SubscribeURL', string>>;

export interface VerifyOptions {
  /** May a certificate, or a SubscribeURL to visit, be at this URL? */
  originAllowed: (url: URL) => boolean;
  topicAllowed: (topicArn: string) => boolean;
  maxAgeMs: number;
  /**
   * SignatureVersions accepted: '2' (SHA256withRSA, what the service's topics use) unless told
   * otherwise. Accepting '1' (SHA1withRSA) lets a message whose signature was made with a weaker
   * hash through, so only a receiver of topics left on version 1 should.
   */
  signatureVersions: ReadonlySet<string>;
}

/** A message not to act on. `retry`: the fault may be ours (no certificate), so SNS should send it again. */
export class Refused extends Error {
  constructor(reason: string, readonly retry = false) {
    super(reason);
  }
}

// The string to sign: these fields, those present (only Subject may be missing), each as "Name\nvalue\n".
const CONFIRMATION = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
const SIGNED_FIELDS = new Map([
  ['Notification', ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']],
  ['SubscriptionConfirmation', CONFIRMATION],
  ['UnsubscribeConfirmation', CONFIRMATION],
]);
const HASHES = new Map([['1', 'sha1'], ['2', 'sha256']]);
const CLOCK_SKEW_MS = 5 * 60 * 1000;

export async function verifySnsMessage(body: unknown, options: VerifyOptions): Promise<SnsMessage> {
  const message = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const fields = SIGNED_FIELDS.get(String(message.Type));
  if (!fields) throw new Refused(`unknown message type ${String(message.Type)}`);
  const required = [...fields.filter((name) => name !== 'Subject'), 'Signature', 'SigningCertURL', 'SignatureVersion'];
  const missing = required.find((name) => typeof message[name] !== 'string');
  if (missing || !['undefined', 'string'].includes(typeof message.Subject)) throw new Refused(`no valid ${missing ?? 'Subject'}`);
  const sns = message as SnsMessage;
  const hash = HASHES.get(String(message.SignatureVersion));
  if (!hash) throw new Refused(`unknown SignatureVersion ${String(message.SignatureVersion)}`);
  if (!options.signatureVersions.has(String(message.SignatureVersion))) throw new Refused(`SignatureVersion ${String(message.SignatureVersion)} is not accepted`);
  // A confirmation of a topic not (yet) listed is answered 5xx: SNS sends it again, so a subscription
  // just created is confirmed once the receiver is given its topic; it is never confirmed before.
  if (!options.topicAllowed(sns.TopicArn)) throw new Refused(`topic ${sns.TopicArn} is not one of ours`, sns.Type === 'SubscriptionConfirmation');
  const certificateUrl = URL.parse(sns.SigningCertURL);
  if (!certificateUrl || !options.originAllowed(certificateUrl) || !certificateUrl.pathname.endsWith('.pem')) {
    throw new Refused(`certificate URL ${sns.SigningCertURL} is not allowed`);
  }
  const subscribeUrl = sns.SubscribeURL === undefined ? undefined : (URL.parse(sns.SubscribeURL) ?? new URL('invalid:'));
  if (subscribeUrl && !options.originAllowed(subscribeUrl)) throw new Refused(`SubscribeURL ${sns.SubscribeURL} is not allowed`);
  const age = Date.now() - Date.parse(sns.Timestamp);
  if (!(age <= options.maxAgeMs && age >= -CLOCK_SKEW_MS)) throw new Refused(`Timestamp ${sns.Timestamp} is out of range`);

  const certificate = await certificateAt(certificateUrl.href);
  const stringToSign = fields.map((name) => (message[name] === undefined ? '' : `${name}\n${String(message[name])}\n`)).join('');
  if (!verify(hash, Buffer.from(stringToSign, 'utf8'), certificate.publicKey, Buffer.from(sns.Signature, 'base64'))) {
    throw new Refused('the signature does not verify');
  }
  return sns;
}

/** Fetched once per URL; a failed fetch is forgotten, so the next message tries again. */
const certificates = new Map<string, Promise<X509Certificate>>();

function certificateAt(url: string): Promise<X509Certificate> {
  let certificate = certificates.get(url);
  if (!certificate) {
    certificate = fetch(url, { redirect: 'error', signal: AbortSignal.timeout(5_000) }).then(async (response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const fetched = new X509Certificate(await response.text());
      if (Date.parse(fetched.validTo) < Date.now()) throw new Error('expired');
      return fetched;
    });
    certificates.set(url, certificate);
    certificate.catch(() => certificates.delete(url));
  }
  return certificate.catch((error: Error) => {
    throw new Refused(`no certificate at ${url} (${error.message})`, true);
  });
}
