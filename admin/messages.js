// What the page tells the user: one message area for outcomes, and errors next to the field
// they name, at the top of their form, or at the top of the page.
import { ApiError } from './api-client.js';
import { $ } from './dom.js';
import { withReadableTimes } from './format.js';

// One message area: each outcome replaces the one before, so an old success never sits above a
// newer error (nor an old error above a newer success).
export function announce(text) {
  $('status').textContent = text;
  $('page-error').textContent = '';
  $('page-error').hidden = true;
}

export function showPageError(text) {
  const element = $('page-error');
  element.textContent = withReadableTimes(text);
  element.hidden = !text;
  if (text) $('status').textContent = '';
}

/** Clears the error texts and invalid marks of a form (its ids start with `prefix-`). */
export function clearErrors(prefix) {
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
export function showFormError(prefix, error) {
  clearErrors(prefix);
  $('status').textContent = '';
  const messages = error instanceof ApiError ? error.fieldMessages : new Map();
  let first;
  for (const [field, message] of messages) {
    const errorElement = $(`${prefix}-${field}-error`);
    if (!errorElement) continue;
    errorElement.textContent = withReadableTimes(message);
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
    formError.textContent = withReadableTimes(error.message);
    formError.hidden = false;
  } else {
    showPageError(error.message);
  }
}

/** Runs an action of the page, turning its failure into a message the user sees. */
export async function attempt(action, onError = (error) => showPageError(error.message)) {
  showPageError('');
  try {
    await action();
  } catch (error) {
    if (!(error instanceof ApiError)) console.error(error);
    onError(error instanceof Error ? error : new Error(String(error)));
  }
}
