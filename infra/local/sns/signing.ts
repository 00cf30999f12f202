/**
 * How the emulator signs what it sends, as SNS does: an RSA key and a self-signed X.509
 * certificate of its own, the certificate served at the `SigningCertURL` every message carries,
 * and a SHA1withRSA (SignatureVersion 1) or SHA256withRSA (2) signature over the string to sign.
 * A receiver verifies these with the same code as SNS's; only the certificate's origin differs.
 *
 * The key and certificate are made at first start and kept in a directory (so a receiver's
 * cached certificate stays valid across restarts), or made per run when there is none.
 */
import { generateKeyPair, type KeyObject, createPrivateKey, sign, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeCertificate } from './x509';

const KEY_FILE = 'signing-key.pem';
const CERTIFICATE_FILE = 'signing-cert.pem';
const VALID_FOR_MS = 10 * 365 * 24 * 3600 * 1000;

export interface SigningIdentity {
  privateKey: KeyObject;
  certificatePem: string;
  /** Where the certificate is served, e.g. `/SimpleNotificationService-3f2a….pem` (AWS names its own so). */
  certificatePath: string;
}

/** The fields that go into the signature, by message type, in the order they are signed. */
const SIGNED_FIELDS = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
} as const;

export type SignedFields = { Type: keyof typeof SIGNED_FIELDS } & Record<string, string | undefined>;

/**
 * The string to sign, as AWS's page "Verifying the signatures of Amazon SNS messages" builds
 * it: each field of the type's list that the message has (only Subject may be missing), as its
 * name, a newline, its value, a newline.
 */
export function stringToSign(fields: SignedFields): string {
  return SIGNED_FIELDS[fields.Type]
    .filter((name) => fields[name] !== undefined)
    .map((name) => `${name}\n${fields[name]}\n`)
    .join('');
}

/** SignatureVersion, Signature and SigningCertURL for a message whose signed fields are `fields`. */
export function signatureFields(identity: SigningIdentity, endpoint: string, signatureVersion: string, fields: SignedFields) {
  const hash = signatureVersion === '2' ? 'sha256' : 'sha1';
  return {
    SignatureVersion: signatureVersion,
    Signature: sign(hash, Buffer.from(stringToSign(fields), 'utf8'), identity.privateKey).toString('base64'),
    SigningCertURL: `${endpoint}${identity.certificatePath}`,
  };
}

/** The identity kept in `directory` (made there at first start), or a new one when no directory is given. */
export async function loadOrCreateSigningIdentity(directory: string | undefined): Promise<SigningIdentity> {
  if (directory) {
    const kept = readKept(directory);
    if (kept) return kept;
  }
  const { privateKey, certificatePem } = await newKeyAndCertificate();
  if (directory) {
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, KEY_FILE), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(join(directory, CERTIFICATE_FILE), certificatePem);
  }
  return identityOf(privateKey, certificatePem);
}

function readKept(directory: string): SigningIdentity | undefined {
  let keyPem: string;
  let certificatePem: string;
  try {
    keyPem = readFileSync(join(directory, KEY_FILE), 'utf8');
    certificatePem = readFileSync(join(directory, CERTIFICATE_FILE), 'utf8');
  } catch (error) {
    // Either file missing (a first start, or a start cut short between the two writes): make both anew.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const privateKey = createPrivateKey(keyPem);
    if (!new X509Certificate(certificatePem).checkPrivateKey(privateKey)) throw new Error('the certificate is not of this key');
    return identityOf(privateKey, certificatePem);
  } catch (error) {
    throw new Error(`SNS emulator signing key or certificate in ${directory} is unusable (${(error as Error).message}); fix or remove them.`);
  }
}

function identityOf(privateKey: KeyObject, certificatePem: string): SigningIdentity {
  // Named after the certificate: a new key gets a new URL, so no receiver's cache serves the old one.
  const fingerprint = new X509Certificate(certificatePem).fingerprint256.replaceAll(':', '').toLowerCase();
  return { privateKey, certificatePem, certificatePath: `/SimpleNotificationService-${fingerprint.slice(0, 32)}.pem` };
}

async function newKeyAndCertificate(): Promise<{ privateKey: KeyObject; certificatePem: string }> {
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const name = [
    { shortName: 'CN', value: 'sns.emulator.local' },
    { shortName: 'O', value: 'webhook-subscriptions SNS emulator' },
  ];
  const certificatePem = writeCertificate({ publicKey, subject: name, issuer: name, issuerKey: privateKey, validForMs: VALID_FOR_MS });
  return { privateKey, certificatePem };
}
