/**
 * The suites follow the https:// URLs of the SNS emulator's messages (SubscribeURL,
 * UnsubscribeURL, SigningCertURL) with fetch, so their process trusts the emulator's local
 * certificate authority, as a receiver does with NODE_EXTRA_CA_CERTS=<its file>. That variable
 * is read only when a process starts, so here the process's default CA list is extended instead.
 * test/local/sns-validator.test.ts checks the receiver's way, in a process of its own.
 */
import { readFileSync } from 'node:fs';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

export function trustAuthorityOf(emulator: { certificateAuthority: { pem: string } }): void {
  const trusted = getCACertificates('default');
  if (!trusted.includes(emulator.certificateAuthority.pem)) setDefaultCACertificates([...trusted, emulator.certificateAuthority.pem]);
}

/** The same for an `npm start` with a DATA_DIR: its authority is the file it keeps there. */
export function trustAuthorityFile(file: string): void {
  trustAuthorityOf({ certificateAuthority: { pem: readFileSync(file, 'utf8') } });
}
