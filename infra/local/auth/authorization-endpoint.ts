/**
 * The local stand-in for the platform's authorization endpoint (`GET {issuer}/v6/authentication/
 * oauth2/auth`, RFC 6749 §4.1.1 with PKCE, RFC 7636): a person signs in as one of the shipped users
 * (the entries of the clients file: the user name is the clientId, the password its clientSecret,
 * the portal and scopes its own) on a small page, and goes back to the public client's
 * redirect URI with a code (§4.1.2), which the token endpoint exchanges for tokens.
 *
 * Refused without a redirect (a 400 page, §4.1.2.1): an unknown client_id, a redirect_uri it has
 * not registered. Refused by a redirect with `error` and the `state`: another response_type, no
 * code_challenge, a method other than S256 (plain would let whoever reads the code use it),
 * scopes the user has none of, a user who cancels.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody, sendResponse } from '../gateway/http-body';
import type { GrantStore } from './authorization-grants';
import { S256_CHALLENGE_PATTERN } from './authorization-grants';
import type { OAuthClient } from './clients';

/** A client with no secret (a browser page) that may use the authorization code grant. */
export interface PublicClient {
  readonly clientId: string;
  /** Exact redirect URIs (RFC 9700 §4.1.3: compared as strings). */
  readonly redirectUris: readonly string[];
}

interface AuthorizationRequest {
  readonly client: PublicClient;
  readonly redirectUri: string;
  readonly state: string | undefined;
  readonly codeChallenge: string;
  readonly requestedScopes: readonly string[];
}

const MAX_FORM_BYTES = 16 * 1024;
const PARAMETERS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;
// The page loads the admin page's stylesheet and nothing else, and posts only to itself.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

/** Shown as a page, never sent to a redirect URI that may not be the client's. */
class PageRefusal extends Error {}
/** Sent back to the client's redirect URI (RFC 6749 §4.1.2.1). */
class RedirectRefusal extends Error {
  constructor(
    readonly request: Pick<AuthorizationRequest, 'redirectUri' | 'state'>,
    readonly error: 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'access_denied',
    description: string,
  ) {
    super(description);
  }
}

export function authorizationEndpoint(options: {
  readonly users: readonly OAuthClient[];
  readonly publicClients: readonly PublicClient[];
  readonly grants: GrantStore;
  readonly stylesheet: string;
}): RequestListener {
  const { users, grants } = options;

  function checked(parameters: ReadonlyMap<string, string>): AuthorizationRequest {
    const client = options.publicClients.find((candidate) => candidate.clientId === parameters.get('client_id'));
    if (!client) throw new PageRefusal('client_id is missing or names no client registered for this sign-in.');
    const redirectUri = parameters.get('redirect_uri');
    if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
      throw new PageRefusal(`redirect_uri is missing or not one registered for ${client.clientId}.`);
    }
    const state = parameters.get('state');
    const back = { redirectUri, state };
    if (parameters.get('response_type') !== 'code') throw new RedirectRefusal(back, 'unsupported_response_type', 'response_type must be code.');
    const codeChallenge = parameters.get('code_challenge');
    if (!codeChallenge) throw new RedirectRefusal(back, 'invalid_request', 'code_challenge is required (PKCE).');
    if (parameters.get('code_challenge_method') !== 'S256') throw new RedirectRefusal(back, 'invalid_request', 'code_challenge_method must be S256.');
    if (!S256_CHALLENGE_PATTERN.test(codeChallenge)) throw new RedirectRefusal(back, 'invalid_request', 'code_challenge is not a base64url SHA-256.');
    const requestedScopes = [...new Set((parameters.get('scope') ?? '').split(' ').filter(Boolean))];
    return { client, redirectUri, state, codeChallenge, requestedScopes };
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'GET' && request.method !== 'POST') {
      sendResponse(request, response, 405, { allow: 'GET, POST', 'content-type': 'text/plain' }, 'Method Not Allowed');
      return;
    }
    let authorization: AuthorizationRequest | undefined;
    try {
      const parameters = request.method === 'GET' ? queryParameters(request) : await formParameters(request);
      authorization = checked(parameters);
      if (request.method === 'GET') {
        sendResponse(request, response, 200, PAGE_HEADERS, signInPage(authorization, users, options.stylesheet));
        return;
      }
      if (parameters.get('decision') === 'cancel') throw new RedirectRefusal(authorization, 'access_denied', 'The user cancelled the sign-in.');
      const user = users.find((candidate) => candidate.clientId === parameters.get('username'));
      if (!user || user.clientSecret !== parameters.get('password')) {
        const page = signInPage(authorization, users, options.stylesheet, { username: parameters.get('username'), wrongPassword: true });
        sendResponse(request, response, 401, PAGE_HEADERS, page);
        return;
      }
      // The person may grant fewer scopes than asked (RFC 6749 §3.3); the token answer says which.
      const scopes = authorization.requestedScopes.length === 0 ? user.scopes : user.scopes.filter((scope) => authorization!.requestedScopes.includes(scope));
      if (scopes.length === 0) throw new RedirectRefusal(authorization, 'invalid_scope', `${user.clientId} has none of the scopes asked for.`);
      const grant = { subject: user.clientId, portalId: user.portalId, clientId: authorization.client.clientId, scopes };
      const code = grants.issueCode(grant, authorization.redirectUri, authorization.codeChallenge);
      redirect(request, response, authorization, { code });
    } catch (error) {
      if (error instanceof RedirectRefusal) {
        redirect(request, response, error.request, { error: error.error, error_description: error.message });
      } else if (error instanceof PageRefusal) {
        sendResponse(request, response, 400, PAGE_HEADERS, refusalPage(error.message, options.stylesheet));
      } else {
        sendResponse(request, response, 500, PAGE_HEADERS, refusalPage('The sign-in failed on the server.', options.stylesheet));
      }
    }
  }

  return (request, response) => void answer(request, response);
}

