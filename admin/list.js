// The portal's subscriptions as the page last read them: `refresh` reads the list again and tells
// the parts that show it (the table, an open panel), which the page wires with `whenListed`.
import { $ } from './dom.js';
import { state } from './state.js';

/** What runs after each list answer, in the order the page wired them. */
const listedListeners = [];

/** Runs `listener` after every list answer (so the modules that show the list import none of its users). */
export function whenListed(listener) {
  listedListeners.push(listener);
}

export async function refresh() {
  const answer = await state.api.list();
  state.subscriptions = answer.configs;
  state.maxSubscriptions = answer.maxSubscriptions;
  for (const listener of listedListeners) listener();
  return answer;
}

/** Puts focus back on a row's button after the rows were drawn anew. */
export function focusAction(configId, action) {
  const button = document.querySelector(`button[data-config-id="${CSS.escape(configId)}"][data-action="${action}"]`);
  (button ?? $('subscriptions-heading')).focus();
}
