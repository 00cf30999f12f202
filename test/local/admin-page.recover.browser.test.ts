/**
 * "Recover since" on the admin page, end to end on the local stack in Chromium, with the keyboard:
 * an endpoint fails for a while, then recovers; from the subscription's Messages panel the admin
 * recovers the failed messages since the outage began (UTC, to the minute). The endpoint gets
 * exactly the events it missed, oldest first, once each; the status area names the recovery; the
 * Recoveries list, refreshed, reaches Done with its counts. The page sent an Idempotency-Key: the
 * same request again, key and all, starts nothing more. axe-core finds nothing in the panel.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Browser, Page } from 'playwright-core';
import { API_PREFIXES } from '../../shared/operations';
import { chromiumPath, launchChromium, withFailureScreenshot } from '../support/browser';
import { call, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { confirmedSubscription, eventsClientOf, messagesKept, putMediaEvents } from '../support/message-log';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const PREFIX = API_PREFIXES[0];
const admin = TEST_CLIENTS.alphaAdmin;
const PATH = '/recovering';
const NAME = 'Recovering';
const MISSED = 4;
const AXE_SOURCE = readFileSync(fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');

// Runs only where Debian's chromium is installed, and says so in one line where it is not.
const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('admin page recover suite not run: chromium is not installed (apt-get install chromium).');

let local: TestStack;
let browser: Browser;
let page: Page;
let token: string;
let receiver: WebhookReceiver;
let events: EventBridgeClient;

/** The eventIds of the notifications that arrived at the endpoint, from the `from`-th on. */
const eventIdsArrived = (from = 0) => receiver.notificationsAt(PATH).slice(from).map((entry) => String(entry.message?.eventId));
const statusSays = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();
/** A time as a datetime-local field holds it (to the minute), in UTC, as the page reads it. */
const minuteOf = (time: string) => time.slice(0, 16);

async function axeViolations(): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<{ id: string; nodes: { target: string[] }[] }[]>('axe.run(document).then((result) => result.violations)');
  return violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

