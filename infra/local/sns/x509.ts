/**
 * X.509 certificates the emulator makes for itself (its signing certificate, the local
 * certificate authority and the HTTPS certificate it issues). Node's crypto makes the keys and
 * signs, but cannot write a certificate; node-forge only encodes one. Signing with Node rather than
 * with forge's RSA in JavaScript keeps a start that makes certificates short.
 */
import { type KeyObject, randomBytes, sign } from 'node:crypto';
import forge from 'node-forge';

export interface CertificateSpec {
  /** The RSA key the certificate is for: its public half goes into it. */
  publicKey: KeyObject;
  subject: forge.pki.CertificateField[];
  issuer: forge.pki.CertificateField[];
  /** The issuer's RSA private key (the subject's own for a self-signed certificate). */
  issuerKey: KeyObject;
  validForMs: number;
  /** forge's extension objects ({ name: 'basicConstraints', cA: true }, …). */
  extensions?: object[];
}

/** The certificate as PEM (LF line ends), signed SHA256withRSA. */
export function writeCertificate(spec: CertificateSpec): string {
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(spec.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  // A positive serial: a leading 0x01 keeps the top bit clear.
  certificate.serialNumber = `01${randomBytes(15).toString('hex')}`;
  certificate.validity.notBefore = new Date(Date.now() - 60_000);
  certificate.validity.notAfter = new Date(Date.now() + spec.validForMs);
  certificate.setSubject(spec.subject);
  certificate.setIssuer(spec.issuer);
  if (spec.extensions) certificate.setExtensions(spec.extensions);
  // What forge's certificate.sign() does, with Node's crypto doing the signing.
  certificate.signatureOid = certificate.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption!;
  // getTBSCertificate is forge's, left out of its type declarations.
  const toBeSigned = (forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate(certificate);
  certificate.signature = sign('sha256', Buffer.from(forge.asn1.toDer(toBeSigned).getBytes(), 'binary'), spec.issuerKey).toString('binary');
  return forge.pki.certificateToPem(certificate).replaceAll('\r\n', '\n');
}

/** The key identifier forge writes as a certificate's subjectKeyIdentifier: SHA-1 of the RSA public key. */
export function keyIdentifierOf(publicKey: KeyObject): string {
  const key = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  return forge.pki.getPublicKeyFingerprint(key, { type: 'RSAPublicKey', encoding: 'binary' });
}
