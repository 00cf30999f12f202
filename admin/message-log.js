// The Messages panel: every message the service sent one subscription (GET /messages), newest
// first, a page at a time, with a delivery state to keep; each with its body as the endpoint got
// it, shown as text (never parsed as HTML: a body is whatever the portal's events carried), and a
// Resend. Below it, "Recover since" and the subscription's recoveries (recoveries.js).
import { $, element } from './dom.js';
import { labelOf, plural, timeElement } from './format.js';
import { focusAction } from './list.js';
import { announce, attempt } from './messages.js';
import { clearRecoveries, loadRecoveries, renderRecoverControls, wireRecoveries } from './recoveries.js';
import { can, state, subscriptionOf, whyNoReplay } from './state.js';

/** Messages shown at a time; "Show older" asks for the next ones. */
const MESSAGES_PER_PAGE = 20;

/** A delivery state as the page names it, and its badge. */
const STATES = {
  pending: { text: 'Pending', badge: 'off' },
  delivered: { text: 'Delivered', badge: 'on' },
  failed: { text: 'Failed', badge: 'warn' },
  'dead-lettered': { text: 'Dead-lettered', badge: 'warn' },
};

export async function openMessageLog(subscription) {
  await attempt(async () => {
    state.messageLog = { configId: subscription.configId, status: '', items: [], nextCursor: null, sending: false };
    $('message-status').value = '';
    clearRecoveries();
    await loadMessages();
    if (can('recoveries')) await loadRecoveries();
    // The panel is the outcome: an older message would stay pinned over it.
    announce('');
    $('message-log').hidden = false;
    $('message-log-heading').focus();
  });
}

/** The first page of the open panel's messages, or (`more`) the next one after those shown. */
async function loadMessages({ more = false } = {}) {
  const panel = state.messageLog;
  const answer = await state.api.messages(panel.configId, MESSAGES_PER_PAGE, { status: panel.status, cursor: more ? panel.nextCursor : undefined });
  panel.items = more ? [...panel.items, ...answer.messages] : answer.messages;
  panel.nextCursor = answer.nextCursor ?? null;
  renderMessageLog();
}

/** A body as the endpoint got it, indented: JSON text, put in the page as text only. */
function bodyText(body) {
  return typeof body === 'string' ? body : JSON.stringify(body, null, 2);
}

/** One fact of a message: its name and value, a group of the entry's description list. */
const fact = (name, value) => element('div', {}, [element('dt', { textContent: name }), element('dd', {}, [value])]);

function messageEntry(subscription, message, blocked) {
  const shownState = STATES[message.status] ?? { text: message.status, badge: 'off' };
  const actions = [];
  if (can('resend')) {
    const button = element('button', { type: 'button', textContent: 'Resend', disabled: Boolean(blocked) || state.messageLog.sending });
    button.dataset.eventId = message.eventId;
    button.setAttribute('aria-label', `Resend: ${message.event} ${message.eventId}`);
    button.setAttribute('aria-describedby', 'message-sending-blocked');
    button.addEventListener('click', () => resendOne(subscription, message));
    actions.push(button);
  }
  return element('li', { className: 'message-entry' }, [
    element('p', { className: 'message-head' }, [
      element('span', { className: `badge ${shownState.badge}`, textContent: shownState.text }),
      ' ',
      element('strong', { textContent: message.event }),
    ]),
    element('dl', { className: 'message-facts' }, [
      fact('Event id', element('code', { textContent: message.eventId })),
      fact('Occurred', timeElement(message.occurredAt)),
      fact('Sent', timeElement(message.sentAt)),
      fact('Tries', String(message.attempts ?? 0)),
      fact('Last try', message.lastAttemptAt ? timeElement(message.lastAttemptAt) : 'none yet'),
      fact('Status code', message.statusCode === null || message.statusCode === undefined ? 'no answer' : String(message.statusCode)),
    ]),
    element('details', { className: 'message-body' }, [
      element('summary', { textContent: `Body of ${message.eventId}` }),
      // textContent, never innerHTML: the body is data, whatever markup it carries.
      element('pre', { textContent: bodyText(message.body) }),
    ]),
    ...(actions.length > 0 ? [element('div', { className: 'panel-buttons' }, actions)] : []),
  ]);
}

export function renderMessageLog() {
  const panel = state.messageLog;
  const subscription = subscriptionOf(panel.configId);
  const blocked = whyNoReplay(subscription);
  const sends = can('resend') || can('recover');
  $('message-log-heading').textContent = `Messages of ${labelOf(subscription)}`;
  $('message-sending-blocked').textContent = sends && blocked ? blocked : '';
  $('message-sending-blocked').hidden = !(sends && blocked);
  const count = panel.items.length;
  $('message-log-summary').textContent =
    count > 0
      ? `${plural(count, 'message', 'messages')} shown, newest first${panel.nextCursor ? '; older ones follow' : ''}.`
      : panel.status ? 'No message in this state is kept.' : 'No message is kept yet.';
  $('more-messages').hidden = !panel.nextCursor;
  $('message-entries').hidden = panel.items.length === 0;
  $('message-entries').replaceChildren(...panel.items.map((message) => messageEntry(subscription, message, blocked)));
  renderRecoverControls(subscription, blocked);
}

/**
 * Runs a resend with the panel's send buttons disabled until it answers: a double click sends
 * nothing twice. Answers whether it succeeded.
 */
async function whileSending(run) {
  state.messageLog.sending = true;
  for (const button of [$('recover-submit'), ...$('message-entries').querySelectorAll('button')]) button.disabled = true;
  let succeeded = false;
  try {
    await attempt(async () => {
      await run();
      succeeded = true;
    });
  } finally {
    if (state.messageLog) {
      state.messageLog.sending = false;
      renderMessageLog();
    }
  }
  return succeeded;
}

async function resendOne(subscription, message) {
  const succeeded = await whileSending(async () => {
    const answer = await state.api.resend(subscription.configId, message.eventId);
    // The resend is a message of its own, pending until its first try: the first page of every
    // state shows it (a state chosen, such as delivered, would hide it until then).
    if (state.messageLog) {
      state.messageLog.status = '';
      $('message-status').value = '';
      await loadMessages();
    }
    announce(`${answer.message} (${subscription.name}, event ${answer.eventId}, message ${answer.messageId})`);
  });
  if (succeeded) $('message-log-heading').focus();
}

function closeMessageLog({ focus = true } = {}) {
  const configId = state.messageLog?.configId;
  state.messageLog = undefined;
  $('message-log').hidden = true;
  $('message-entries').replaceChildren();
  clearRecoveries();
  if (focus && configId) focusAction(configId, 'messages');
}

/** After a list answer: the open panel shows its subscription anew, or closes when it is gone. */
export function followListInMessageLog() {
  if (!state.messageLog) return;
  if (subscriptionOf(state.messageLog.configId)) renderMessageLog();
  else closeMessageLog({ focus: false });
}

/** Wires the panel: the delivery state to show, Close, "Show older messages", and the recover part. */
export function wireMessageLog() {
  $('message-filter-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void attempt(async () => {
      state.messageLog.status = $('message-status').value;
      await loadMessages();
    });
  });
  $('close-message-log').addEventListener('click', () => closeMessageLog());
  $('more-messages').addEventListener('click', () =>
    attempt(async () => {
      const shown = state.messageLog.items.length;
      await loadMessages({ more: true });
      // Focus on the first newly shown entry's body, or the heading when none came.
      const entries = $('message-entries').querySelectorAll('li');
      (entries[shown]?.querySelector('summary') ?? $('message-log-heading')).focus();
    }),
  );
  wireRecoveries();
}
