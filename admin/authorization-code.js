// Signing a person in with the platform's authorization code grant and PKCE (RFC 6749 §4.1,
// RFC 7636, S256): the page goes to the authorization endpoint with a `state` and a code
// challenge, takes the code back, and exchanges it with the verifier. Only the verifier and the
// state wait in sessionStorage across the redirect (they are spent on return); the tokens stay in
// this page's memory, and the refresh token renews the access token before it expires.
import { ApiError } from './api-client.js';

const PENDING_SIGN_IN = 'webhooks-admin-page.pending-sign-in';

function randomText(bytes) {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes))).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Goes to the authorization endpoint; the browser comes back to the redirect URI. */
export async function startSignIn(settings) {
  const verifier = randomText(32);
  const state = randomText(16);
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  sessionStorage.setItem(PENDING_SIGN_IN, JSON.stringify({ verifier, state }));
  const url = new URL(settings.authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: settings.clientId,
    redirect_uri: settings.redirectUri,
    scope: settings.scopes,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.href);
}

async function tokenRequest(settings, fields) {
  let response;
  try {
    response = await fetch(settings.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(fields),
    });
  } catch {
    throw new ApiError(0, 'The token endpoint did not answer.');
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new ApiError(response.status, `The sign-in was refused: ${body.error_description ?? body.error ?? response.status}.`);
  }
  return body;
}

/**
 * On the way back from the authorization endpoint: the tokens for the code in the address, or
 * undefined when the address carries no answer. The code and state leave the address at once.
 */
export async function finishSignIn(settings) {
  const answer = new URLSearchParams(location.search);
  if (!answer.has('code') && !answer.has('error')) return undefined;
  const pending = JSON.parse(sessionStorage.getItem(PENDING_SIGN_IN) ?? 'null');
  sessionStorage.removeItem(PENDING_SIGN_IN);
  history.replaceState(null, '', location.pathname);
  if (!pending || answer.get('state') !== pending.state) {
    throw new ApiError(0, 'The sign-in answer is not one this page asked for: sign in again.');
  }
  if (answer.has('error')) throw new ApiError(0, `The sign-in was refused: ${answer.get('error_description') ?? answer.get('error')}.`);
  return tokenRequest(settings, {
    grant_type: 'authorization_code',
    code: answer.get('code'),
    redirect_uri: settings.redirectUri,
    client_id: settings.clientId,
    code_verifier: pending.verifier,
  });
}

/**
 * The tokens of a sign-in, in memory: the access token for each call, renewed with the refresh
 * token a minute (or a quarter of its life, if shorter) before it expires, and at once when the
 * API refuses it (a sleeping laptop's timers run late). `onLost` hears when renewing fails.
 */
export function tokenSession(settings, tokens, { onLost } = {}) {
  let current = tokens;
  let timer;
  let renewing;
  const schedule = () => {
    clearTimeout(timer);
    const lifetime = Number(current.expires_in) || 3600;
    timer = setTimeout(() => void renew(), Math.max(1, lifetime - Math.min(60, lifetime / 4)) * 1000);
  };
  const renew = () => {
    if (!current?.refresh_token) return Promise.resolve(false);
    renewing ??= tokenRequest(settings, { grant_type: 'refresh_token', refresh_token: current.refresh_token, client_id: settings.clientId })
      .then(
        (next) => {
          if (!current) return false;
          current = { ...next, refresh_token: next.refresh_token ?? current.refresh_token };
          schedule();
          return true;
        },
        (error) => {
          if (current) onLost?.(error);
          return false;
        },
      )
      .finally(() => {
        renewing = undefined;
      });
    return renewing;
  };
  schedule();
  return {
    accessToken: () => current?.access_token ?? '',
    renew,
    /** Forgets the tokens (sign-out). */
    end() {
      clearTimeout(timer);
      current = undefined;
    },
  };
}