describeWithChromium('Recover since, on the admin page', () => {
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // No scheduled retry of the dead letters meanwhile: the recovery alone sends them again.
    local = await startTestStack({ snsDelivery: { deliveryBackoffMs: 5 }, retrySweepIntervalMs: 3_600_000 });
    token = await tokenFor(local.stack, admin);
    events = eventsClientOf(local);
    browser = await launchChromium();
    // axe-core is put into the page by the test: the page's own CSP would refuse it, rightly.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    events?.destroy();
    await receiver?.close();
    await local?.stop();
  });

  it('sends an endpoint that failed for a while exactly what it missed, once each, and lists the recovery as done', () =>
    withFailureScreenshot(page, 'recover-since', async () => {
      const configId = await confirmedSubscription(local, token, NAME, `${receiver.url}${PATH}`);
      await putMediaEvents(local, events, admin.portalId, [{ n: 1 }]);
      await messagesKept(local, token, configId, 1, (message) => message.status === 'delivered');

      // The outage: every delivery refused until SNS gives up on it.
      const outageStart = new Date().toISOString();
      receiver.failingPaths.add(PATH);
      await putMediaEvents(local, events, admin.portalId, Array.from({ length: MISSED }, (_, index) => ({ n: 2 + index })));
      const failed = await messagesKept(local, token, configId, MISSED, () => true, 'failed');
      // The log's order (sentAt) is the recovery's: oldest first.
      const missedOldestFirst = failed.map((message) => message.eventId).reverse();
      receiver.failingPaths.delete(PATH);
      await putMediaEvents(local, events, admin.portalId, [{ n: 2 + MISSED }]);
      await messagesKept(local, token, configId, 2 + MISSED, (message) => message.status !== 'pending');
      const arrivedBefore = receiver.notificationsAt(PATH).length;

      await page.goto(local.stack.adminUrl);
      await page.locator('body[data-ready="true"]').waitFor();
      await page.getByLabel('Client id').fill(admin.clientId);
      await page.getByLabel('Client secret').fill(admin.clientSecret);
      await page.getByRole('button', { name: 'Sign in', exact: true }).press('Enter');
      await statusSays('Signed in. 1 subscription.');
      await page.getByRole('row', { name: new RegExp(`^${NAME} `) }).getByRole('button', { name: `Show messages: ${NAME}` }).press('Enter');
      const panel = page.getByRole('region', { name: new RegExp(`^Messages of ${NAME}`) });
      await panel.waitFor();
      expect(await panel.getByRole('heading', { name: 'Recover since' }).isVisible()).toBe(true);
      expect(await page.locator('#recoveries-summary').textContent()).toBe('No recovery was asked for yet.');
      expect(await axeViolations()).toEqual([]);

      await panel.getByLabel('Since (UTC)').fill(minuteOf(outageStart));
      await panel.getByLabel('Messages to send again').selectOption('failed');
      const sent = page.waitForRequest((request) => new URL(request.url()).pathname.endsWith('/recover'));
      await panel.getByRole('button', { name: 'Recover since' }).press('Enter');
      const request = await sent;
      const idempotencyKey = request.headers()['idempotency-key'];
      expect(idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(request.postDataJSON()).toEqual({ config_id: configId, since: `${minuteOf(outageStart)}:00.000Z`, status: 'failed' });
      await statusSays(new RegExp(`\\(${NAME}, recovery [^:]+: running\\)$`));
      const recoveryId = /recovery ([^:]+): running\)$/.exec((await page.getByRole('status').textContent())!)![1]!;

      // The Recoveries list, refreshed from the keyboard until the recovery is done (bounded).
      const row = page.locator('#recovery-rows tr').filter({ hasText: recoveryId });
      await waitFor(
        'the recovery listed as done',
        async () => {
          await page.getByRole('button', { name: 'Refresh recoveries' }).press('Enter');
          await statusSays(`Recoveries of ${NAME} read again.`);
          return (await row.getByRole('cell').nth(2).textContent())?.startsWith('Done') ? true : undefined;
        },
        30_000,
        300,
      );
      expect(await page.locator('#recovery-rows tr').count()).toBe(1);
      const cells = await row.getByRole('cell').allTextContents();
      expect(cells[1]).toBe('Failed only');
      expect(cells.slice(3)).toEqual([String(MISSED), String(MISSED), '0']);

      // Exactly what it missed, oldest first, once each.
      await waitFor('the recovered events at the endpoint', () => (eventIdsArrived(arrivedBefore).length >= MISSED ? true : undefined));
      expect(eventIdsArrived(arrivedBefore)).toEqual(missedOldestFirst);

      // The page's request again, its key and all: the same recovery, nothing more sent.
      const repeat = await call(local.stack, 'POST', `${PREFIX}/recover`, {
        token,
        body: request.postDataJSON(),
        headers: { 'Idempotency-Key': idempotencyKey! },
      });
      expect([repeat.status, repeat.body.recoveryId]).toEqual([202, recoveryId]);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(eventIdsArrived(arrivedBefore)).toEqual(missedOldestFirst);
      expect(await axeViolations()).toEqual([]);
    }),
  120_000);

  it('shows the service\'s refusal of a time older than the log keeps next to the field, and starts nothing', () =>
    withFailureScreenshot(page, 'recover-since-refused', async () => {
      const panel = page.locator('#message-log');
      const tooOld = new Date(Date.now() - 400 * 86_400_000).toISOString();
      await panel.getByLabel('Since (UTC)').fill(minuteOf(tooOld));
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/recover'));
      await panel.getByRole('button', { name: 'Recover since' }).press('Enter');
      const refusal = await (await answered).json();
      expect(refusal.code).toBe('WINDOW_NOT_KEPT');
      // Next to the field it is about, its times as the page writes them, the field marked and focused.
      const readable = String(refusal.message).replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, (iso) => `${iso.slice(0, 16).replace('T', ' ')} UTC`);
      await page.locator('#recover-since-error').filter({ hasText: readable }).waitFor();
      expect(await panel.getByLabel('Since (UTC)').getAttribute('aria-invalid')).toBe('true');
      expect(await page.evaluate('document.activeElement.id')).toBe('recover-since');
      expect(await page.locator('#recover-form-error').isVisible()).toBe(false);
      expect(await page.locator('#recovery-rows tr').count()).toBe(1);
    }),
  60_000);
});
