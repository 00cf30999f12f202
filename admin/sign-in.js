// Sign in (with a client's id and secret through the token endpoint, or a pasted access token)
// and sign out. The token stays in the page's memory only; its scopes decide what is offered.
import { apiClient, claimsOf, requestToken, scopesOf } from './api-client.js';
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
      : `Read-only: the token of ${state.clientName} does not carry ${missing.join(' or ')}, so creating, changing, testing, ` +
        'deleting and sending again are not offered. Sign in with a client that has it to do those.';
}

async function signIn(token) {
  const claims = claimsOf(token);
  state.api = apiClient(state.description, token);
  state.scopes = scopesOf(claims);
  state.clientName = claims.client_id ?? claims.sub ?? 'this client';
  await refresh();
  $('signed-in-as').textContent = `Signed in as ${claims.client_id ?? claims.sub ?? 'a token'}${claims.portal_id ? ` (portal ${claims.portal_id})` : ''}`;
  renderAccess();
  $('session').hidden = false;
  $('sign-in').hidden = true;
  $('subscriptions').hidden = false;
  $('create').hidden = !can('create');
  announce(`Signed in. ${plural(state.subscriptions.length, 'subscription', 'subscriptions')}.`);
  $('subscriptions-heading').focus();
}

function signOut() {
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
  showPageError('');
  announce('Signed out.');
  $('client-id').focus();
}

/** Wires the sign-in form, the pasted-token form and the sign-out button. */
export function wireSignIn() {
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors('client');
    const clientId = $('client-id').value.trim();
    const clientSecret = $('client-secret').value;
    void attempt(async () => signIn(await requestToken(state.description.tokenUrl, clientId, clientSecret)));
  });
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void attempt(async () => signIn($('access-token').value.trim().replace(/^Bearer\s+/i, '')));
  });
  $('sign-out').addEventListener('click', signOut);
}
