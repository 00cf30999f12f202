// The admin page: sign in, then list, create, rename, replace events, activate/deactivate,
// test and delete the portal's subscriptions. The service checks every value; its messages
// are shown next to the field they name, or at the top of the form (or page) otherwise.
import { ApiError, apiClient, claimsOf, loadServiceDescription, requestToken } from './api-client.js';

const $ = (id) => document.getElementById(id);

const state = {
  /** From the OpenAPI document: token URL, paths, catalog, protocols, endpoint hints. */
  description: undefined,
  api: undefined,
  subscriptions: [],
  /** The subscription a dialog is open for. */
  current: undefined,
};

// ---- messages --------------------------------------------------------------------------

function announce(text) {
  $('status').textContent = text;
}

function showPageError(text) {
  const element = $('page-error');
  element.textContent = text;
  element.hidden = !text;
}

/** Clears the error texts and invalid marks of a form (its ids start with `prefix-`). */
function clearErrors(prefix) {
  for (const element of document.querySelectorAll(`[id^="${prefix}-"].field-error`)) {
    element.textContent = '';
    element.hidden = true;
  }
  for (const element of document.querySelectorAll(`[id^="${prefix}-"][aria-invalid]`)) element.removeAttribute('aria-invalid');
}

/**
 * Shows an error of a form's request: each field the service named next to that field (and
 * that field marked invalid, focus on the first), anything else at the top of the form.
 */
function showFormError(prefix, error) {
  clearErrors(prefix);
  const messages = error instanceof ApiError ? error.fieldMessages : new Map();
  let first;
  for (const [field, message] of messages) {
    const errorElement = $(`${prefix}-${field}-error`);
    if (!errorElement) continue;
    errorElement.textContent = message;
    errorElement.hidden = false;
    const control = $(`${prefix}-${field}`);
    control?.setAttribute('aria-invalid', 'true');
    first ??= control?.matches('fieldset') ? control.querySelector('input') : control;
  }
  if (first) {
    first.focus();
    return;
  }
  const formError = $(`${prefix}-form-error`);
  if (formError) {
    formError.textContent = error.message;
    formError.hidden = false;
  } else {
    showPageError(error.message);
  }
}

/** Runs an action of the page, turning its failure into a message the user sees. */
async function attempt(action, onError = (error) => showPageError(error.message)) {
  showPageError('');
  try {
    await action();
  } catch (error) {
    if (!(error instanceof ApiError)) console.error(error);
    onError(error instanceof Error ? error : new Error(String(error)));
  }
}

// ---- building blocks -------------------------------------------------------------------

function element(tag, properties = {}, children = []) {
  const node = Object.assign(document.createElement(tag), properties);
  for (const child of children) node.append(child);
  return node;
}

/** One checkbox per event kind of the catalog. */
function renderEventChoices(container, idPrefix) {
  container.replaceChildren(
    ...state.description.eventKinds.map((kind, index) => {
      const input = element('input', { type: 'checkbox', id: `${idPrefix}-${index}`, name: 'events', value: kind });
      return element('label', { htmlFor: input.id }, [input, kind]);
    }),
  );
}

function checkedEvents(container) {
  return [...container.querySelectorAll('input[type=checkbox]:checked')].map((input) => input.value);
}

/** The chosen protocol's endpoint form, as the service's document describes it. */
function updateEndpointHint() {
  const { text, example } = state.description.endpointHints[$('create-protocol').value] ?? { text: '', example: '' };
  $('create-endpoint-hint').textContent = text;
  $('create-endpoint').placeholder = example;
}

// ---- the list --------------------------------------------------------------------------

function actionButton(label, subscription, action, handler, className = '') {
  const button = element('button', { type: 'button', textContent: label, className });
  button.dataset.configId = subscription.configId;
  button.dataset.action = action;
  button.setAttribute('aria-label', `${label}: ${subscription.name}`);
  button.addEventListener('click', () => handler(subscription, button));
  return button;
}

/** What SNS's side of a subscription means to the person looking at it. */
const SUBSCRIPTION_STATES = {
  confirmed: 'Confirmed',
  pending: 'Pending confirmation',
  unsubscribed: 'Unsubscribed',
};

function renderSubscriptions() {
  const rows = state.subscriptions.map((subscription) => {
    const active = subscription.status === 1;
    return element('tr', {}, [
      element('th', { scope: 'row', textContent: subscription.name }),
      element('td', {}, [
        element('div', { textContent: subscription.protocol }),
        element('div', { className: 'endpoint', textContent: subscription.endpoint }),
      ]),
      element('td', {}, [element('ul', {}, subscription.events.map((kind) => element('li', { textContent: kind })))]),
      element('td', {}, [element('span', { className: `badge ${active ? 'on' : 'off'}`, textContent: active ? 'Active' : 'Inactive' })]),
      element('td', { textContent: SUBSCRIPTION_STATES[subscription.subscriptionState] ?? subscription.subscriptionState }),
      element('td', {}, [
        element('div', { className: 'actions' }, [
          actionButton('Rename', subscription, 'rename', openRename),
          actionButton('Events', subscription, 'events', openEvents),
          actionButton(active ? 'Deactivate' : 'Activate', subscription, 'status', toggleStatus),
          actionButton('Send test', subscription, 'test', sendTest),
          // Only where the endpoint has not confirmed (or left): a confirmed one answers 400.
          ...(subscription.subscriptionState === 'confirmed'
            ? []
            : [actionButton('Resend confirmation', subscription, 'confirm', resendConfirmation)]),
          actionButton('Delete', subscription, 'delete', openDelete, 'danger'),
        ]),
      ]),
    ]);
  });
  $('subscription-rows').replaceChildren(...rows);
  $('no-subscriptions').hidden = rows.length > 0;
}

