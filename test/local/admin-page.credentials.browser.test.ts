/**
 * An endpoint's password on the local stack, as a person at the admin page and a read-only client
 * would come across it: created through the page's form, the list (to a read-only token too), the
 * page's table and its delete dialog show `user:****@`, and nothing the page holds shows the
 * password. The page is only as safe as the API's answers: this suite holds the whole path.
 */
import type { Browser, Page } from 'playwright-core';
import { API_PREFIXES } from '../../shared/operations';
import { chromiumPath, launchChromium, withFailureScreenshot } from '../support/browser';
import { call, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';

const PREFIX = API_PREFIXES[0];
const PASSWORD = 'Adm1n-page-s3cret';
const ENDPOINT = `https://hook-user:${PASSWORD}@127.0.0.1:9/hooks`;
const MASKED = 'https://hook-user:****@127.0.0.1:9/hooks';

// Runs only where Debian's chromium is installed, and says so in one line where it is not.
const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('admin page credentials suite not run: chromium is not installed (apt-get install chromium).');

let local: TestStack;
let browser: Browser;
let page: Page;

describeWithChromium('an endpoint password on the admin page', () => {
  beforeAll(async () => {
    local = await startTestStack();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await local?.stop();
  });

  it('is shown masked in the table and the delete dialog, and listed masked to a read-only client', () =>
    withFailureScreenshot(page, 'credentials-on-the-admin-page', async () => {
      const admin = TEST_CLIENTS.alphaAdmin;
      await page.goto(local.stack.adminUrl);
      await page.locator('body[data-ready="true"]').waitFor();
      await page.getByLabel('Client id').fill(admin.clientId);
      await page.getByLabel('Client secret').fill(admin.clientSecret);
      await page.getByRole('button', { name: 'Sign in', exact: true }).press('Enter');
      await page.getByRole('status').filter({ hasText: 'Signed in.' }).waitFor();

      await page.getByLabel('Name', { exact: true }).fill('With password');
      await page.getByLabel('Protocol').selectOption('https');
      await page.getByLabel('Endpoint').fill(ENDPOINT);
      await page.getByRole('checkbox', { name: 'asset_bank.media.create' }).press('Space');
      await page.getByRole('button', { name: 'Create subscription' }).press('Enter');
      await page.getByRole('status').filter({ hasText: 'Subscription created. (With password)' }).waitFor();

      const row = page.getByRole('row', { name: /^With password / });
      expect(await row.getByRole('cell').first().textContent()).toBe(`https${MASKED}`);
      await row.getByRole('button', { name: 'Delete: With password' }).press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Delete subscription?' });
      expect(await dialog.textContent()).toContain(`(https ${MASKED}, id `);
      // Nothing the page shows or holds, the form's field aside, names the password.
      expect(await page.locator('body').innerText()).not.toContain(PASSWORD);
      expect(await page.content()).not.toContain(PASSWORD);

      const reader = await tokenFor(local.stack, TEST_CLIENTS.alphaReader);
      const listed = await call(local.stack, 'GET', `${PREFIX}/list`, { token: reader });
      expect(listed.status).toBe(200);
      expect(listed.body.configs.map((entry: { endpoint: string }) => entry.endpoint)).toEqual([MASKED]);
      expect(JSON.stringify(listed.body)).not.toContain(PASSWORD);
    }),
  120_000);
});
