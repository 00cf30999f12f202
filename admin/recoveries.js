// "Recover since" in the Messages panel: sends again every message of the subscription sent since
// a time (the failed ones, or all), through POST /recover, and lists its recoveries with their
// state and counts (GET /recoveries). Offered only where the service has those routes.
import { $, element, labelledCell } from './dom.js';
import { plural, timeElement } from './format.js';
import { announce, attempt, clearErrors, showFormError } from './messages.js';
import { can, state, subscriptionOf, whyNoReplay } from './state.js';

/** A recovery's state as the page names it, and its badge. */
const STATES = {
  running: { text: 'Running', badge: 'off' },
  done: { text: 'Done', badge: 'on' },
  failed: { text: 'Failed', badge: 'warn' },
};

/** What a recovery sends again, as the form's choices name it. */
const WHICH = { failed: 'Failed only', all: 'All' };

/**
 * The time a datetime-local field holds, read as UTC (the page writes every time in UTC, the same
 * for every reader), in ISO 8601; undefined when it holds none.
 */
export function utcOfField(value) {
  if (!value) return undefined;
  const date = new Date(`${value}${value.length === 16 ? ':00' : ''}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Empties the part for another subscription: no old recovery, no old error, no old time. */
export function clearRecoveries() {
  $('recover-form').reset();
  clearErrors('recover');
  $('recovery-rows').replaceChildren();
  $('recoveries-summary').textContent = '';
  $('recovery-table').hidden = true;
}

export async function loadRecoveries() {
  const panel = state.messageLog;
  const answer = await state.api.recoveries(panel.configId);
  if (state.messageLog !== panel) return;
  panel.recoveries = answer.recoveries;
  renderRecoveries();
}

function renderRecoveries() {
  const recoveries = state.messageLog?.recoveries ?? [];
  $('recoveries-summary').textContent = recoveries.length === 0 ? 'No recovery was asked for yet.' : `${plural(recoveries.length, 'recovery', 'recoveries')}, newest first.`;
  $('recovery-table').hidden = recoveries.length === 0;
  $('recovery-rows').replaceChildren(
    ...recoveries.map((recovery) => {
      const shown = STATES[recovery.state] ?? { text: recovery.state, badge: 'off' };
      const stateParts = [element('span', { className: `badge ${shown.badge}`, textContent: shown.text })];
      if (recovery.error) stateParts.push(element('div', { className: 'meta', textContent: recovery.error }));
      stateParts.push(element('div', { className: 'meta' }, ['as of ', timeElement(recovery.updatedAt)]));
      return element('tr', {}, [
        element('th', { scope: 'row' }, [timeElement(recovery.createdAt), element('div', { className: 'meta' }, [element('code', { textContent: recovery.recoveryId })])]),
        labelledCell('Window', {}, [timeElement(recovery.since), ' to ', recovery.until ? timeElement(recovery.until) : 'now']),
        labelledCell('Messages', { textContent: WHICH[recovery.status] ?? recovery.status }),
        labelledCell('State', {}, stateParts),
        labelledCell('Matched', { textContent: String(recovery.matched ?? 0) }),
        labelledCell('Sent', { textContent: String(recovery.sent ?? 0) }),
        labelledCell('Failed', { textContent: String(recovery.failed ?? 0) }),
      ]);
    }),
  );
}

/** Shows the part as the token and the subscription allow: off (and why) while nothing would arrive. */
export function renderRecoverControls(subscription, blocked) {
  $('recover-part').hidden = !can('recover');
  $('recoveries-part').hidden = !can('recoveries');
  $('recover-submit').disabled = Boolean(blocked) || Boolean(state.messageLog?.recovering);
  renderRecoveries();
}

/**
 * One recovery per press: each press is a new Idempotency-Key, so a request the network repeated
 * starts nothing twice, and the button is off until the service answers.
 */
async function recoverSince(event) {
  event.preventDefault();
  const panel = state.messageLog;
  const subscription = subscriptionOf(panel.configId);
  clearErrors('recover');
  const since = utcOfField($('recover-since').value);
  if (!since) {
    $('recover-since-error').textContent = 'Give the date and time (UTC) to recover from.';
    $('recover-since-error').hidden = false;
    $('recover-since').setAttribute('aria-invalid', 'true');
    $('recover-since').focus();
    return;
  }
  panel.recovering = true;
  $('recover-submit').disabled = true;
  let succeeded = false;
  try {
    await attempt(
      async () => {
        const answer = await state.api.recover(subscription.configId, { since, status: $('recover-status').value }, crypto.randomUUID());
        if (can('recoveries')) await loadRecoveries();
        announce(`${answer.message} (${subscription.name}, recovery ${answer.recoveryId}: ${STATES[answer.state]?.text.toLowerCase() ?? answer.state})`);
        succeeded = true;
      },
      (error) => showFormError('recover', error),
    );
  } finally {
    panel.recovering = false;
    if (state.messageLog === panel) $('recover-submit').disabled = Boolean(whyNoReplay(subscriptionOf(panel.configId) ?? subscription));
  }
  if (succeeded && can('recoveries')) $('recoveries-heading').focus();
}

/** Wires the form and "Refresh recoveries". */
export function wireRecoveries() {
  $('recover-form').addEventListener('submit', (event) => void recoverSince(event));
  $('refresh-recoveries').addEventListener('click', () =>
    attempt(async () => {
      await loadRecoveries();
      const subscription = subscriptionOf(state.messageLog.configId);
      announce(`Recoveries of ${subscription.name} read again.`);
    }),
  );
}
