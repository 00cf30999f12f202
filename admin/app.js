// The admin page: sign in, then list, create, rename, replace events, activate/deactivate,
// test and delete the portal's subscriptions, and see and send again their failed deliveries.
// The service checks every value; its messages are shown next to the field they name, or at the
// top of the form (or page) otherwise. What the token's scopes do not allow is not offered.
import { ApiError, apiClient, claimsOf, loadServiceDescription, requestToken, scopesOf } from './api-client.js';

const $ = (id) => document.getElementById(id);

/** Failed deliveries shown at a time: a screenful; "Show older" asks for the next ones. */
const DEAD_LETTERS_PER_PAGE = 10;
/** Replay takes at most 100 per call and keeps at most 1,000 per subscription: 11 calls empty it. */
const MAX_REPLAY_CALLS = 11;

const state = {
  /** From the OpenAPI document: token URL, operations (path and scope), catalog, protocols, endpoint hints. */
  description: undefined,
  api: undefined,
  /** The scopes the token grants; undefined when it names none (then the API alone decides). */
  scopes: undefined,
  clientName: '',
  subscriptions: [],
  /** How many subscriptions the portal may have, as list answers it. */
  maxSubscriptions: undefined,
  /** The subscription a dialog is open for. */
  current: undefined,
  /** While a replay the page asked for runs: its buttons are disabled, so a double click sends nothing twice. */
  replaying: false,
  /** The failed-deliveries panel, while open: `{configId, items, nextCursor, dropped}`. */
  deadLetters: undefined,
  /** The deliveries panel, while open: `{configId, items, nextCursor}`. */
  attempts: undefined,
};

/** Deliveries shown at a time; "Show older" asks for the next ones. */
const ATTEMPTS_PER_PAGE = 20;

// ---- messages --------------------------------------------------------------------------

// One message area: each outcome replaces the one before, so an old success never sits above a
// newer error (nor an old error above a newer success).
function announce(text) {
  $('status').textContent = text;
  $('page-error').textContent = '';
  $('page-error').hidden = true;
}

