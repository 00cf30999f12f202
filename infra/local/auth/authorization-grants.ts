/**
 * What the local authorization server remembers between the steps of the authorization code
 * grant with PKCE (RFC 6749 §4.1, RFC 7636): the codes it handed out, each usable once, within a
 * minute, by the client and redirect URI it was issued to and with the verifier of its S256
 * challenge; and the refresh tokens (§6), each replaced by a new one when used (rotation, as the
 * OAuth 2.0 Security Best Current Practice asks for public clients, RFC 9700 §4.14.2).
 * Kept in memory: a restart of `npm start` signs everyone out, as a restarted browser would.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Who a grant is for: the person (a shipped user), their portal, the client and the scopes. */
export interface Grant {
  readonly subject: string;
  readonly portalId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
}

interface PendingCode extends Grant {
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly expiresAt: number;
}

/** RFC 6749 §4.1.2 recommends at most 10 minutes; one is plenty for a redirect. */
const CODE_LIFETIME_MS = 60_000;
/** Refresh tokens of a person's session; bounded so a loop cannot fill the memory. */
const MAX_OUTSTANDING = 10_000;
/** A code_verifier: 43-128 unreserved characters (RFC 7636 §4.1). */
const VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;
/** A code_challenge of S256: the base64url SHA-256 of a verifier, 43 characters. */
export const S256_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export class GrantRefusal extends Error {}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

const newSecret = () => randomBytes(32).toString('base64url');

export function createGrantStore(now: () => number = Date.now) {
  const codes = new Map<string, PendingCode>();
  /** The refresh token each code was exchanged for, so a code used twice revokes it (RFC 6749 §4.1.2). */
  const refreshTokenOfCode = new Map<string, string>();
  const refreshTokens = new Map<string, Grant>();

  function remember<Value>(map: Map<string, Value>, key: string, value: Value): void {
    if (map.size >= MAX_OUTSTANDING) map.delete(map.keys().next().value!);
    map.set(key, value);
  }

  return {
    issueCode(grant: Grant, redirectUri: string, codeChallenge: string): string {
      const code = newSecret();
      remember(codes, code, { ...grant, redirectUri, codeChallenge, expiresAt: now() + CODE_LIFETIME_MS });
      return code;
    },

    /** The grant of a code, which is spent by this call whatever its outcome. */
    redeemCode(code: string, clientId: string, redirectUri: string | undefined, verifier: string | undefined): Grant {
      const pending = codes.get(code);
      if (!pending) {
        const issued = refreshTokenOfCode.get(code);
        if (issued) refreshTokens.delete(issued);
        throw new GrantRefusal('The code is unknown, expired or was used already.');
      }
      codes.delete(code);
      if (pending.expiresAt < now()) throw new GrantRefusal('The code is unknown, expired or was used already.');
      if (pending.clientId !== clientId) throw new GrantRefusal('The code was issued to another client.');
      if (pending.redirectUri !== redirectUri) throw new GrantRefusal('redirect_uri differs from the one of the authorization request.');
      if (verifier === undefined || !VERIFIER_PATTERN.test(verifier) || s256(verifier) !== pending.codeChallenge) {
        throw new GrantRefusal('code_verifier does not match the code challenge.');
      }
      const { subject, portalId, scopes } = pending;
      return { subject, portalId, clientId, scopes };
    },

    issueRefreshToken(grant: Grant, fromCode?: string): string {
      const token = newSecret();
      remember(refreshTokens, token, grant);
      if (fromCode) remember(refreshTokenOfCode, fromCode, token);
      return token;
    },

    /** The grant of a refresh token, which is spent: the answer carries its successor. */
    redeemRefreshToken(token: string, clientId: string): Grant {
      const grant = refreshTokens.get(token);
      if (!grant) throw new GrantRefusal('The refresh token is unknown, revoked or was used already.');
      refreshTokens.delete(token);
      if (grant.clientId !== clientId) throw new GrantRefusal('The refresh token was issued to another client.');
      return grant;
    },
  };
}

export type GrantStore = ReturnType<typeof createGrantStore>;
