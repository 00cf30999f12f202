// The table of the portal's subscriptions, oldest first: one row each, with its deliveries, its
// failed deliveries and the buttons the token allows; and "n of 10" above it.
import { openAttempts } from './attempts.js';
import { openDeadLetters } from './dead-letters.js';
import { openMessageLog } from './message-log.js';
import { $, element, labelledCell } from './dom.js';
import { createdAtOf, labelOf, plural, shortIdOf, timeElement, withBreaks } from './format.js';
import { canEditFilter, openFilter } from './filter-editor.js';
import { openDelete, openEvents, openRename } from './forms.js';
import { resendConfirmation, sendTest, toggleStatus } from './row-actions.js';
import { can, confirmationCooldownEnd, state, whyNothingArrives } from './state.js';

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

/** The button of a row's Messages panel: every protocol's messages are logged. */
const messagesButton = (subscription) => (can('messages') ? [actionButton('Show messages', subscription, 'messages', openMessageLog)] : []);

/** The last delivery and failure SNS logged, and the last 24 hours' counts; e-mail has none. */
function deliveriesCell(subscription) {
  if (subscription.protocol === 'email' || subscription.protocol === 'email-json') {
    return element('td', {}, [element('div', { textContent: 'Not recorded for e-mail' }), ...messagesButton(subscription)]);
  }
  const parts = [];
  const { lastDeliveredAt, lastFailedAt, deliveredLast24h = 0, failedLast24h = 0 } = subscription;
  parts.push(element('div', {}, lastDeliveredAt ? ['Last delivered ', timeElement(lastDeliveredAt)] : ['No delivery yet']));
  if (lastFailedAt) parts.push(element('div', {}, [element('span', { className: 'badge warn', textContent: 'Last failed' }), ' ', timeElement(lastFailedAt)]));
  parts.push(element('div', { className: 'meta', textContent: `24 h: ${deliveredLast24h} delivered, ${failedLast24h} failed` }));
  if (can('attempts')) parts.push(actionButton('Show deliveries', subscription, 'attempts', openAttempts));
  parts.push(...messagesButton(subscription));
  return element('td', {}, parts);
}

function rowActions(subscription) {
  const active = subscription.status === 1;
  const buttons = [];
  if (can('rename')) buttons.push(actionButton('Rename', subscription, 'rename', openRename));
  if (can('update')) buttons.push(actionButton('Events', subscription, 'events', openEvents));
  if (canEditFilter()) buttons.push(actionButton(subscription.filter ? 'Filter (on)' : 'Filter', subscription, 'filter', openFilter));
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
  // Only where the endpoint has not confirmed (or left): a confirmed one answers 400; and not while
  // the last request is fresh, which the service would refuse (429).
  const cooldownEnd = confirmationCooldownEnd(subscription, createdAtOf(subscription.configId));
  if (can('confirm') && subscription.subscriptionState !== 'confirmed') {
    buttons.push(
      cooldownEnd
        ? element('p', { className: 'meta confirmation-wait' }, ['Confirmation request sent; another from ', timeElement(cooldownEnd)])
        : actionButton('Resend confirmation', subscription, 'confirm', resendConfirmation),
    );
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

/** Draws the rows again when the first confirmation wait ends, so its button comes back. */
let cooldownTimer;
function redrawAfterCooldowns() {
  clearTimeout(cooldownTimer);
  const ends = state.subscriptions.map((subscription) => confirmationCooldownEnd(subscription, createdAtOf(subscription.configId))).filter(Boolean);
  if (ends.length > 0) cooldownTimer = setTimeout(renderSubscriptions, Math.min(...ends) - Date.now() + 50);
}

export function renderSubscriptions() {
  redrawAfterCooldowns();
  const rows = state.subscriptions.map((subscription) => {
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
      labelledCell('Protocol and endpoint', {}, [
        element('div', { textContent: subscription.protocol }),
        element('div', { className: 'endpoint' }, withBreaks(subscription.endpoint)),
      ]),
      labelledCell('Events', {}, [element('ul', {}, subscription.events.map((kind) => element('li', {}, withBreaks(kind))))]),
      labelledCell('Status', {}, statusOf(subscription)),
      labelledCell('Confirmation', { textContent: SUBSCRIPTION_STATES[subscription.subscriptionState] ?? subscription.subscriptionState }),
      deliveries,
      failed,
      labelledCell('Actions', {}, [element('div', { className: 'actions' }, rowActions(subscription))]),
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
