/**
 * The RS256 key the local token endpoint signs access tokens with, and the key set (JWKS) the
 * gateway's JWT authorizer verifies them against, as API Gateway fetches an issuer's jwks_uri.
 *
 * With a data directory the private key is kept in a file there, so tokens minted before a
 * restart stay valid after it (the issuer, which holds the port, must stay the same too);
 * in memory a new key is made at every start and older tokens are refused.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK } from 'jose';

export const SIGNING_ALGORITHM = 'RS256';

export interface SigningKey {
  /** Key id, sent as the `kid` header of every token and listed in the key set. */
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** The public half as a JWK, with kid, alg and use. */
  readonly publicJwk: JWK;
}

export async function generateSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const kid = randomUUID();
  return { kid, privateKey, publicJwk: describedJwk(await exportJWK(publicKey), kid) };
}

/** The key kept in `file` (a private JWK), made and written there first if there is none. */
export async function loadOrCreateSigningKey(file: string): Promise<SigningKey> {
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as JWK;
    if (typeof stored.kid !== 'string' || stored.kty !== 'RSA' || typeof stored.d !== 'string') {
      throw new Error(`${file} does not hold an RSA private key as a JWK; delete it to make a new one.`);
    }
    const privateKey = (await importJWK(stored, SIGNING_ALGORITHM)) as CryptoKey;
    const { kty, n, e } = stored;
    return { kid: stored.kid, privateKey, publicJwk: describedJwk({ kty, n, e }, stored.kid) };
  }
  const key = await generateSigningKey();
  const privateJwk = describedJwk(await exportJWK(key.privateKey), key.kid);
  mkdirSync(dirname(file), { recursive: true });
  // Written whole and then renamed, so a crash cannot leave half a key behind; readable by the owner only.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
  return key;
}

/** The key set an authorizer verifies tokens with (what `/.well-known/jwks.json` serves). */
export function keySetOf(key: SigningKey): JSONWebKeySet {
  return { keys: [key.publicJwk] };
}

function describedJwk(jwk: JWK, kid: string): JWK {
  return { ...jwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' };
}
