/**
 * The admin page of `npm start` in Chromium, used with the keyboard alone (every control is
 * found by its role and accessible name, and activated with Enter or Space): a refused sign-in, sign in, the
 * protocols, catalog and endpoint hints the service's document gives, create,
 * see it listed, rename, replace events, deactivate, be told why a test event is refused while unconfirmed, resend the confirmation
 * request of its pending endpoint (and see it confirmed once followed), a refused create whose
 * message is shown next to its field, delete, and sign in with a pasted token. What the page
 * shows is checked against what the API holds.
 *
 * `UPDATE_SCREENSHOTS=1` also saves docs/admin-page.png (the screenshot in docs/local.md).
 */
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { loadConfig } from '../../shared/config';
import { createSubscriptionRequest } from '../../shared/contract/schemas';
import { API_PREFIXES } from '../../shared/operations';
import { chromiumPath, launchChromium, saveScreenshot, withFailureScreenshot } from '../support/browser';
import { confirmAsEndpointOwner, confirmationRequestsTo } from '../support/sns-confirmation';
import { call, requestToken, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';

const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/admin-page.png', import.meta.url));
const PREFIX = API_PREFIXES[0];
const admin = TEST_CLIENTS.alphaAdmin;

// Runs only where Debian's chromium is installed, and says so in one line where it is not.
const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('admin page browser suite not run: chromium is not installed (apt-get install chromium).');

let local: TestStack;
let browser: Browser;
let page: Page;
let token: string;

/** The portal's subscriptions as the API lists them. */
async function listed(): Promise<{ name: string; status: number; events: string[] }[]> {
  const answer = await call(local.stack, 'GET', `${PREFIX}/list`, { token });
  expect(answer.status).toBe(200);
  return answer.body.configs;
}

const row = (name: string): Locator => page.getByRole('row', { name: new RegExp(`^${name} `) });
const statusText = () => page.getByRole('status').textContent();
/** The focused element's id, or else its aria-label. */
const focusedElement = () => page.evaluate<string>('document.activeElement.id || document.activeElement.getAttribute("aria-label")');

/** Waits until the status line says `text` (the page announces each outcome there). */
async function statusSays(text: string | RegExp): Promise<void> {
  await page.getByRole('status').filter({ hasText: text }).waitFor();
}

describeWithChromium('the admin page, in Chromium with the keyboard', () => {
  beforeAll(async () => {
    local = await startTestStack();
    token = await tokenFor(local.stack, admin);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await local?.stop();
  });

  const step = (name: string, steps: () => Promise<void>) => it(name, () => withFailureScreenshot(page, name, steps), 30_000);

  step('shows the token endpoint\'s refusal of a wrong secret', async () => {
    await page.goto(local.stack.adminUrl);
    await page.locator('body[data-ready="true"]').waitFor();
    const refusal = await requestToken(local.stack, { grant_type: 'client_credentials', client_id: admin.clientId, client_secret: 'wrong' });
    expect(refusal.status).toBe(401);

    await page.getByLabel('Client id').fill(admin.clientId);
    await page.getByLabel('Client secret').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).press('Enter');

    await page.getByRole('alert').filter({ hasText: refusal.body.error_description }).waitFor();
    expect(await page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
  });

  step('signs in with a client id and secret through the token endpoint', async () => {
    await page.getByLabel('Client id').fill(admin.clientId);
    await page.getByLabel('Client secret').fill(admin.clientSecret);
    await page.getByRole('button', { name: 'Sign in' }).press('Enter');

    await statusSays('Signed in. 0 subscriptions.');
    expect(await page.getByRole('heading', { name: 'Subscriptions', exact: true }).isVisible()).toBe(true);
    expect(await page.locator('#signed-in-as').textContent()).toBe(`Signed in as ${admin.clientId} (portal ${admin.portalId})`);
    expect(await page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(false);
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

  step('creates a subscription and lists it with its status and confirmation', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Hooks');
    await page.getByLabel('Protocol').selectOption('email');
    await page.getByLabel('Endpoint').fill('ops@example.com');
    await page.getByRole('checkbox', { name: 'asset_bank.media.create' }).press('Space');
    await page.getByRole('checkbox', { name: 'workflow.job.create' }).press('Space');
    await page.getByRole('button', { name: 'Create subscription' }).press('Enter');

    await statusSays('Subscription created. (Hooks)');
    const cells = await row('Hooks').getByRole('cell').allTextContents();
    expect(cells.slice(0, 4)).toEqual(['emailops@example.com', 'asset_bank.media.createworkflow.job.create', 'Active', 'Pending confirmation']);
    expect(await listed()).toEqual([
      expect.objectContaining({ name: 'Hooks', status: 1, events: ['asset_bank.media.create', 'workflow.job.create'] }),
    ]);
  });

  step('renames it in a dialog', async () => {
    await row('Hooks').getByRole('button', { name: 'Rename: Hooks' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rename subscription' });
    await dialog.getByLabel('New name').fill('Media hooks');
    await dialog.getByRole('button', { name: 'Save name' }).press('Enter');

    await statusSays('Subscription renamed. (Hooks)');
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

  step('is refused a test event while its endpoint has not confirmed, and says why', async () => {
    await row('Media hooks').getByRole('button', { name: 'Send test: Media hooks' }).press('Enter');

    // Nothing would arrive: the service answers 400 ENDPOINT_NOT_CONFIRMED, and the page shows its message.
    await page.locator('#page-error').filter({ hasText: /has not confirmed it yet, so nothing would arrive/ }).waitFor();
  });

  step('resends the confirmation request of its pending endpoint; once followed, shows it confirmed, without the button', async () => {
    const { deliveries } = (await (await fetch(`${local.stack.sns.endpoint}/_emulator/deliveries`)).json()) as {
      deliveries: { subscriptionArn: string; endpoint: string }[];
    };
    const subscriptionArn = deliveries.find((delivery) => delivery.endpoint === 'ops@example.com')!.subscriptionArn;
    expect(await confirmationRequestsTo(subscriptionArn, local.stack.sns.endpoint)).toHaveLength(1);

    await row('Media hooks').getByRole('button', { name: 'Resend confirmation: Media hooks' }).press('Enter');

    await statusSays('Confirmation requested: SNS sent the endpoint a new confirmation request. (Media hooks)');
    expect(await confirmationRequestsTo(subscriptionArn, local.stack.sns.endpoint)).toHaveLength(2);
    expect(await row('Media hooks').getByRole('cell').nth(3).textContent()).toBe('Pending confirmation');

    await confirmAsEndpointOwner(subscriptionArn, local.stack.sns.endpoint);
    await page.getByRole('button', { name: 'Refresh the list' }).press('Enter');
    await row('Media hooks').getByRole('cell', { name: 'Confirmed', exact: true }).waitFor();
    expect(await row('Media hooks').getByRole('button', { name: 'Resend confirmation: Media hooks' }).count()).toBe(0);
  });

  step('shows the reason of a refused create next to the field it names', async () => {
    const refused = { name: 'Broken', protocol: 'https', endpoint: 'ftp://hooks.example.com/in', events: ['asset_bank.media.create'] };
    const direct = await call(local.stack, 'POST', PREFIX, { token, body: refused });
    expect(direct.status).toBe(400);
    const serviceMessage: string =
      direct.body.errors?.find((error: { field: string }) => error.field === 'endpoint')?.message ?? direct.body.message.replace(/^endpoint: /, '');
    expect(serviceMessage).toMatch(/https:\/\//);

    await page.getByLabel('Name', { exact: true }).fill(refused.name);
    await page.getByLabel('Protocol').selectOption(refused.protocol);
    await page.getByLabel('Endpoint').fill(refused.endpoint);
    await page.getByRole('checkbox', { name: 'asset_bank.media.create' }).press('Space');
    await page.getByRole('button', { name: 'Create subscription' }).press('Enter');

    const endpointError = page.locator('#create-endpoint-error');
    await endpointError.waitFor();
    expect(await endpointError.textContent()).toBe(serviceMessage);
    const endpoint = page.getByLabel('Endpoint');
    expect(await endpoint.getAttribute('aria-invalid')).toBe('true');
    expect(await focusedElement()).toBe('create-endpoint');
    // Read out with the field: the error is part of its description.
    expect(await endpoint.getAttribute('aria-describedby')).toContain('create-endpoint-error');
    expect((await listed()).map((subscription) => subscription.name)).toEqual(['Media hooks']);

    if (process.env.UPDATE_SCREENSHOTS === '1') await saveScreenshot(page, DOCS_SCREENSHOT);
  });

  step('deletes it after a confirmation', async () => {
    await row('Media hooks').getByRole('button', { name: 'Delete: Media hooks' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete subscription?' });
    expect(await dialog.textContent()).toContain('"Media hooks" (email ops@example.com) and its SNS topic will be deleted');
    await dialog.getByRole('button', { name: 'Delete' }).press('Enter');

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
