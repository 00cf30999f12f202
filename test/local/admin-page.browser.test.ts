/**
 * The admin page of `npm start` in Chromium, used with the keyboard alone (every control is
 * found by its role and accessible name, and activated with Enter or Space): a refused sign-in, sign in, the
 * protocols, catalog and endpoint hints the service's document gives, create,
 * see it listed (with a short id, its creation date and "n of 10"), rename, replace events,
 * deactivate, no test event while its endpoint has not confirmed, resend the confirmation request
 * of its pending endpoint (and see it confirmed once followed), send a test event, the API's
 * refusal of one, a refused create whose message is shown next to its field (and no old success
 * above it), two subscriptions of one name told apart, a full portal, failed deliveries listed and
 * sent again, the page at 420 px, a read-only client, a token the API refuses, delete, and sign in
 * with a pasted token. What the page shows is checked against what the API holds. The steps about
 * the create form and the list are in admin-page.form-and-list.steps.ts, those about
 * deliveries in admin-page.deliveries.steps.ts, both run here in the same browser and stack; the
 * browser, the stack and what the steps read of the page and the API are test/support/admin-page.ts.
 *
 */
import { createSubscriptionRequest } from '../../shared/contract/schemas';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { SNSClient, UnsubscribeCommand } from '@aws-sdk/client-sns';
import { loadConfig } from '../../shared/config';
import { chromiumPath } from '../support/browser';
import { confirmAsEndpointOwner, confirmationRequestsTo } from '../support/sns-confirmation';
import { call, lastConfirmationRequestsMinutesAgo, reconcileLocally, requestToken } from '../support/local-stack-client';
import {
  admin,
  alertSays,
  focusedElement,
  idAndCreation,
  inView,
  listed,
  local,
  MAX_SUBSCRIPTIONS,
  page,
  PREFIX,
  row,
  scrollToFoot,
  startAdminPageBeforeAll,
  statusSays,
  statusText,
  step,
  subscriptionArnOf,
  token,
} from '../support/admin-page';
import { deliveriesSteps } from './admin-page.deliveries.steps';
import { formAndListSteps } from './admin-page.form-and-list.steps';

// Runs only where Debian's chromium is installed, and says so in one line where it is not.
const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('admin page browser suite not run: chromium is not installed (apt-get install chromium).');

