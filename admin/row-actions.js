// The buttons of a subscription's row that need no form: activate/deactivate, send a test event,
// resend the confirmation request.
import { focusAction, refresh } from './list.js';
import { announce, attempt, showPageError } from './messages.js';
import { state, whyNothingArrives } from './state.js';

export async function toggleStatus(subscription) {
  await attempt(async () => {
    const answer = await state.api.setStatus(subscription.configId, subscription.status === 1 ? 0 : 1);
    await refresh();
    announce(`${answer.message} (${subscription.name})`);
    focusAction(subscription.configId, 'status');
  });
}

export async function sendTest(subscription) {
  const reason = whyNothingArrives(subscription);
  if (reason) {
    showPageError(`No test event sent: ${reason}, so it would not arrive. Resend the confirmation request and have the endpoint's owner follow it.`);
    return;
  }
  // The list may be older than the endpoint's state: the API's 400 then says why.
  await attempt(async () => {
    const answer = await state.api.sendTest(subscription.configId);
    announce(`${answer.message} (${subscription.name}, message ${answer.messageId})`);
  });
}

export async function resendConfirmation(subscription) {
  await attempt(async () => {
    const answer = await state.api.resendConfirmation(subscription.configId);
    state.confirmationSentAt.set(subscription.configId, Date.now());
    await refresh();
    announce(`${answer.message} (${subscription.name})`);
    focusAction(subscription.configId, 'confirm');
  });
}
