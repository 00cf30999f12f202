// The Deliveries panel: each attempt SNS logged for one subscription, newest first, a page at a time.
import { $, element, labelledCell } from './dom.js';
import { labelOf, timeElement } from './format.js';
import { focusAction } from './list.js';
import { announce, attempt } from './messages.js';
import { state, subscriptionOf } from './state.js';

/** Deliveries shown at a time; "Show older" asks for the next ones. */
const ATTEMPTS_PER_PAGE = 20;

export async function openAttempts(subscription) {
  await attempt(async () => {
    state.attempts = { configId: subscription.configId, items: [], nextCursor: null };
    await loadAttempts();
    // The panel is the outcome: an older message would stay pinned over it.
    announce('');
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
      const delivered = item.status === 'delivered';
      return element('tr', {}, [
        element('th', { scope: 'row' }, [timeElement(item.at)]),
        labelledCell('Result', {}, [element('span', { className: `badge ${delivered ? 'on' : 'warn'}`, textContent: delivered ? 'Delivered' : 'Failed' })]),
        labelledCell('Status code', { textContent: item.statusCode === null ? 'no answer' : String(item.statusCode) }),
        labelledCell('Duration', { textContent: `${item.dwellTimeMs} ms` }),
        labelledCell('Tries', { textContent: String(item.attempts) }),
        labelledCell('Message id', {}, [element('code', { textContent: item.messageId })]),
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

/** After a list answer: the open panel closes when its subscription is gone. */
export function followListInAttempts() {
  if (state.attempts && !subscriptionOf(state.attempts.configId)) closeAttempts({ focus: false });
}

/** Wires the panel's buttons: Close, and "Show older deliveries". */
export function wireAttempts() {
  $('close-attempts').addEventListener('click', () => closeAttempts());
  $('more-attempts').addEventListener('click', () => attempt(() => loadAttempts({ more: true })));
}
