/**
 * The admin page at laptop and desktop widths, with the rows a portal in use has: long names and
 * endpoints, several events, delivery history (last delivered and failed, 24-hour counts), failed
 * deliveries, a pending endpoint and one the service disabled. From 1024 to 1920 px nothing scrolls
 * sideways and every action of every row is in the window; the message bar covers nothing once a
 * panel opens; the Messages panel's long bodies wrap inside it; axe-core finds nothing in any view. `UPDATE_SCREENSHOTS=1` also saves
 * docs/admin-page.png, the picture in docs/local.md, from this page at 1280 x 900.
 *
 * The delivery history is laid onto the service's real list answer (SNS's logs of a day of
 * deliveries are not what this suite is about; admin-page.browser.test.ts makes real ones).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { OVERFLOW_CHECK } from '../support/admin-page';
import { chromiumPath, launchChromium, saveScreenshot, withFailureScreenshot } from '../support/browser';
import { call, newSubscription, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { API_PREFIXES } from '../../shared/operations';

const PREFIX = API_PREFIXES[0];
const WIDTHS = [1024, 1152, 1280, 1366, 1440, 1600, 1920];
const DOCS_PICTURE = fileURLToPath(new URL('../../docs/admin-page.png', import.meta.url));
const AXE_SOURCE = readFileSync(fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');
const { alphaAdmin } = TEST_CLIENTS;

const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('admin page layout suite not run: chromium is not installed (apt-get install chromium).');

const SUBSCRIPTIONS = [
  { name: 'Media pipeline (production)', protocol: 'https', endpoint: 'https://hooks.media-pipeline.example.com/portal-events/asset-bank?tenant=portal-alpha&source=webhooks', events: ['asset_bank.media.create', 'asset_bank.media.updated', 'asset_bank.media.meta_updated', 'asset_bank.media.pre_archived'] },
  { name: 'Archive sync', protocol: 'https', endpoint: 'https://archive.partner-integration.example.net/api/v2/webhooks/receive', events: ['asset_bank.media.archived', 'asset_bank.media.deleted'] },
  { name: 'Workflow jobs', protocol: 'https', endpoint: 'https://jobs.example.org/hooks/workflow', events: ['workflow.job.create', 'antivirus.scan.failed'] },
  { name: 'Ops mailbox', protocol: 'email', endpoint: 'webhook-operations@example.com', events: ['antivirus.scan.failed'] },
];

/** What a day of deliveries leaves on a list entry (the fields of GET /list). */
function withHistory(config: Record<string, unknown>, index: number): Record<string, unknown> {
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
  if (config.protocol === 'email') return config;
  const history = {
    subscriptionState: 'confirmed',
    lastDeliveredAt: hoursAgo(0.2 + index),
    lastFailedAt: hoursAgo(1.5 + index),
    deliveredLast24h: 1284 - index * 300,
    failedLast24h: 37 + index,
    deadLetters: 12 + index,
    lastDeadLetterAt: hoursAgo(2 + index),
  };
  // The third one the service disabled for failing.
  return index === 2 ? { ...config, ...history, status: 0, disabledReason: 'failing', disabledAt: hoursAgo(3) } : { ...config, ...history };
}

/** Messages as GET /messages gives them, one per delivery state, with long bodies: a URL with no break, and many fields. */
function loggedMessages(configId: string): Record<string, unknown>[] {
  const states = ['pending', 'delivered', 'failed', 'dead-lettered'];
  return states.map((status, index) => {
    const eventId = `0b6f1c2e-3d4a-4b5c-8d9e-${String(index).padStart(12, '0')}`;
    const sentAt = new Date(Date.now() - (index + 1) * 600_000).toISOString();
    return {
      eventId,
      event: 'asset_bank.media.updated',
      occurredAt: sentAt,
      sentAt,
      status,
      attempts: status === 'pending' ? 0 : 3,
      lastAttemptAt: status === 'pending' ? null : sentAt,
      statusCode: status === 'delivered' ? 200 : status === 'pending' ? null : 503,
      messageId: `5a3d2c1b-0f9e-4d8c-b7a6-${String(index).padStart(12, '0')}`,
      body: {
        event: 'asset_bank.media.updated',
        portalId: 'portal-alpha',
        configId,
        occurredAt: sentAt,
        eventId,
        data: {
          mediaId: `m-${index}`,
          downloadUrl: `https://media.example.com/${'a1b2c3d4e5'.repeat(30)}?signature=${'f'.repeat(120)}`,
          tags: Array.from({ length: 12 }, (_, tag) => `tag-${tag}`),
        },
      },
    };
  });
}

