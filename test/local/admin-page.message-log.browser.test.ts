/**
 * The admin page's Messages panel, on the local stack in Chromium, used with the keyboard: events
 * put on the bus show up newest first with their bodies exactly as the endpoint received them,
 * as text (a body carrying `<img onerror>` and `<script>` makes no element and runs nothing);
 * the delivery state filter keeps what GET /messages keeps; older ones come a page at a time;
 * Resend delivers a message again with its eventId, and says so in the status area; the panel
 * fits a 420 px screen; while the subscription is deactivated, Resend is off and the panel says why.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Browser, Page } from 'playwright-core';
import { API_PREFIXES } from '../../shared/operations';
import { OVERFLOW_CHECK } from '../support/admin-page';
import { chromiumPath, launchChromium, withFailureScreenshot } from '../support/browser';
import { call, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { confirmedSubscription, eventsClientOf, MEDIA_CREATE as CREATE, messagesKept, messagesOf as messagesKeptOf, putMediaEvents } from '../support/message-log';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const PREFIX = API_PREFIXES[0];
const admin = TEST_CLIENTS.alphaAdmin;
const reader = TEST_CLIENTS.alphaReader;
const PATH = '/message-log';
const NAME = 'Logged';
/** Markup a portal event may carry in its data: the page must show it, never make it. */
const HOSTILE = { title: '<img src=x onerror="window.__hostile = 1">', caption: '<script>window.__hostile = 2</script>' };

// Runs only where Debian's chromium is installed, and says so in one line where it is not.
const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('admin page message log suite not run: chromium is not installed (apt-get install chromium).');

let local: TestStack;
let browser: Browser;
let page: Page;
let token: string;
let receiver: WebhookReceiver;
let events: EventBridgeClient;
let configId: string;

const messagesOf = (status?: string) => messagesKeptOf(local, token, configId, status);
const putEvents = (data: Record<string, unknown>[]) => putMediaEvents(local, events, admin.portalId, data);
/** Waits until the subscription's messages are `count`, all delivered (their attempts joined). */
const deliveredMessages = (count: number) => messagesKept(local, token, configId, count, (message) => message.status === 'delivered');

