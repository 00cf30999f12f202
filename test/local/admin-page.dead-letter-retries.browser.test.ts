/**
 * The admin page's failed deliveries show each one's scheduled retries, as GET /dead-letters gives
 * them: how many its event had (`retries`) and when the next is due (`nextRetryAt`), or that none
 * is. On the local stack in Chromium, with a schedule of one retry after a second and the next
 * after an hour (DELIVERY_RETRY_SCHEDULE=1s,1h), to an endpoint that refuses everything: its dead
 * letter is retried once and waits for the next; sent again by hand and refused again, it has
 * none scheduled.
 */
import type { Browser, Page } from 'playwright-core';
import { API_PREFIXES } from '../../shared/operations';
import { chromiumPath, launchChromium, withFailureScreenshot } from '../support/browser';
import { call, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { setSuiteSettings } from '../support/suite-settings';

const PREFIX = API_PREFIXES[0];
const admin = TEST_CLIENTS.alphaAdmin;
const REFUSING_PATH = '/refuses-everything';

// Read by the handlers when the stack imports them (in beforeAll); given back after the suite.
const SETTINGS = { DELIVERY_RETRY_SCHEDULE: '1s,1h' };
const restoreSettings = setSuiteSettings(SETTINGS);

// Runs only where Debian's chromium is installed, and says so in one line where it is not.
const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('admin page dead-letter retries suite not run: chromium is not installed (apt-get install chromium).');

let local: TestStack;
let browser: Browser;
let page: Page;
let token: string;
let receiver: WebhookReceiver;

interface DeadLetterView {
  eventId: string;
  event: string;
  occurredAt: string;
  failedAt: string;
  messageId: string;
  retries: number;
  nextRetryAt: string | null;
}

/** The subscription's dead letters as the API lists them (one page is all this suite makes). */
async function deadLettersOf(configId: string): Promise<DeadLetterView[]> {
  const answer = await call(local.stack, 'GET', `${PREFIX}/dead-letters?config_id=${configId}`, { token });
  expect(answer.status).toBe(200);
  return answer.body.deadLetters;
}

/** Waits until the subscription's one dead letter is as `wanted` says. */
function oneDeadLetter(configId: string, what: string, wanted: (letter: DeadLetterView) => boolean): Promise<DeadLetterView> {
  return waitFor(
    what,
    async () => {
      const letters = await deadLettersOf(configId);
      return letters.length === 1 && wanted(letters[0]!) ? letters[0] : undefined;
    },
    30_000,
    200,
  );
}

/** A time as the page shows it. */
const utc = (time: string) => `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** Opens the failed deliveries of the subscription anew (each opening reads them from the API). */
async function showFailedDeliveries(name: string) {
  const panel = page.getByRole('region', { name: new RegExp(`^Failed deliveries of ${name}`) });
  if (await panel.isVisible()) {
    await panel.getByRole('button', { name: 'Close' }).press('Enter');
    await panel.waitFor({ state: 'hidden' });
  }
  await page.getByRole('row', { name: new RegExp(`^${name} `) }).getByRole('button', { name: `Show them: ${name}` }).press('Enter');
  await panel.getByRole('rowheader').first().waitFor();
  return panel;
}

describeWithChromium('the scheduled retries of a failed delivery on the admin page', () => {
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    local = await startTestStack({ snsDelivery: { deliveryBackoffMs: 5 } });
    token = await tokenFor(local.stack, admin);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await local?.stop();
    restoreSettings();
  });

  let configId: string;

  it('shows how many scheduled retries a failed delivery had and when the next is due', () =>
    withFailureScreenshot(page, 'dead-letter-retries-next', async () => {
      // A 4xx is not retried by SNS: each delivery becomes a dead letter at once.
      receiver.statusOf.set(REFUSING_PATH, 400);
      const created = await call(local.stack, 'POST', PREFIX, {
        token,
        body: { name: 'Refusing', protocol: 'http', endpoint: `${receiver.url}${REFUSING_PATH}`, events: ['asset_bank.media.create'] },
      });
      expect(created.status).toBe(200);
      configId = created.body.record.configId;
      await waitFor('the endpoint to confirm', async () =>
        (await call(local.stack, 'GET', `${PREFIX}/list`, { token })).body.configs.find(
          (entry: { configId: string; confirmed: boolean }) => entry.configId === configId && entry.confirmed,
        ),
      );
      expect((await call(local.stack, 'POST', `${PREFIX}/test`, { token, body: { config_id: configId } })).status).toBe(200);
      // The first retry (after 1 s) is refused too: the letter is back, its next retry an hour on.
      const retried = await oneDeadLetter(configId, 'the dead letter retried once', (letter) => letter.retries === 1 && letter.nextRetryAt !== null);

      await page.goto(local.stack.adminUrl);
      await page.locator('body[data-ready="true"]').waitFor();
      await page.getByLabel('Client id').fill(admin.clientId);
      await page.getByLabel('Client secret').fill(admin.clientSecret);
      await page.getByRole('button', { name: 'Sign in', exact: true }).press('Enter');
      await page.getByRole('status').filter({ hasText: 'Signed in. 1 subscription.' }).waitFor();
      const panel = await showFailedDeliveries('Refusing');

      expect(await panel.getByRole('columnheader').allTextContents()).toEqual(['Event id', 'Event', 'Occurred', 'Failed', 'Scheduled retries', 'Actions']);
      const cells = panel.getByRole('row').nth(1).getByRole('cell');
      expect(await cells.allTextContents()).toEqual([
        retried.event,
        utc(retried.occurredAt),
        utc(retried.failedAt),
        `Retried 1 timenext ${utc(retried.nextRetryAt!)}`,
        'Send again',
      ]);
      // Named on a narrow screen, where the cells stack.
      expect(await cells.nth(3).getAttribute('data-label')).toBe('Scheduled retries');
    }),
  90_000);

  it('says none is scheduled once it was sent again by hand and refused again', () =>
    withFailureScreenshot(page, 'dead-letter-retries-none', async () => {
      const [kept] = await deadLettersOf(configId);
      const panel = page.locator('#dead-letters');
      await panel.getByRole('button', { name: `Send again: ${kept!.event} ${kept!.eventId}` }).press('Enter');
      await page.getByRole('status').filter({ hasText: '(Refusing)' }).waitFor();
      // A replay ends the schedule: refused again, the letter is back with none.
      const again = await oneDeadLetter(configId, 'the replayed letter back', (letter) => letter.messageId !== kept!.messageId);
      expect(again).toMatchObject({ eventId: kept!.eventId, retries: 1, nextRetryAt: null });

      // The page read the list when the replay answered, before the letter was back: refreshed, it shows it.
      await page.getByRole('button', { name: 'Refresh the list' }).press('Enter');
      await page.getByRole('row', { name: /^Refusing / }).getByRole('button', { name: 'Show them: Refusing' }).waitFor();
      await showFailedDeliveries('Refusing');
      expect(await panel.getByRole('row').nth(1).getByRole('cell').nth(3).textContent()).toBe('Retried 1 timenone scheduled');
    }),
  90_000);
});
