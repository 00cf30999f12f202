/**
 * An SNS message's signature checked from AWS's page "Verifying the signatures of Amazon SNS
 * messages" with Node's crypto alone: a second reading of the page, independent of the
 * emulator's signing code and of the reference receiver's verifying code.
 */
import { verify, X509Certificate } from 'node:crypto';

export type SnsEnvelope = Record<string, string>;

export function snsStringToSign(message: SnsEnvelope): string {
  const names =
    message.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  let text = '';
  for (const name of names) {
    if (name === 'Subject' && !(name in message)) continue;
    text += `${name}\n${message[name]}\n`;
  }
  return text;
}

/** The certificate at the message's SigningCertURL (https:// from the emulator: the process trusts its authority, test/support/local-authority.ts). */
export async function fetchCertificate(message: SnsEnvelope): Promise<X509Certificate> {
  const response = await fetch(message.SigningCertURL!, { signal: AbortSignal.timeout(5_000) });
  if (response.status !== 200) throw new Error(`GET ${message.SigningCertURL} answered ${response.status}`);
  return new X509Certificate(await response.text());
}

/** SHA1withRSA or SHA256withRSA, as `hash` says, over the message's string to sign. */
export function verifiesWith(message: SnsEnvelope, certificate: X509Certificate, hash: 'sha1' | 'sha256'): boolean {
  return verify(hash, Buffer.from(snsStringToSign(message), 'utf8'), certificate.publicKey, Buffer.from(message.Signature!, 'base64'));
}

/** Verifies with the hash the message's SignatureVersion names: 1 SHA1, 2 SHA256. */
export async function snsSignatureVerifies(message: SnsEnvelope): Promise<boolean> {
  const hash = ({ '1': 'sha1', '2': 'sha256' } as const)[message.SignatureVersion as '1' | '2'];
  if (!hash) throw new Error(`SignatureVersion ${message.SignatureVersion}`);
  return verifiesWith(message, await fetchCertificate(message), hash);
}