function showPageError(text) {
  const element = $('page-error');
  element.textContent = text;
  element.hidden = !text;
  if (text) $('status').textContent = '';
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
  $('status').textContent = '';
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

/** Whether the token allows an operation (by the page's name for it). */
function can(operationName) {
  const operation = state.description.operations[operationName];
  if (!operation) return false;
  return state.scopes === undefined || !operation.scope || state.scopes.has(operation.scope);
}

const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;

/** A time as `2026-11-24 09:01 UTC`: the same for every reader, whatever their time zone. */
function utcTime(value) {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A time the page shows, kept on one line, with its machine-readable value. */
function timeElement(value) {
  const date = new Date(value);
  return element('time', { dateTime: Number.isNaN(date.getTime()) ? '' : date.toISOString(), textContent: utcTime(value) });
}

/** An endpoint as text with a line-break opportunity after each separator, so it wraps between its parts, not inside one. */
function withBreaks(text) {
  return text.split(/(?<=[/.@?&=:_-])/).flatMap((part, index) => (index === 0 ? [part] : [document.createElement('wbr'), part]));
}

/** A configId is a UUIDv7: its first 48 bits are its creation time in milliseconds (RFC 9562, 5.7). */
function createdAtOf(configId) {
  return Number.parseInt(configId.replaceAll('-', '').slice(0, 12), 16);
}

/**
 * Enough of a configId to tell two subscriptions apart: its last 8 characters, which are random.
 * (Its first 8 are the top of the creation time, the same for every id made within about a minute.)
 */
const shortIdOf = (configId) => `…${configId.slice(-8)}`;

/** How buttons and headings name a subscription: names need not be unique, ids are. */
const labelOf = (subscription) => `${subscription.name} (${shortIdOf(subscription.configId)})`;

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
  button.setAttribute('aria-label', `${label}: ${labelOf(subscription)}`);
  button.addEventListener('click', () => handler(subscription, button));
  return button;
}

/** What SNS's side of a subscription means to the person looking at it. */
const SUBSCRIPTION_STATES = {
  confirmed: 'Confirmed',
  pending: 'Pending confirmation',
  unsubscribed: 'Unsubscribed',
};

/** Why nothing sent to the subscription now would arrive; undefined when it would. */
function whyNothingArrives(subscription) {
  if (subscription.subscriptionState === 'pending') return `the endpoint of "${subscription.name}" has not confirmed its subscription yet`;
  if (subscription.subscriptionState !== 'confirmed') return `the endpoint of "${subscription.name}" unsubscribed`;
  return undefined;
}

/** Why "Send again" is off for the subscription; undefined when it is on. The API refuses the same. */
function whyNoReplay(subscription) {
  if (subscription.status !== 1) return `Sending again is off: "${subscription.name}" is deactivated, so nothing would be delivered. Activate it first.`;
  const reason = whyNothingArrives(subscription);
  return reason ? `Sending again is off: ${reason}, so nothing would arrive.` : undefined;
}

function failedDeliveriesCell(subscription) {
  const count = subscription.deadLetters ?? 0;
  const dropped = subscription.deadLettersDropped ?? 0;
  if (count === 0 && dropped === 0) return element('td', { textContent: 'None' });
  const parts = [element('span', { className: 'badge warn', textContent: `${count} failed` })];
  if (subscription.lastDeadLetterAt) parts.push(element('div', { className: 'meta' }, ['last ', timeElement(subscription.lastDeadLetterAt)]));
  if (dropped > 0) parts.push(element('div', { className: 'meta', textContent: `${dropped} older ones dropped` }));
  if (can('deadLetters')) parts.push(actionButton('Show them', subscription, 'dead-letters', openDeadLetters));
  return element('td', {}, parts);
}

/** The last delivery and failure SNS logged, and the last 24 hours' counts; e-mail has none. */
function deliveriesCell(subscription) {
  if (subscription.protocol === 'email' || subscription.protocol === 'email-json') return element('td', { textContent: 'Not recorded for e-mail' });
  const parts = [];
  const { lastDeliveredAt, lastFailedAt, deliveredLast24h = 0, failedLast24h = 0 } = subscription;
  parts.push(element('div', {}, lastDeliveredAt ? ['Last delivered ', timeElement(lastDeliveredAt)] : ['No delivery yet']));
  if (lastFailedAt) parts.push(element('div', {}, [element('span', { className: 'badge warn', textContent: 'Last failed' }), ' ', timeElement(lastFailedAt)]));
  parts.push(element('div', { className: 'meta', textContent: `24 h: ${deliveredLast24h} delivered, ${failedLast24h} failed` }));
  if (can('attempts')) parts.push(actionButton('Show deliveries', subscription, 'attempts', openAttempts));
  return element('td', {}, parts);
}

function rowActions(subscription) {
  const active = subscription.status === 1;
  const buttons = [];
  if (can('rename')) buttons.push(actionButton('Rename', subscription, 'rename', openRename));
  if (can('update')) buttons.push(actionButton('Events', subscription, 'events', openEvents));
  if (can('activate')) buttons.push(actionButton(active ? 'Deactivate' : 'Activate', subscription, 'status', toggleStatus));
  if (can('test')) {
    const test = actionButton('Send test', subscription, 'test', sendTest);
    const reason = whyNothingArrives(subscription);
    // Still focusable, so that activating it says why nothing is sent.
    if (reason) {
      test.setAttribute('aria-disabled', 'true');
      test.title = `Not sent while ${reason}.`;
    }
    buttons.push(test);
  }
  // Only where the endpoint has not confirmed (or left): a confirmed one answers 400.
  if (can('confirm') && subscription.subscriptionState !== 'confirmed') {
    buttons.push(actionButton('Resend confirmation', subscription, 'confirm', resendConfirmation));
  }
  if (can('delete')) buttons.push(actionButton('Delete', subscription, 'delete', openDelete, 'danger'));
  return buttons;
}

/** Active or Inactive; one the service disabled for failing says so, since when, and what to do. */
function statusOf(subscription) {
  if (subscription.status === 1) return [element('span', { className: 'badge on', textContent: 'Active' })];
  if (subscription.disabledReason !== 'failing') return [element('span', { className: 'badge off', textContent: 'Inactive' })];
  return [
    element('span', { className: 'badge warn', textContent: 'Disabled: failing' }),
    element('div', { className: 'meta disabled-reason' }, [
      'No successful delivery for too long; disabled ',
      timeElement(subscription.disabledAt),
      '. Fix the endpoint, then activate it.',
    ]),
  ];
}

function renderSubscriptions() {
  const rows = state.subscriptions.map((subscription) => {
    const cell = (label, properties, children) => {
      const td = element('td', properties, children);
      td.dataset.label = label;
      return td;
    };
    const failed = failedDeliveriesCell(subscription);
    failed.dataset.label = 'Failed deliveries';
    const deliveries = deliveriesCell(subscription);
    deliveries.dataset.label = 'Deliveries';
    return element('tr', {}, [
      element('th', { scope: 'row', title: subscription.configId }, [
        element('span', { className: 'name', textContent: subscription.name }),
        element('div', { className: 'meta' }, [
          `id ${shortIdOf(subscription.configId)}, created `,
          timeElement(createdAtOf(subscription.configId)),
        ]),
      ]),
      cell('Protocol and endpoint', {}, [
        element('div', { textContent: subscription.protocol }),
        element('div', { className: 'endpoint' }, withBreaks(subscription.endpoint)),
      ]),
      cell('Events', {}, [element('ul', {}, subscription.events.map((kind) => element('li', { textContent: kind })))]),
      cell('Status', {}, statusOf(subscription)),
      cell('Confirmation', { textContent: SUBSCRIPTION_STATES[subscription.subscriptionState] ?? subscription.subscriptionState }),
      deliveries,
      failed,
      cell('Actions', {}, [element('div', { className: 'actions' }, rowActions(subscription))]),
    ]);
  });
  $('subscription-rows').replaceChildren(...rows);
  $('no-subscriptions').hidden = rows.length > 0;
  renderCount();
}

/** "n of 10 subscriptions", and the create form's state once the portal is full. */
function renderCount() {
  const count = state.subscriptions.length;
  const max = state.maxSubscriptions;
  $('subscription-count').textContent = max === undefined ? plural(count, 'subscription', 'subscriptions') : `${count} of ${max} subscriptions`;
  const full = max !== undefined && count >= max;
  $('create-limit').textContent = full ? `The portal has ${count} of ${max} subscriptions, as many as it may: delete one to create another.` : '';
  $('create-limit').hidden = !full;
  $('create-submit').disabled = full;
}

async function refresh() {
  const answer = await state.api.list();
  state.subscriptions = answer.configs;
  state.maxSubscriptions = answer.maxSubscriptions;
  renderSubscriptions();
  if (state.deadLetters) {
    if (subscriptionOf(state.deadLetters.configId)) renderDeadLetters();
    else closeDeadLetters({ focus: false });
  }
  if (state.attempts && !subscriptionOf(state.attempts.configId)) closeAttempts({ focus: false });
  return answer;
}

const subscriptionOf = (configId) => state.subscriptions.find((subscription) => subscription.configId === configId);

/** Puts focus back on a row's button after the rows were drawn anew. */
function focusAction(configId, action) {
  const button = document.querySelector(`button[data-config-id="${CSS.escape(configId)}"][data-action="${action}"]`);
  (button ?? $('subscriptions-heading')).focus();
}

// ---- deliveries ------------------------------------------------------------------------

async function openAttempts(subscription) {
  await attempt(async () => {
    state.attempts = { configId: subscription.configId, items: [], nextCursor: null };
    await loadAttempts();
    $('attempts').hidden = false;
    $('attempts-heading').focus();
  });
}

/** The first page of the open panel's deliveries, or (`more`) the next one after those shown. */
async function loadAttempts({ more = false } = {}) {
  const panel = state.attempts;
  const answer = await state.api.attempts(panel.configId, ATTEMPTS_PER_PAGE, more ? panel.nextCursor : undefined);
  panel.items = more ? [...panel.items, ...answer.attempts] : answer.attempts;
  panel.nextCursor = answer.nextCursor ?? null;
  renderAttempts();
}

function renderAttempts() {
  const panel = state.attempts;
  const subscription = subscriptionOf(panel.configId);
  $('attempts-heading').textContent = `Deliveries of ${labelOf(subscription)}`;
  $('attempts-summary').textContent = panel.items.length === 0 ? 'No delivery is recorded yet.' : '';
  $('attempt-table').hidden = panel.items.length === 0;
  $('more-attempts').hidden = !panel.nextCursor;
  $('attempt-rows').replaceChildren(
    ...panel.items.map((item) => {
      const cell = (label, properties, children) => {
        const td = element('td', properties, children);
        td.dataset.label = label;
        return td;
      };
      const delivered = item.status === 'delivered';
      return element('tr', {}, [
        element('th', { scope: 'row' }, [timeElement(item.at)]),
        cell('Result', {}, [element('span', { className: `badge ${delivered ? 'on' : 'warn'}`, textContent: delivered ? 'Delivered' : 'Failed' })]),
        cell('Status code', { textContent: item.statusCode === null ? 'no answer' : String(item.statusCode) }),
        cell('Duration', { textContent: `${item.dwellTimeMs} ms` }),
        cell('Tries', { textContent: String(item.attempts) }),
        cell('Message id', {}, [element('code', { textContent: item.messageId })]),
      ]);
    }),
  );
}

function closeAttempts({ focus = true } = {}) {
  const configId = state.attempts?.configId;
  state.attempts = undefined;
  $('attempts').hidden = true;
  $('attempt-rows').replaceChildren();
  if (focus && configId) focusAction(configId, 'attempts');
}

// ---- failed deliveries -----------------------------------------------------------------

async function openDeadLetters(subscription) {
  await attempt(async () => {
    state.deadLetters = { configId: subscription.configId, items: [], nextCursor: null, dropped: 0 };
    await loadDeadLetters();
    $('dead-letters').hidden = false;
    $('dead-letters-heading').focus();
  });
}

/** The first page of the open panel's dead letters, or (`more`) the next one after those shown. */
async function loadDeadLetters({ more = false } = {}) {
  const panel = state.deadLetters;
  const answer = await state.api.deadLetters(panel.configId, DEAD_LETTERS_PER_PAGE, more ? panel.nextCursor : undefined);
  panel.items = more ? [...panel.items, ...answer.deadLetters] : answer.deadLetters;
  panel.nextCursor = answer.nextCursor ?? null;
  panel.dropped = answer.deadLettersDropped ?? 0;
  renderDeadLetters();
}

function renderDeadLetters() {
  const panel = state.deadLetters;
  const subscription = subscriptionOf(panel.configId);
  const blocked = whyNoReplay(subscription);
  const mayReplay = can('replay');
  $('dead-letters-heading').textContent = `Failed deliveries of ${labelOf(subscription)}`;
  const kept = subscription.deadLetters ?? panel.items.length;
  $('dead-letters-summary').textContent =
    kept === 0
      ? 'No failed deliveries are kept.'
      : `${plural(kept, 'failed delivery is', 'failed deliveries are')} kept${panel.dropped > 0 ? `; ${panel.dropped} older ones were dropped` : ''}.`;
  $('replay-blocked').textContent = mayReplay && blocked ? blocked : '';
  $('replay-blocked').hidden = !(mayReplay && blocked);
  $('replay-all').hidden = !mayReplay;
  $('replay-all').disabled = Boolean(blocked) || panel.items.length === 0 || state.replaying;
  $('dead-letter-table').hidden = panel.items.length === 0;
  $('more-dead-letters').hidden = !panel.nextCursor;
  $('dead-letter-rows').replaceChildren(
    ...panel.items.map((deadLetter) => {
      const cell = (label, properties, children) => {
        const td = element('td', properties, children);
        td.dataset.label = label;
        return td;
      };
      const actions = [];
      if (mayReplay) {
        const button = element('button', { type: 'button', textContent: 'Send again', disabled: Boolean(blocked) || state.replaying });
        button.dataset.eventId = deadLetter.eventId;
        button.setAttribute('aria-label', `Send again: ${deadLetter.event} ${deadLetter.eventId}`);
        button.setAttribute('aria-describedby', 'replay-blocked');
        button.addEventListener('click', () => replayOne(subscription, deadLetter));
        actions.push(button);
      }
      return element('tr', {}, [
        element('th', { scope: 'row' }, [element('code', { textContent: deadLetter.eventId })]),
        cell('Event', { textContent: deadLetter.event }),
        cell('Occurred', {}, [timeElement(deadLetter.occurredAt)]),
        cell('Failed', {}, [timeElement(deadLetter.failedAt)]),
        cell('Actions', {}, actions),
      ]);
    }),
  );
}

function closeDeadLetters({ focus = true } = {}) {
  const configId = state.deadLetters?.configId;
  state.deadLetters = undefined;
  $('dead-letters').hidden = true;
  $('dead-letter-rows').replaceChildren();
  if (focus && configId) focusAction(configId, 'dead-letters');
}

/**
 * Runs a replay with every replay button of the panel disabled until it answers: a double click,
 * or a click on another letter meanwhile, sends nothing twice. Answers whether it succeeded.
 */
async function whileReplaying(run) {
  state.replaying = true;
  for (const button of [$('replay-all'), ...$('dead-letter-rows').querySelectorAll('button')]) button.disabled = true;
  let succeeded = false;
  try {
    await attempt(async () => {
      await run();
      succeeded = true;
    });
  } finally {
    state.replaying = false;
    if (state.deadLetters) renderDeadLetters();
  }
  return succeeded;
}

async function replayOne(subscription, deadLetter) {
  const succeeded = await whileReplaying(async () => {
    const answer = await state.api.replay(subscription.configId, [deadLetter.eventId]);
    await refresh();
    if (state.deadLetters) await loadDeadLetters();
    announce(`${answer.message} (${subscription.name})`);
  });
  if (!succeeded) return;
  const next = $('dead-letter-rows').querySelector('button');
  (next ?? $('dead-letters-heading')).focus();
}

/** Sends every kept dead letter again, 100 per call, until none remain (bounded). */
async function replayAll() {
  const subscription = subscriptionOf(state.deadLetters.configId);
  const succeeded = await whileReplaying(async () => {
    let replayed = 0;
    let remaining = 0;
    for (let calls = 0; calls < MAX_REPLAY_CALLS; calls += 1) {
      const answer = await state.api.replay(subscription.configId);
      replayed += answer.replayed;
      remaining = answer.remaining;
      if (remaining === 0 || answer.replayed === 0) break;
    }
    await refresh();
    if (state.deadLetters) await loadDeadLetters();
    announce(
      `${plural(replayed, 'failed delivery', 'failed deliveries')} sent again${remaining > 0 ? `; ${remaining} left: send all again once more` : ''}. (${subscription.name})`,
    );
  });
  if (succeeded) $('dead-letters-heading').focus();
}

// ---- actions ---------------------------------------------------------------------------

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

async function toggleStatus(subscription) {
  await attempt(async () => {
    const answer = await state.api.setStatus(subscription.configId, subscription.status === 1 ? 0 : 1);
    await refresh();
    announce(`${answer.message} (${subscription.name})`);
    focusAction(subscription.configId, 'status');
  });
}

async function sendTest(subscription) {
  const reason = whyNothingArrives(subscription);
  if (reason) {
    showPageError(`No test event sent: ${reason}, so it would not arrive. Resend the confirmation request and have the endpoint's owner follow it.`);
    return;
  }
  // The list may be older than the endpoint's state: the API's 400 then says why.
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
    `"${subscription.name}" (${subscription.protocol} ${subscription.endpoint}, id ${subscription.configId}) and its SNS topic will be deleted; its endpoint will receive nothing more.`;
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
  $('replay-all').addEventListener('click', () => replayAll());
  $('close-dead-letters').addEventListener('click', () => closeDeadLetters());
  $('close-attempts').addEventListener('click', () => closeAttempts());
  $('more-attempts').addEventListener('click', () => attempt(() => loadAttempts({ more: true })));
  $('more-dead-letters').addEventListener('click', () =>
    attempt(async () => {
      const shown = state.deadLetters.items.length;
      await loadDeadLetters({ more: true });
      // Focus on the first newly shown row's button, or the heading when it has none.
      const rows = $('dead-letter-rows').querySelectorAll('tr');
      (rows[shown]?.querySelector('button') ?? $('dead-letters-heading')).focus();
    }),
  );
  document.body.dataset.ready = 'true';
}

void start();
