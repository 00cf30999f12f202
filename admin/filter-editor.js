// A subscription's filter (an SNS filter policy on each event's data): edited as JSON in a dialog
// of its own, tried on an example event's `data` with POST /test-filter before saving, saved with
// update (an empty filter removes it). The dialog is built here, so the page's layout holds
// nothing of it; the table only adds the row's "Filter" button (openFilter).
import { ApiError } from './api-client.js';
import { element } from './dom.js';
import { focusAction, refresh } from './list.js';
import { announce, attempt } from './messages.js';
import { can, state } from './state.js';

const EXAMPLE_DATA = { brand: 'acme', collection: 'summer-2026', fileType: 'image/png', size: 2048 };

let parts;

/** The dialog and its controls, made on first use. */
function dialogParts() {
  if (parts) return parts;
  const field = (id, label, hint) => {
    const input = element('textarea', { id, rows: 6, spellcheck: false });
    input.setAttribute('aria-describedby', `${id}-error`);
    return [element('label', { htmlFor: id, textContent: label }), element('p', { className: 'hint', textContent: hint }), input, element('p', { id: `${id}-error`, className: 'field-error', hidden: true })];
  };
  const [filterLabel, filterHint, filter, filterError] = field('filter-policy', 'Filter', 'An SNS filter policy on the event\'s data, such as {"brand": ["acme"]}. Empty: every event of the chosen kinds.');
  const [dataLabel, dataHint, data, dataError] = field('filter-data', 'Example data', 'An event\'s data, as the endpoint receives it under "data".');
  const verdict = element('p', { id: 'filter-verdict', role: 'status' });
  const check = element('button', { type: 'button', textContent: 'Check against the example' });
  const save = element('button', { type: 'submit', textContent: 'Save' });
  const cancel = element('button', { type: 'button', textContent: 'Cancel', className: 'cancel' });
  const heading = element('h2', { id: 'filter-heading' });
  const form = element('form', { id: 'filter-form', noValidate: true }, [
    element('div', { className: 'field' }, [filterLabel, filterHint, filter, filterError]),
    element('div', { className: 'field' }, [dataLabel, dataHint, data, dataError]),
    verdict,
    element('div', { className: 'dialog-buttons' }, [check, save, cancel]),
  ]);
  const dialog = element('dialog', { id: 'filter-dialog' }, [heading, form]);
  dialog.setAttribute('aria-labelledby', 'filter-heading');
  document.querySelector('main').append(dialog);
  parts = { dialog, heading, filter, filterError, data, dataError, verdict };
  cancel.addEventListener('click', () => dialog.close());
  check.addEventListener('click', () => void checkFilter());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void saveFilter();
  });
  return parts;
}

function showError(errorElement, text) {
  errorElement.textContent = text;
  errorElement.hidden = !text;
}

/** The JSON of a field: undefined when empty; an error shown next to it when it is not JSON. */
function jsonOf(input, errorElement, what) {
  showError(errorElement, '');
  if (input.value.trim() === '') return undefined;
  try {
    return JSON.parse(input.value);
  } catch {
    showError(errorElement, `${what} is not valid JSON.`);
    throw new Error(`${what} is not valid JSON.`);
  }
}

/** The service's refusal of the filter, next to the filter (its message names the part: filter.brand[0]...). */
function showRefusal(error) {
  if (error instanceof ApiError && error.status === 400) showError(parts.filterError, error.message);
  else parts.verdict.textContent = error.message;
}

async function checkFilter() {
  const { filter, filterError, data, dataError, verdict } = parts;
  verdict.textContent = '';
  let policy;
  let example;
  try {
    policy = jsonOf(filter, filterError, 'The filter');
    example = jsonOf(data, dataError, 'The example data') ?? {};
  } catch {
    return;
  }
  if (policy === undefined) {
    verdict.textContent = 'No filter: every event of the chosen kinds is delivered.';
    return;
  }
  await attempt(async () => {
    const answer = await state.api.testFilter(policy, example);
    verdict.textContent = answer.matches ? 'Matches: an event with this data would be delivered.' : `No match: ${answer.decidingKey} decided it; an event with this data would not be delivered.`;
  }, showRefusal);
}

async function saveFilter() {
  const { dialog, filter, filterError } = parts;
  const subscription = state.current;
  let policy;
  try {
    policy = jsonOf(filter, filterError, 'The filter');
  } catch {
    return;
  }
  await attempt(async () => {
    const answer = await state.api.setFilter(subscription.configId, policy ?? null);
    dialog.close();
    await refresh();
    announce(`${answer.message} (${subscription.name})`);
    focusAction(subscription.configId, 'filter');
  }, showRefusal);
}

/** Opens the dialog for a subscription, its filter (if any) in the field. */
export function openFilter(subscription) {
  const { dialog, heading, filter, data, verdict, filterError, dataError } = dialogParts();
  state.current = subscription;
  heading.textContent = `Filter of "${subscription.name}"`;
  filter.value = subscription.filter ? JSON.stringify(subscription.filter, null, 2) : '';
  if (data.value.trim() === '') data.value = JSON.stringify(EXAMPLE_DATA, null, 2);
  verdict.textContent = '';
  showError(filterError, '');
  showError(dataError, '');
  dialog.showModal();
  filter.focus();
}

/** Whether the row offers "Filter": the token may update, and try a filter. */
export const canEditFilter = () => can('update') && can('testFilter');
