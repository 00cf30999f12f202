/**
 * The HTTPS side of the emulator: a certificate authority of the local stack and the one
 * certificate it issues, for 127.0.0.1, ::1 and localhost, that the emulator serves HTTPS with.
 * A receiver trusts the authority's certificate (Node: NODE_EXTRA_CA_CERTS=<its file>) and then
 * fetches SigningCertURL and follows SubscribeURL over HTTPS, as from SNS.
 *
 * The authority's key signs that one certificate and is then thrown away, never written: trusting
 * the file admits the emulator's certificate and nothing else, whoever reads the data directory.
 * Kept in a directory (local-ca.pem, tls-key.pem, tls-cert.pem), made at first start, and made
 * anew only when missing or about to expire; without a directory, made per run, the authority's
 * certificate written to a temporary file (removed by dispose()) for receivers to trust.
 */
import { createPrivateKey, generateKeyPair, type KeyObject, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { keyIdentifierOf, writeCertificate } from './x509';

export const AUTHORITY_FILE = 'local-ca.pem';
const KEY_FILE = 'tls-key.pem';
const CERTIFICATE_FILE = 'tls-cert.pem';
/** The longest validity Apple's TLS clients accept of a server certificate; the authority's matches it. */
const VALID_FOR_MS = 825 * 24 * 3600 * 1000;
/** Made anew this long before the kept certificate expires, so none expires while the emulator runs. */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;
const HOST_IPS = ['127.0.0.1', '::1'];

export interface TlsIdentity {
  /** The HTTPS server's key and certificate (PEM). */
  key: string;
  certificate: string;
  /** The authority's certificate (PEM), and the file holding it: what a receiver trusts. */
  authorityPem: string;
  authorityFile: string;
  /** Removes the temporary file of an identity made per run; nothing for a kept one. */
  dispose(): void;
}

export async function loadOrCreateTlsIdentity(directory: string | undefined, log: (line: string) => void = () => {}): Promise<TlsIdentity> {
  if (directory) {
    const kept = readKept(directory);
    if (kept !== 'missing' && kept !== 'expiring') return kept;
    const made = await newAuthorityAndCertificate();
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, KEY_FILE), made.key, { mode: 0o600 });
    writeFileSync(join(directory, CERTIFICATE_FILE), made.certificate);
    // Written last: a start cut short before it leaves a set the next start makes anew.
    writeFileSync(join(directory, AUTHORITY_FILE), made.authorityPem);
    if (kept === 'expiring') log(`the HTTPS certificate was about to expire: made a new authority in ${join(directory, AUTHORITY_FILE)} (restart receivers that trust it)`);
    return { ...made, authorityFile: join(directory, AUTHORITY_FILE), dispose: () => {} };
  }
  const made = await newAuthorityAndCertificate();
  const temporary = mkdtempSync(join(tmpdir(), 'sns-emulator-ca-'));
  writeFileSync(join(temporary, AUTHORITY_FILE), made.authorityPem);
  return { ...made, authorityFile: join(temporary, AUTHORITY_FILE), dispose: () => rmSync(temporary, { recursive: true, force: true }) };
}

function readKept(directory: string): TlsIdentity | 'missing' | 'expiring' {
  const files = [KEY_FILE, CERTIFICATE_FILE, AUTHORITY_FILE].map((name) => join(directory, name));
  let texts: string[];
  try {
    texts = files.map((file) => readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  const [key, certificate, authorityPem] = texts as [string, string, string];
  try {
    const leaf = new X509Certificate(certificate);
    const authority = new X509Certificate(authorityPem);
    if (!leaf.checkPrivateKey(createPrivateKey(key))) throw new Error('the certificate is not of this key');
    if (!leaf.verify(authority.publicKey)) throw new Error(`${AUTHORITY_FILE} did not issue the certificate`);
    if (!HOST_IPS.every((ip) => leaf.checkIP(ip))) throw new Error(`the certificate is not for ${HOST_IPS.join(' and ')}`);
    if (Date.parse(leaf.validTo) - Date.now() < RENEW_BEFORE_MS) return 'expiring';
  } catch (error) {
    throw new Error(`SNS emulator HTTPS key or certificates in ${directory} are unusable (${(error as Error).message}); fix or remove them.`);
  }
  return { key, certificate, authorityPem, authorityFile: files[2]!, dispose: () => {} };
}

async function newAuthorityAndCertificate(): Promise<{ key: string; certificate: string; authorityPem: string }> {
  const newKeyPair = () => promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const [authorityKeys, serverKeys] = await Promise.all([newKeyPair(), newKeyPair()]);
  const authorityName = [
    { shortName: 'CN', value: 'webhook-subscriptions local CA' },
    { shortName: 'O', value: 'webhook-subscriptions npm start' },
  ];
  const authorityPem = writeCertificate({
    publicKey: authorityKeys.publicKey,
    subject: authorityName,
    issuer: authorityName,
    issuerKey: authorityKeys.privateKey,
    validForMs: VALID_FOR_MS,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
      { name: 'authorityKeyIdentifier', keyIdentifier: true },
    ],
  });
  const certificate = writeCertificate({
    publicKey: serverKeys.publicKey,
    subject: [{ shortName: 'CN', value: '127.0.0.1' }],
    issuer: authorityName,
    issuerKey: authorityKeys.privateKey,
    validForMs: VALID_FOR_MS,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...HOST_IPS.map((ip) => ({ type: 7, ip })), { type: 2, value: 'localhost' }] },
      { name: 'subjectKeyIdentifier' },
      { name: 'authorityKeyIdentifier', keyIdentifier: keyIdentifierOf(authorityKeys.publicKey) },
    ],
  });
  // The authority's private key goes out of scope here, never written anywhere.
  return { key: pemOf(serverKeys.privateKey), certificate, authorityPem };
}

function pemOf(privateKey: KeyObject): string {
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