async function refresh() {
  const answer = await state.api.list();
  state.subscriptions = answer.configs;
  renderSubscriptions();
  return answer;
}

/** Puts focus back on a row's button after the rows were drawn anew. */
function focusAction(configId, action) {
  const button = document.querySelector(`button[data-config-id="${CSS.escape(configId)}"][data-action="${action}"]`);
  (button ?? $('subscriptions-heading')).focus();
}

// ---- actions ---------------------------------------------------------------------------

async function signIn(token) {
  state.api = apiClient(state.description, token);
  await refresh();
  const claims = claimsOf(token);
  $('signed-in-as').textContent = `Signed in as ${claims.client_id ?? claims.sub ?? 'a token'}${claims.portal_id ? ` (portal ${claims.portal_id})` : ''}`;
  $('session').hidden = false;
  $('sign-in').hidden = true;
  $('subscriptions').hidden = false;
  $('create').hidden = false;
  announce(`Signed in. ${state.subscriptions.length} subscription${state.subscriptions.length === 1 ? '' : 's'}.`);
  $('subscriptions-heading').focus();
}

function signOut() {
  state.api = undefined;
  state.subscriptions = [];
  renderSubscriptions();
  for (const id of ['session', 'subscriptions', 'create']) $(id).hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-form').reset();
  $('token-form').reset();
  showPageError('');
  announce('Signed out.');
  $('client-id').focus();
}

async function toggleStatus(subscription) {
  await attempt(async () => {
    const answer = await state.api.setStatus(subscription.configId, subscription.status === 1 ? 0 : 1);
    await refresh();
    announce(`${answer.message} (${subscription.name})`);
    focusAction(subscription.configId, 'status');
  });
}

async function sendTest(subscription) {
  await attempt(async () => {
    const answer = await state.api.sendTest(subscription.configId);
    announce(`${answer.message} (${subscription.name}, message ${answer.messageId})`);
  });
}

async function resendConfirmation(subscription) {
  await attempt(async () => {
    const answer = await state.api.resendConfirmation(subscription.configId);
    await refresh();
    announce(`${answer.message} (${subscription.name})`);
    focusAction(subscription.configId, 'confirm');
  });
}

function openDialog(id, subscription) {
  state.current = subscription;
  clearErrors(id.replace('-dialog', ''));
  showPageError('');
  $(id).showModal();
}

function openRename(subscription) {
  $('rename-name').value = subscription.name;
  openDialog('rename-dialog', subscription);
  $('rename-name').select();
}

function openEvents(subscription) {
  for (const input of $('events-choices').querySelectorAll('input')) input.checked = subscription.events.includes(input.value);
  openDialog('events-dialog', subscription);
}

function openDelete(subscription) {
  $('delete-description').textContent =
    `"${subscription.name}" (${subscription.protocol} ${subscription.endpoint}) and its SNS topic will be deleted; its endpoint will receive nothing more.`;
  openDialog('delete-dialog', subscription);
}

/** Wires a dialog's form: submit runs `save`, Cancel and Escape close it. */
function wireDialog(prefix, save) {
  const dialog = $(`${prefix}-dialog`);
  dialog.querySelector('.cancel').addEventListener('click', () => dialog.close());
  $(`${prefix}-form`).addEventListener('submit', (event) => {
    event.preventDefault();
    const subscription = state.current;
    void attempt(
      async () => {
        const message = await save(subscription);
        dialog.close();
        await refresh();
        announce(`${message} (${subscription.name})`);
        if (prefix === 'delete') $('subscriptions-heading').focus();
        else focusAction(subscription.configId, prefix);
      },
      (error) => showFormError(prefix, error),
    );
  });
}

async function createSubscription(event) {
  event.preventDefault();
  const form = event.currentTarget;
  clearErrors('create');
  await attempt(
    async () => {
      const answer = await state.api.create({
        name: $('create-name').value,
        protocol: $('create-protocol').value,
        endpoint: $('create-endpoint').value,
        events: checkedEvents($('create-event-choices')),
      });
      form.reset();
      updateEndpointHint();
      await refresh();
      announce(`${answer.message} (${answer.record.name})`);
      focusAction(answer.record.configId, 'rename');
    },
    (error) => showFormError('create', error),
  );
}

// ---- start -----------------------------------------------------------------------------

async function start() {
  try {
    state.description = await loadServiceDescription();
  } catch (error) {
    showPageError(`The page could not read the service's description (/openapi.json): ${error.message}`);
    return;
  }
  $('create-protocol').replaceChildren(
    ...state.description.protocols.map((protocol) => element('option', { value: protocol, textContent: protocol })),
  );
  renderEventChoices($('create-event-choices'), 'create-event');
  renderEventChoices($('events-choices'), 'events-event');
  updateEndpointHint();
  $('create-protocol').addEventListener('change', updateEndpointHint);

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
  $('refresh').addEventListener('click', () =>
    attempt(async () => {
      const answer = await refresh();
      announce(answer.message);
    }),
  );
  $('create-form').addEventListener('submit', createSubscription);
  wireDialog('rename', async (subscription) => (await state.api.rename(subscription.configId, $('rename-name').value)).message);
  wireDialog('events', async (subscription) =>
    (await state.api.replaceEvents(subscription.configId, checkedEvents($('events-choices')))).message,
  );
  wireDialog('delete', async (subscription) => (await state.api.remove(subscription.configId)).message);
  document.body.dataset.ready = 'true';
}

void start();