function redirect(request: IncomingMessage, response: ServerResponse, to: Pick<AuthorizationRequest, 'redirectUri' | 'state'>, fields: Record<string, string>): void {
  const location = new URL(to.redirectUri);
  for (const [name, value] of Object.entries(fields)) location.searchParams.set(name, value);
  if (to.state !== undefined) location.searchParams.set('state', to.state);
  // 303: the browser follows a POST's answer with a GET.
  sendResponse(request, response, 303, { location: location.href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
}

/** Each parameter at most once (RFC 6749 §3.1). */
function parametersOf(pairs: Iterable<[string, string]>): Map<string, string> {
  const parameters = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (parameters.has(name)) throw new PageRefusal(`${name} is given more than once.`);
    parameters.set(name, value);
  }
  return parameters;
}

function queryParameters(request: IncomingMessage): Map<string, string> {
  return parametersOf(new URL(request.url ?? '/', 'http://local').searchParams);
}

async function formParameters(request: IncomingMessage): Promise<Map<string, string>> {
  try {
    return parametersOf(new URLSearchParams((await readBody(request, MAX_FORM_BYTES)).toString('utf8')));
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new PageRefusal('The form is too large.');
    throw error;
  }
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);

function page(title: string, body: string, stylesheet: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title><link rel="stylesheet" href="${escape(stylesheet)}"></head>
<body><header class="page-header"><h1>${escape(title)}</h1></header><main id="main">${body}</main></body>
</html>`;
}

function refusalPage(message: string, stylesheet: string): string {
  return page('Sign-in refused', `<section><p class="page-error" role="alert">${escape(message)}</p></section>`, stylesheet);
}

function signInPage(
  request: AuthorizationRequest,
  users: readonly OAuthClient[],
  stylesheet: string,
  previous: { username?: string; wrongPassword?: boolean } = {},
): string {
  const hidden = PARAMETERS.map((name) => {
    const value = {
      response_type: 'code', client_id: request.client.clientId, redirect_uri: request.redirectUri, scope: request.requestedScopes.join(' '),
      state: request.state, code_challenge: request.codeChallenge, code_challenge_method: 'S256',
    }[name];
    return value === undefined ? '' : `<input type="hidden" name="${name}" value="${escape(value)}">`;
  }).join('');
  const options = users
    .map((user) => {
      const selected = user.clientId === previous.username ? ' selected' : '';
      return `<option value="${escape(user.clientId)}"${selected}>${escape(user.clientId)} (portal ${escape(user.portalId)}; ${escape(user.scopes.join(', '))})</option>`;
    })
    .join('');
  const invalid = previous.wrongPassword ? ' aria-invalid="true"' : '';
  const error = previous.wrongPassword ? '<p class="field-error" id="password-error">Wrong user or password.</p>' : '';
  return page(
    'Sign in to the portal',
    `<section aria-labelledby="sign-in-heading"><h2 id="sign-in-heading">${escape(request.client.clientId)} asks to act for you</h2>
<p class="hint">Local stand-in of the platform's sign-in: each shipped user is an entry of the OAuth clients file, its password the entry's clientSecret.</p>
<form method="post" novalidate>${hidden}
<div class="field"><label for="username">User</label><select id="username" name="username">${options}</select></div>
<div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required${invalid}${previous.wrongPassword ? ' aria-describedby="password-error" autofocus' : ''}>${error}</div>
<div class="dialog-buttons"><button type="submit" name="decision" value="allow">Sign in</button><button type="submit" name="decision" value="cancel" class="secondary">Cancel</button></div>
</form></section>`,
    stylesheet,
  );
}
