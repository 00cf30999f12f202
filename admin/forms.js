// The forms: create a subscription, and the rename, replace-events and delete dialogs of a row.
// The service checks every value; its messages are shown next to the field they name.
import { $, element } from './dom.js';
import { focusAction, refresh } from './list.js';
import { announce, attempt, clearErrors, showFormError, showPageError } from './messages.js';
import { state, subscriptionOf } from './state.js';

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

function openDialog(id, subscription) {
  state.current = subscription;
  clearErrors(id.replace('-dialog', ''));
  showPageError('');
  $(id).showModal();
}

export function openRename(subscription) {
  $('rename-name').value = subscription.name;
  openDialog('rename-dialog', subscription);
  $('rename-name').select();
}

export function openEvents(subscription) {
  for (const input of $('events-choices').querySelectorAll('input')) input.checked = subscription.events.includes(input.value);
  openDialog('events-dialog', subscription);
}

export function openDelete(subscription) {
  $('delete-description').textContent =
    `"${subscription.name}" (${subscription.protocol} ${subscription.endpoint}, id ${subscription.configId}) and its SNS topic will be deleted; its endpoint will receive nothing more.`;
  openDialog('delete-dialog', subscription);
  // On the safe choice, so Enter keeps the subscription; deleting takes a deliberate move.
  $('delete-dialog').querySelector('.cancel').focus();
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
        // Named as it is now: a renamed one by its new name.
        announce(`${message} (${subscriptionOf(subscription.configId)?.name ?? subscription.name})`);
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

/** Fills the forms from the service's document (protocols, catalog, endpoint hints) and wires them. */
export function wireForms() {
  $('create-protocol').replaceChildren(
    ...state.description.protocols.map((protocol) => element('option', { value: protocol, textContent: protocol })),
  );
  renderEventChoices($('create-event-choices'), 'create-event');
  renderEventChoices($('events-choices'), 'events-event');
  updateEndpointHint();
  $('create-protocol').addEventListener('change', updateEndpointHint);
  $('create-form').addEventListener('submit', createSubscription);
  wireDialog('rename', async (subscription) => (await state.api.rename(subscription.configId, $('rename-name').value)).message);
  wireDialog('events', async (subscription) =>
    (await state.api.replaceEvents(subscription.configId, checkedEvents($('events-choices')))).message,
  );
  wireDialog('delete', async (subscription) => (await state.api.remove(subscription.configId)).message);
}
