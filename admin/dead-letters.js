// The Failed deliveries panel: one subscription's dead letters, newest first, a page at a time,
// and sending them again (one, or all of them 100 a call), while the API would accept it.
import { $, element, labelledCell } from './dom.js';
import { labelOf, plural, timeElement } from './format.js';
import { focusAction, refresh } from './list.js';
import { announce, attempt } from './messages.js';
import { can, state, subscriptionOf, whyNoReplay } from './state.js';

/** Failed deliveries shown at a time: a screenful; "Show older" asks for the next ones. */
const DEAD_LETTERS_PER_PAGE = 10;
/** Replay takes at most 100 per call and keeps at most 1,000 per subscription: 11 calls empty it. */
const MAX_REPLAY_CALLS = 11;

export async function openDeadLetters(subscription) {
  await attempt(async () => {
    state.deadLetters = { configId: subscription.configId, items: [], nextCursor: null, dropped: 0 };
    await loadDeadLetters();
    // The panel is the outcome: an older message would stay pinned over it.
    announce('');
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

/**
 * A dead letter's scheduled retries (DELIVERY_RETRY_SCHEDULE): how many its event had, and when the
 * next is due; none is once the schedule is spent, after a send again, or while deactivated. One
 * whose retry is out says so, and since when.
 */
function retriesCell(deadLetter) {
  const next = deadLetter.state === 'retrying' && deadLetter.retriedAt
    ? ['being retried, sent ', timeElement(deadLetter.retriedAt)]
    : deadLetter.nextRetryAt ? ['next ', timeElement(deadLetter.nextRetryAt)] : ['none scheduled'];
  return labelledCell('Scheduled retries', {}, [
    element('div', { textContent: deadLetter.retries === 0 ? 'Not retried' : `Retried ${plural(deadLetter.retries, 'time', 'times')}` }),
    element('div', { className: 'meta' }, next),
  ]);
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
        labelledCell('Event', { textContent: deadLetter.event }),
        labelledCell('Occurred', {}, [timeElement(deadLetter.occurredAt)]),
        labelledCell('Failed', {}, [timeElement(deadLetter.failedAt)]),
        retriesCell(deadLetter),
        labelledCell('Actions', {}, actions),
      ]);
    }),
  );
}

export function closeDeadLetters({ focus = true } = {}) {
  const configId = state.deadLetters?.configId;
  state.deadLetters = undefined;
  $('dead-letters').hidden = true;
  $('dead-letter-rows').replaceChildren();
  if (focus && configId) focusAction(configId, 'dead-letters');
}

/** After a list answer: the open panel shows its subscription anew, or closes when it is gone. */
export function followListInDeadLetters() {
  if (!state.deadLetters) return;
  if (subscriptionOf(state.deadLetters.configId)) renderDeadLetters();
  else closeDeadLetters({ focus: false });
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

/** Wires the panel's buttons: Send all again, Close, and "Show older failed deliveries". */
export function wireDeadLetters() {
  $('replay-all').addEventListener('click', () => replayAll());
  $('close-dead-letters').addEventListener('click', () => closeDeadLetters());
  $('more-dead-letters').addEventListener('click', () =>
    attempt(async () => {
      const shown = state.deadLetters.items.length;
      await loadDeadLetters({ more: true });
      // Focus on the first newly shown row's button, or the heading when it has none.
      const rows = $('dead-letter-rows').querySelectorAll('tr');
      (rows[shown]?.querySelector('button') ?? $('dead-letters-heading')).focus();
    }),
  );
}
