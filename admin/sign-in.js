// Sign in and sign out. A person signs in at the platform (authorization code + PKCE,
// authorization-code.js); under npm start the developer sign-in (a client's id and secret through
// the token endpoint, or a pasted access token) is offered beside it, never on a deployed page,
// where a client secret has no place. Tokens stay in the page's memory only; their scopes decide
// what is offered.
import { ApiError, apiClient, claimsOf, requestToken, scopesOf } from './api-client.js';
import { finishSignIn, startSignIn, tokenSession } from './authorization-code.js';
import { closeDeadLetters } from './dead-letters.js';
import { $ } from './dom.js';
import { plural } from './format.js';
import { refresh } from './list.js';
import { announce, attempt, clearErrors, showPageError } from './messages.js';
import { can, state } from './state.js';
import { renderSubscriptions } from './subscriptions-table.js';

/** Says what the token does not allow, once signed in: those controls are not shown. */
function renderAccess() {
  const denied = Object.entries(state.description.operations).filter(([name, operation]) => operation && !can(name));
  const missing = [...new Set(denied.map(([, operation]) => operation.scope).filter(Boolean))];
  const note = $('read-only-note');
  note.hidden = missing.length === 0;
  note.textContent =
    missing.length === 0
      ? ''
      : `Read-only: the sign-in of ${state.clientName} does not carry ${missing.join(' or ')}, so creating, changing, testing, ` +
        'deleting and sending again are not offered. Sign in as someone who has it to do those.';
}

/** Signs in with a pasted token (a string) or a session of tokenSession. */
async function signIn(tokens) {
  state.session = typeof tokens === 'string' ? undefined : tokens;
  const claims = claimsOf(typeof tokens === 'string' ? tokens : tokens.accessToken());
  state.api = apiClient(state.description, tokens);
  state.scopes = scopesOf(claims);
  state.clientName = claims.sub ?? claims.client_id ?? 'this client';
  await refresh();
  const portal = claims[state.settings.portalClaim];
  $('signed-in-as').textContent = `Signed in as ${claims.sub ?? claims.client_id ?? 'a token'}${portal ? ` (portal ${portal})` : ''}`;
  renderAccess();
  $('session').hidden = false;
  $('sign-in').hidden = true;
  $('subscriptions').hidden = false;
  $('create').hidden = !can('create');
  announce(`Signed in. ${plural(state.subscriptions.length, 'subscription', 'subscriptions')}.`);
  $('subscriptions-heading').focus();
}

function signOut() {
  state.session?.end();
  state.session = undefined;
  state.api = undefined;
  state.scopes = undefined;
  state.subscriptions = [];
  state.maxSubscriptions = undefined;
  closeDeadLetters({ focus: false });
  renderSubscriptions();
  for (const id of ['session', 'subscriptions', 'create']) $(id).hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-form').reset();
  $('token-form').reset();
  clearErrors('client');
  showPageError('');
  announce('Signed out.');
  $('sign-in-platform').focus();
}

/** A session of the platform's tokens; when renewing fails, the person is told to sign in again. */
function platformSession(tokens) {
  return tokenSession(state.settings, tokens, {
    onLost: (error) => showPageError(`Your sign-in could not be renewed (${error.message}) Sign out and sign in again.`),
  });
}

/** A wrong client secret: said on the field, which is marked, as the service's refusals are. */
function markWrongSecret(error) {
  if (!(error instanceof ApiError) || error.status !== 401) throw error;
  const message = $('client-secret-error');
  message.textContent = error.message;
  message.hidden = false;
  $('client-secret').setAttribute('aria-invalid', 'true');
  $('client-secret').focus();
}

/**
 * Wires the platform's sign-in, the developer forms (shown only where the settings offer them)
 * and the sign-out button; completes a sign-in the browser is coming back from.
 */
export function wireSignIn() {
  $('developer-sign-in').hidden = !state.settings.developerSignIn;
  $('sign-in-platform').addEventListener('click', () => void attempt(() => startSignIn(state.settings)));
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors('client');
    const clientId = $('client-id').value.trim();
    const clientSecret = $('client-secret').value;
    void attempt(async () => {
      let token;
      try {
        token = await requestToken(state.description.tokenUrl ?? state.settings.tokenEndpoint, clientId, clientSecret);
      } catch (error) {
        markWrongSecret(error);
        return;
      }
      await signIn(token);
    });
  });
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void attempt(async () => signIn($('access-token').value.trim().replace(/^Bearer\s+/i, '')));
  });
  $('sign-out').addEventListener('click', signOut);
  return attempt(async () => {
    const tokens = await finishSignIn(state.settings);
    if (tokens) await signIn(platformSession(tokens));
  });
}
