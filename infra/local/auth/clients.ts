/**
 * The OAuth clients the local token endpoint knows: a JSON file holding an array of
 * `{clientId, clientSecret, portalId, scopes}`, checked when the stack starts so a typo fails
 * `npm start` with a message naming the file and the entry instead of failing token requests.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// What the service accepts as a portal id.
import { PORTAL_ID_PATTERN } from '../../../shared/subscriptions/portal-id';

export interface OAuthClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The portal every token of this client is issued for (the portal claim). */
  readonly portalId: string;
  /** The scopes the client may be granted; a token carries all of them unless it asks for fewer. */
  readonly scopes: readonly string[];
}

/** The clients shipped with the repository: one per portal, one with both scopes, one read-only. */
export const DEFAULT_CLIENTS_FILE = fileURLToPath(new URL('./clients.json', import.meta.url));

// What the token endpoint's form fields and the portal claim can carry without ambiguity.
const CLIENT_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
// A scope token of RFC 6749 §3.3: printable ASCII except space, '"' and '\'.
const SCOPE_PATTERN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export class OAuthClientsError extends Error {
  override readonly name = 'OAuthClientsError';
}

export function loadOAuthClients(file: string = DEFAULT_CLIENTS_FILE): OAuthClient[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new OAuthClientsError(`Cannot read the OAuth clients file ${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new OAuthClientsError(`${file} must hold a non-empty JSON array of {clientId, clientSecret, portalId, scopes}.`);
  }
  const clients = parsed.map((entry, index) => checkedClient(entry, `${file} entry ${index}`));
  const seen = new Set<string>();
  for (const { clientId } of clients) {
    if (seen.has(clientId)) throw new OAuthClientsError(`${file}: clientId "${clientId}" appears more than once.`);
    seen.add(clientId);
  }
  return clients;
}

function checkedClient(entry: unknown, where: string): OAuthClient {
  const candidate = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
  const { clientId, clientSecret, portalId, scopes } = candidate;
  const problems: string[] = [];
  if (typeof clientId !== 'string' || !CLIENT_ID_PATTERN.test(clientId)) {
    problems.push('clientId must be 1-128 printable ASCII characters without spaces');
  }
  if (typeof clientSecret !== 'string' || clientSecret === '') problems.push('clientSecret must be a non-empty string');
  if (typeof portalId !== 'string' || !PORTAL_ID_PATTERN.test(portalId)) {
    problems.push("portalId must be 1-128 characters of letters, digits and _ . : / = + @ -");
  }
  if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string' && SCOPE_PATTERN.test(scope))) {
    problems.push('scopes must be an array of scope names without spaces');
  }
  if (problems.length > 0) throw new OAuthClientsError(`${where}: ${problems.join('; ')}.`);
  return {
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    portalId: portalId as string,
    scopes: [...new Set(scopes as string[])],
  };
}