describeWithChromium('the admin page, in Chromium with the keyboard', () => {
  startAdminPageBeforeAll();

  step('shows the token endpoint\'s refusal of a wrong secret on the secret field, marked invalid', async () => {
    // The page's clock, so a later step can let the 5 minutes of a confirmation request pass.
    await page.clock.install();
    await page.goto(local.stack.adminUrl);
    await page.locator('body[data-ready="true"]').waitFor();
    const refusal = await requestToken(local.stack, { grant_type: 'client_credentials', client_id: admin.clientId, client_secret: 'wrong' });
    expect(refusal.status).toBe(401);

    await page.getByLabel('Client id').fill(admin.clientId);
    await page.getByLabel('Client secret').fill('wrong');
    await page.getByRole('button', { name: 'Sign in', exact: true }).press('Enter');

    await page.locator('#client-secret-error').filter({ hasText: refusal.body.error_description }).waitFor();
    expect(await page.getByLabel('Client secret').getAttribute('aria-invalid')).toBe('true');
    expect(await focusedElement()).toBe('client-secret');
    expect(await page.getByRole('heading', { name: 'Sign in', exact: true }).isVisible()).toBe(true);
  });

  step('signs in with a client id and secret through the token endpoint', async () => {
    await page.getByLabel('Client id').fill(admin.clientId);
    await page.getByLabel('Client secret').fill(admin.clientSecret);
    await page.getByRole('button', { name: 'Sign in', exact: true }).press('Enter');

    await statusSays('Signed in. 0 subscriptions.');
    expect(await page.getByRole('heading', { name: 'Subscriptions', exact: true }).isVisible()).toBe(true);
    expect(await page.locator('#signed-in-as').textContent()).toBe(`Signed in as ${admin.clientId} (portal ${admin.portalId})`);
    expect(await page.locator('#subscription-count').textContent()).toBe(`0 of ${MAX_SUBSCRIPTIONS} subscriptions`);
    expect(await page.locator('#read-only-note').isVisible()).toBe(false);
    expect(await page.getByRole('heading', { name: 'Sign in', exact: true }).isVisible()).toBe(false);
  });

  step('offers the protocols and the event catalog of the service', async () => {
    const protocols = await page.getByLabel('Protocol').locator('option').allTextContents();
    expect(protocols).toEqual(['https', 'http', 'email', 'email-json', 'sqs', 'lambda']);
    const boxes = await page.getByRole('group', { name: 'Events', exact: true }).getByRole('checkbox').all();
    const catalog = await Promise.all(boxes.map((box) => box.getAttribute('value')));
    expect(catalog).toEqual(loadConfig(process.env).eventKinds);
  });

  step('describes the endpoint each protocol takes, as the request schema does', async () => {
    for (const { if: condition, then } of createSubscriptionRequest.allOf) {
      await page.getByLabel('Protocol').selectOption(condition.properties.protocol.const);

      expect(await page.locator('#create-endpoint-hint').textContent()).toBe(then.properties.endpoint.description);
      expect(await page.getByLabel('Endpoint').getAttribute('placeholder')).toBe(then.properties.endpoint.examples[0]);
    }
  });

  step('creates a subscription and lists it with a short id, its creation date, status, confirmation and failed deliveries', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Hooks');
    await page.getByLabel('Protocol').selectOption('email');
    await page.getByLabel('Endpoint').fill('ops@example.com');
    await page.getByRole('checkbox', { name: 'asset_bank.media.create' }).press('Space');
    await page.getByRole('checkbox', { name: 'workflow.job.create' }).press('Space');
    // At a laptop's window size, the form is below the fold: the person has scrolled down to it.
    expect(await scrollToFoot()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Create subscription' }).press('Enter');

    await statusSays('Subscription created. (Hooks)');
    // The answer shows where the person is, not above the fold.
    expect(await inView('#status')).toBe(true);
    const cells = await row('Hooks').getByRole('cell').allTextContents();
    expect(cells.slice(0, 6)).toEqual([
      'emailops@example.com',
      'asset_bank.media.createworkflow.job.create',
      'Active',
      'Pending confirmation',
      'Not recorded for e-mailShow messages',
      'None',
    ]);
    const subscriptions = await listed();
    expect(subscriptions).toEqual([
      expect.objectContaining({ name: 'Hooks', status: 1, events: ['asset_bank.media.create', 'workflow.job.create'] }),
    ]);
    expect(await row('Hooks').getByRole('rowheader').textContent()).toBe(`Hooks${idAndCreation(subscriptions[0]!.configId)}`);
    expect(await page.locator('#subscription-count').textContent()).toBe(`1 of ${MAX_SUBSCRIPTIONS} subscriptions`);
  });

  step('renames it in a dialog', async () => {
    await row('Hooks').getByRole('button', { name: 'Rename: Hooks' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rename subscription' });
    await dialog.getByLabel('New name').fill('Media hooks');
    await dialog.getByRole('button', { name: 'Save name' }).press('Enter');

    // Named by its new name, as the row now is.
    await statusSays('Subscription renamed. (Media hooks)');
    await row('Media hooks').waitFor();
    expect(await dialog.isVisible()).toBe(false);
    expect((await listed()).map((subscription) => subscription.name)).toEqual(['Media hooks']);
  });

  step('replaces its events', async () => {
    await row('Media hooks').getByRole('button', { name: 'Events: Media hooks' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Replace events' });
    await dialog.getByRole('checkbox', { name: 'workflow.job.create' }).press('Space');
    await dialog.getByRole('checkbox', { name: 'antivirus.scan.failed' }).press('Space');
    await dialog.getByRole('button', { name: 'Save events' }).press('Enter');

    await statusSays('Subscription events updated. (Media hooks)');
    expect(await row('Media hooks').getByRole('listitem').allTextContents()).toEqual(['asset_bank.media.create', 'antivirus.scan.failed']);
    expect((await listed())[0]!.events).toEqual(['asset_bank.media.create', 'antivirus.scan.failed']);
  });

  step('deactivates it', async () => {
    await row('Media hooks').getByRole('button', { name: 'Deactivate: Media hooks' }).press('Enter');

    await statusSays('Subscription deactivated. (Media hooks)');
    expect(await row('Media hooks').getByRole('cell').nth(2).textContent()).toBe('Inactive');
    // Focus stays on the row's status button, now the other way round.
    expect(await focusedElement()).toBe(await row('Media hooks').getByRole('button', { name: 'Activate: Media hooks' }).getAttribute('aria-label'));
    expect((await listed())[0]!.status).toBe(0);
  });

  step('says why no test event is sent while its endpoint has not confirmed, and sends none', async () => {
    const testRequests: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (request.url().endsWith(`${PREFIX}/test`)) testRequests.push(request.url());
    };
    page.on('request', onRequest);
    const sendTest = row('Media hooks').getByRole('button', { name: 'Send test: Media hooks' });
    expect(await sendTest.getAttribute('aria-disabled')).toBe('true');
    expect(await scrollToFoot()).toBeGreaterThan(0);

    // With the mouse on the greyed button (force: Playwright itself waits for an aria-disabled
    // button to be enabled), from wherever the page is scrolled to.
    await sendTest.click({ force: true });

    await alertSays('No test event sent: the endpoint of "Media hooks" has not confirmed its subscription yet, so it would not arrive.');
    expect(await inView('#page-error')).toBe(true);
    page.off('request', onRequest);
    expect(testRequests).toEqual([]);
    // One message area: the deactivation's success no longer stands above this.
    expect(await statusText()).toBe('');
  });

  step('resends the confirmation request of its pending endpoint; once followed, shows it confirmed, without the button', async () => {
    const subscriptionArn = await subscriptionArnOf('ops@example.com');
    expect(await confirmationRequestsTo(subscriptionArn, local.stack.sns.endpoint)).toHaveLength(1);
    // No new request within 5 minutes of the first (shared/subscriptions/confirmation-requests.ts):
    // not offered until then, and offered once they passed, for the service and the page alike.
    expect(await row('Media hooks').getByRole('button', { name: 'Resend confirmation: Media hooks' }).count()).toBe(0);
    expect(await row('Media hooks').locator('.confirmation-wait').textContent()).toMatch(/^Confirmation request sent; another from \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    await lastConfirmationRequestsMinutesAgo(local.stack, admin.portalId, 6);
    await page.clock.fastForward('06:00');

    await row('Media hooks').getByRole('button', { name: 'Resend confirmation: Media hooks' }).press('Enter');

    await statusSays('Confirmation requested: SNS sent the endpoint a new confirmation request. (Media hooks)');
    expect(await confirmationRequestsTo(subscriptionArn, local.stack.sns.endpoint)).toHaveLength(2);
    expect(await row('Media hooks').getByRole('cell').nth(3).textContent()).toBe('Pending confirmation');
    expect(await row('Media hooks').getByRole('button', { name: 'Resend confirmation: Media hooks' }).count()).toBe(0);

    await confirmAsEndpointOwner(subscriptionArn, local.stack.sns.endpoint);
    await page.getByRole('button', { name: 'Refresh the list' }).press('Enter');
    await row('Media hooks').getByRole('cell', { name: 'Confirmed', exact: true }).waitFor();
    expect(await row('Media hooks').getByRole('button', { name: 'Resend confirmation: Media hooks' }).count()).toBe(0);
  });

  step('sends it a test event once its endpoint confirmed', async () => {
    await row('Media hooks').getByRole('button', { name: 'Send test: Media hooks' }).press('Enter');

    await statusSays(/^Test event sent\./);
    expect(await statusText()).toMatch(/^Test event sent\. \(Media hooks, message [0-9a-f-]{36}\)$/);
    expect(await page.locator('#page-error').isVisible()).toBe(false);
  });

  step('shows the API\'s refusal of a test event when the endpoint left since the list was read', async () => {
    const [subscription] = await listed();
    // The endpoint's owner unsubscribes (as its UnsubscribeURL does).
    const sns = new SNSClient({ endpoint: local.stack.sns.endpoint, region: local.stack.region, credentials: LOCAL_CREDENTIALS });
    await sns.send(new UnsubscribeCommand({ SubscriptionArn: await subscriptionArnOf('ops@example.com') }));
    sns.destroy();
    const refusal = await call(local.stack, 'POST', `${PREFIX}/test`, { token, body: { config_id: subscription!.configId } });
    expect(refusal.status).toBe(400);

    // The page still shows it confirmed: the API says why nothing is sent.
    await row('Media hooks').getByRole('button', { name: 'Send test: Media hooks' }).press('Enter');

    await alertSays(refusal.body.message);
    expect(await statusText()).toBe('');
    // The list shows the state as last learned: a lapse shows after the reconciler's next run.
    expect(await reconcileLocally(local.stack)).toMatchObject({ subscriptionStatesUpdated: 1, errors: 0 });
    await page.getByRole('button', { name: 'Refresh the list' }).press('Enter');
    await row('Media hooks').getByRole('cell', { name: 'Unsubscribed', exact: true }).waitFor();
    expect(await row('Media hooks').getByRole('cell').nth(3).textContent()).toBe('Unsubscribed');
    expect(await row('Media hooks').getByRole('button', { name: 'Send test: Media hooks' }).getAttribute('aria-disabled')).toBe('true');
  });

  // A refused create, long endpoints, docs, the favicon, names told apart, a full portal.
  formAndListSteps();

  // Failed deliveries listed and sent again, the deliveries view, a read-only client, a refused token.
  deliveriesSteps();

  step('deletes it after a confirmation', async () => {
    await row('Media hooks').getByRole('button', { name: 'Delete: Media hooks' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete subscription?' });
    const [subscription] = await listed();
    expect(await dialog.textContent()).toContain(`"Media hooks" (email ops@example.com, id ${subscription!.configId}) and its SNS topic will be deleted`);
    // It opens on the safe choice: Enter at once keeps the subscription.
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Keep it');
    await page.keyboard.press('Enter');
    expect(await dialog.isVisible()).toBe(false);
    expect(await listed()).toHaveLength(1);

    await row('Media hooks').getByRole('button', { name: 'Delete: Media hooks' }).press('Enter');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).press('Enter');

    await statusSays('Subscription deleted. (Media hooks)');
    expect(await page.getByText('No subscriptions yet.').isVisible()).toBe(true);
    expect(await listed()).toEqual([]);
  });

  step('signs out, and in again with a pasted token', async () => {
    await page.getByRole('button', { name: 'Sign out' }).press('Enter');
    await page.getByLabel('Or paste an access token').fill(token);
    await page.getByRole('button', { name: 'Use this token' }).press('Enter');

    await statusSays('Signed in. 0 subscriptions.');
    expect(await page.getByRole('heading', { name: 'Subscriptions', exact: true }).isVisible()).toBe(true);
  });
});
