// The admin page: sign in, then list, create, rename, replace events, activate/deactivate,
// test and delete the portal's subscriptions, see and send again their failed deliveries, and
// see the messages each was sent, resend one and recover those sent since a time.
// The service checks every value; its messages are shown next to the field they name, or at the
// top of the form (or page) otherwise. What the token's scopes do not allow is not offered.
//
// This module starts the page: it reads its settings (page-settings.js) and the service's
// document, then wires each part, kept in a module of its own: sign-in.js (with
// authorization-code.js), subscriptions-table.js (with row-actions.js and forms.js), attempts.js,
// dead-letters.js, message-log.js (with recoveries.js); list.js reads the list, state.js holds what the page knows.
import { loadServiceDescription } from './api-client.js';
import { followListInAttempts, wireAttempts } from './attempts.js';
import { followListInDeadLetters, wireDeadLetters } from './dead-letters.js';
import { followListInMessageLog, wireMessageLog } from './message-log.js';
import { $ } from './dom.js';
import { wireForms } from './forms.js';
import { refresh, whenListed } from './list.js';
import { announce, attempt, showPageError } from './messages.js';
import { loadPageSettings } from './page-settings.js';
import { wireSignIn } from './sign-in.js';
import { state } from './state.js';
import { renderSubscriptions } from './subscriptions-table.js';

async function start() {
  try {
    state.settings = await loadPageSettings();
    state.description = await loadServiceDescription(state.settings.openApiDocument, state.settings.apiBaseUrl);
  } catch (error) {
    showPageError(`The page could not start: ${error.message}.`);
    return;
  }
  // After each list answer: the table first, then an open panel follows it.
  whenListed(renderSubscriptions);
  whenListed(followListInDeadLetters);
  whenListed(followListInAttempts);
  whenListed(followListInMessageLog);

  wireForms();
  $('refresh').addEventListener('click', () =>
    attempt(async () => {
      const answer = await refresh();
      announce(answer.message);
    }),
  );
  wireDeadLetters();
  wireAttempts();
  wireMessageLog();
  await wireSignIn();
  document.body.dataset.ready = 'true';
}

void start();