describeWithChromium('the admin page at laptop and desktop widths', () => {
  let local: TestStack;
  let browser: Browser;
  let page: Page;
  const step = (name: string, steps: () => Promise<void>) => it(name, () => withFailureScreenshot(page, name, steps), 60_000);
  const statusSays = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();

  async function axeViolations(): Promise<string[]> {
    await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate<{ id: string; nodes: { target: string[] }[] }[]>('axe.run(document).then((result) => result.violations)');
    return violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  }

  beforeAll(async () => {
    local = await startTestStack();
    const token = await tokenFor(local.stack, alphaAdmin);
    for (const subscription of SUBSCRIPTIONS) {
      const created = await call(local.stack, 'POST', PREFIX, { token, body: newSubscription(subscription) });
      expect({ status: created.status, body: created.body }).toMatchObject({ status: 200 });
    }
    browser = await launchChromium();
    // axe-core is put into the page by the test: the page's own CSP would refuse it, rightly.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    await page.route(`**${PREFIX}/list`, async (route) => {
      const response = await route.fetch();
      const answer = await response.json();
      answer.configs = answer.configs.map(withHistory);
      await route.fulfill({ response, json: answer });
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await local?.stop();
  });

  step('finds nothing for axe-core on the sign-in view', async () => {
    await page.goto(local.stack.adminUrl);
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await axeViolations()).toEqual([]);
  });

  step('signs in and lists the rows with their delivery history', async () => {
    await page.getByLabel('Client id').fill(alphaAdmin.clientId);
    await page.getByLabel('Client secret').fill(alphaAdmin.clientSecret);
    await page.getByRole('button', { name: 'Sign in', exact: true }).press('Enter');
    await statusSays(`Signed in. ${SUBSCRIPTIONS.length} subscriptions.`);
    expect(await page.locator('#subscription-rows').getByText('Last delivered').count()).toBe(3);
    expect(await axeViolations()).toEqual([]);
  });

  step('does not scroll sideways, and keeps every action of every row in the window, from 1024 to 1920 px', async () => {
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      problems.push(...(await page.evaluate<string[]>(OVERFLOW_CHECK)).map((problem) => `${width} px: ${problem}`));
      const outside = await page.evaluate<string[]>(`[...document.querySelectorAll('#subscription-rows button')]
        .filter((button) => { const box = button.getBoundingClientRect(); return box.left < 0 || box.right > document.documentElement.clientWidth; })
        .map((button) => button.getAttribute('aria-label'))`);
      problems.push(...outside.map((label) => `${width} px: ${label} is out of view`));
    }
    expect(problems).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  step('opens a panel with nothing pinned over it, and axe-core finds nothing there', async () => {
    // The refresh's own answer first (the status already says something from the sign-in): a list
    // answered after the panel opened would write its message over the emptied bar.
    const answered = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/list'));
    await page.getByRole('button', { name: 'Refresh the list' }).press('Enter');
    await answered;
    await statusSays(`${SUBSCRIPTIONS.length} subscriptions found.`);
    await page.getByRole('button', { name: /^Show them: Media pipeline/ }).press('Enter');
    await page.locator('#dead-letters:not([hidden])').waitFor();
    const covered = await page.evaluate<boolean>(`(() => {
      const bar = document.getElementById('messages').getBoundingClientRect();
      const heading = document.getElementById('dead-letters-heading').getBoundingClientRect();
      return getComputedStyle(document.getElementById('messages')).position === 'sticky' && bar.bottom > heading.top && bar.top < heading.bottom;
    })()`);
    expect(covered).toBe(false);
    expect(await page.getByRole('status').textContent()).toBe('');
    expect(await axeViolations()).toEqual([]);

    await page.getByRole('button', { name: /^Show deliveries: Archive sync/ }).press('Enter');
    await page.locator('#attempts:not([hidden])').waitFor();
    expect(await axeViolations()).toEqual([]);
  });

  step('opens the Messages panel: its bodies wrap inside it from 1024 to 1920 px, and axe-core finds nothing there', async () => {
    await page.route(`**${PREFIX}/messages?*`, async (route) => {
      const configId = new URL(route.request().url()).searchParams.get('config_id')!;
      await route.fulfill({ json: { success: true, message: '4 messages on this page.', messages: loggedMessages(configId), nextCursor: null } });
    });
    await page.getByRole('button', { name: /^Show messages: Media pipeline/ }).press('Enter');
    await page.locator('#message-log:not([hidden])').waitFor();
    for (const summary of await page.locator('#message-entries summary').all()) await summary.press('Enter');
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      problems.push(...(await page.evaluate<string[]>(OVERFLOW_CHECK)).map((problem) => `${width} px: ${problem}`));
    }
    expect(problems).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await axeViolations()).toEqual([]);
  });

  step('finds nothing for axe-core in the Delete dialog, which opens on the safe choice', async () => {
    await page.getByRole('button', { name: /^Delete: Workflow jobs/ }).press('Enter');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Keep it');
    expect(await axeViolations()).toEqual([]);
    await page.keyboard.press('Escape');
  });

  step('draws a focus ring of at least 3:1 against the cards', async () => {
    const button = page.getByRole('button', { name: 'Refresh the list' });
    await button.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    const [ring, card] = await page.evaluate<[string, string]>(`[getComputedStyle(document.activeElement).outlineColor, getComputedStyle(document.getElementById('subscriptions')).backgroundColor]`);
    const luminance = (color: string) => {
      const [r, g, b] = color.match(/\d+/g)!.slice(0, 3).map((part) => Number(part) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const [lighter, darker] = [luminance(ring), luminance(card)].sort((a, b) => b - a);
    expect((lighter! + 0.05) / (darker! + 0.05)).toBeGreaterThanOrEqual(3);
  });

  step('makes the picture of the page in docs (UPDATE_SCREENSHOTS=1)', async () => {
    for (const close of ['#close-attempts', '#close-dead-letters', '#close-message-log']) if (await page.locator(close).isVisible()) await page.locator(close).press('Enter');
    // No focus ring in the picture: the last Close gave focus back to its row's button.
    await page.evaluate('document.activeElement.blur(); window.scrollTo(0, 0)');
    if (process.env.UPDATE_SCREENSHOTS === '1') await saveScreenshot(page, DOCS_PICTURE);
  });
});