const panel = () => page.getByRole('region', { name: new RegExp(`^Messages of ${NAME}`) });
const entries = () => page.locator('#message-entries > li');
const statusSays = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();
/** A time as the page shows it. */
const utc = (time: string) => `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** Opens the subscription's Messages panel anew (each opening reads them from the API). */
async function showMessages(): Promise<void> {
  if (await panel().isVisible()) {
    await panel().getByRole('button', { name: 'Close' }).press('Enter');
    await panel().waitFor({ state: 'hidden' });
  }
  await page.getByRole('row', { name: new RegExp(`^${NAME} `) }).getByRole('button', { name: `Show messages: ${NAME}` }).press('Enter');
  await panel().waitFor();
}

describeWithChromium('the Messages panel of the admin page', () => {
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    local = await startTestStack({ snsDelivery: { deliveryBackoffMs: 5 } });
    token = await tokenFor(local.stack, admin);
    events = eventsClientOf(local);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    events?.destroy();
    await receiver?.close();
    await local?.stop();
  });

  const step = (name: string, steps: () => Promise<void>) => it(name, () => withFailureScreenshot(page, name, steps), 60_000);

  step('lists the events put on the bus, newest first, with their bodies as the endpoint received them, as text', async () => {
    configId = await confirmedSubscription(local, token, NAME, `${receiver.url}${PATH}`);
    await putEvents([{ mediaId: 'm-1', ...HOSTILE }]);
    await putEvents([{ mediaId: 'm-2' }]);
    const kept = await deliveredMessages(2);
    expect(receiver.notificationsAt(PATH)).toHaveLength(2);

    await page.goto(local.stack.adminUrl);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.getByLabel('Client id').fill(admin.clientId);
    await page.getByLabel('Client secret').fill(admin.clientSecret);
    await page.getByRole('button', { name: 'Sign in', exact: true }).press('Enter');
    await statusSays('Signed in. 1 subscription.');
    await showMessages();
    expect(await page.evaluate('document.activeElement.id')).toBe('message-log-heading');
    expect(await page.locator('#message-log-summary').textContent()).toBe('2 messages shown, newest first.');

    // Newest first, each with its facts, as the API keeps them.
    expect(await entries().count()).toBe(2);
    for (const [index, message] of kept.entries()) {
      const entry = entries().nth(index);
      expect(await entry.locator('.message-head').textContent()).toBe(`Delivered ${CREATE}`);
      expect(await entry.locator('dl').textContent()).toBe(
        `Event id${message.eventId}Occurred${utc(message.occurredAt)}Sent${utc(message.sentAt)}` +
          `Tries${message.attempts}Last try${utc(message.lastAttemptAt!)}Status code200`,
      );
      // The body, opened from the keyboard, is the endpoint's, indented, as text.
      await entry.locator('summary').press('Enter');
      const received = receiver.notificationsAt(PATH).find((notification) => notification.message.eventId === message.eventId)!;
      expect(await entry.locator('pre').textContent()).toBe(JSON.stringify(received.message, null, 2));
      expect(await entry.locator('pre').isVisible()).toBe(true);
    }
    // The hostile body is text: no element was made of it, nothing of it ran.
    const hostile = entries().filter({ hasText: 'm-1' });
    // As JSON writes them: the title's quotes escaped.
    expect(await hostile.locator('pre').textContent()).toContain(`"title": ${JSON.stringify(HOSTILE.title)}`);
    expect(await hostile.locator('pre').textContent()).toContain(`"caption": "${HOSTILE.caption}"`);
    expect(await page.evaluate('document.querySelectorAll("#message-log img, #message-log script, #message-log pre *").length')).toBe(0);
    expect(await page.evaluate('window.__hostile')).toBeUndefined();
  });

  step('keeps the delivery state chosen, as GET /messages does (failed with dead-lettered)', async () => {
    await page.getByLabel('Delivery state').selectOption('failed');
    await page.getByRole('button', { name: 'Show these' }).press('Enter');
    await page.locator('#message-log-summary').filter({ hasText: 'No message in this state is kept.' }).waitFor();
    expect(await messagesOf('failed')).toEqual([]);
    expect(await entries().count()).toBe(0);

    await page.getByLabel('Delivery state').selectOption('delivered');
    await page.getByRole('button', { name: 'Show these' }).press('Enter');
    await page.locator('#message-log-summary').filter({ hasText: '2 messages shown' }).waitFor();
    expect(await entries().count()).toBe((await messagesOf('delivered')).length);
  });

  step('resends one: the endpoint gets it again with the same eventId, and the status area names it', async () => {
    const [, older] = await messagesOf();
    await page.getByRole('button', { name: `Resend: ${CREATE} ${older!.eventId}` }).press('Enter');
    await statusSays(new RegExp(`^Message sent again\\. \\(${NAME}, event ${older!.eventId}, message `));

    const again = await waitFor('the resent message at the endpoint', async () => {
      const arrived = receiver.notificationsAt(PATH).filter((notification) => notification.message.eventId === older!.eventId);
      return arrived.length === 2 ? arrived : undefined;
    });
    expect(again[1]!.message).toEqual(again[0]!.message);
    // The answer's message id is the one SNS gave the new delivery.
    expect(await page.getByRole('status').textContent()).toBe(`Message sent again. (${NAME}, event ${older!.eventId}, message ${again[1]!.envelope.MessageId})`);
    // The panel read the first page again, of every state (the resend is pending until its first
    // try, so "delivered", chosen above, could hide it): the resend is the newest message.
    await page.locator('#message-log-summary').filter({ hasText: '3 messages shown' }).waitFor();
    expect(await page.getByLabel('Delivery state').inputValue()).toBe('');
    expect(await entries().first().locator('dl code').textContent()).toBe(older!.eventId);
    expect(await page.evaluate('document.activeElement.id')).toBe('message-log-heading');
  });

  step('shows older messages a page at a time', async () => {
    await putEvents(Array.from({ length: 20 }, (_, index) => ({ mediaId: `page-${index}` })));
    const kept = await deliveredMessages(23);
    await showMessages();
    await page.locator('#message-log-summary').filter({ hasText: '20 messages shown, newest first; older ones follow.' }).waitFor();
    await page.getByRole('button', { name: 'Show older messages' }).press('Enter');
    await page.locator('#message-log-summary').filter({ hasText: '23 messages shown, newest first.' }).waitFor();
    expect(await page.locator('#message-entries dl code').allTextContents()).toEqual(kept.map((message) => message.eventId));
    expect(await page.getByRole('button', { name: 'Show older messages' }).isVisible()).toBe(false);
    // Focus is on the first of the newly shown messages.
    expect(await page.evaluate('document.activeElement.textContent')).toBe(`Body of ${kept[20]!.eventId}`);
  });

  step('fits a 420 px wide screen, bodies open: nothing wider than its section, no sideways scrolling', async () => {
    for (const summary of await page.locator('#message-entries summary').all()) await summary.press('Enter');
    await page.setViewportSize({ width: 420, height: 900 });
    expect(await page.evaluate<string[]>(OVERFLOW_CHECK)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  step('turns Resend off while the subscription is deactivated, and says why', async () => {
    expect((await call(local.stack, 'PUT', `${PREFIX}/activate`, { token, body: { config_id: configId, status: 0 } })).status).toBe(200);
    await page.getByRole('button', { name: 'Refresh the list' }).press('Enter');
    const note = page.locator('#message-sending-blocked');
    await note.filter({ hasText: 'deactivated' }).waitFor();
    expect(await note.textContent()).toBe(`Sending again is off: "${NAME}" is deactivated, so nothing would be delivered. Activate it first.`);
    const resends = panel().getByRole('button', { name: /^Resend: / });
    expect(await resends.count()).toBe(23);
    expect(await resends.evaluateAll((buttons) => buttons.filter((button) => !(button as unknown as { disabled: boolean }).disabled).length)).toBe(0);
  });

  step('shows a read-only client the messages and their bodies, and nothing that sends', async () => {
    await page.getByRole('button', { name: 'Sign out' }).press('Enter');
    await page.getByLabel('Client id').fill(reader.clientId);
    await page.getByLabel('Client secret').fill(reader.clientSecret);
    await page.getByRole('button', { name: 'Sign in', exact: true }).press('Enter');
    await statusSays('Signed in. 1 subscription.');
    await showMessages();
    await page.locator('#message-log-summary').filter({ hasText: '20 messages shown' }).waitFor();
    expect(await entries().first().locator('pre').textContent()).toContain('"eventId"');
    expect(await panel().getByRole('button', { name: /^Resend/ }).count()).toBe(0);
    expect(await page.locator('#recover-part').isVisible()).toBe(false);
    // Nothing to send, so no reason why sending is off.
    expect(await page.locator('#message-sending-blocked').isVisible()).toBe(false);
  });
});
