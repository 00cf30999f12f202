/**
 * The admin page suite's browser and stack (test/local/admin-page.browser.test.ts, whose later
 * steps are in admin-page.form-and-list.steps.ts and admin-page.deliveries.steps.ts), and what its steps read: the page as the
 * person sees it (rows, the status and error lines, what is in view, what breaks or sticks out)
 * and the API's answers to compare it with (the portal's subscriptions and dead letters).
 *
 * `local`, `page`, `token` and `receiver` are set by the beforeAll that startAdminPageBeforeAll()
 * adds to the calling describe.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { loadConfig } from '../../shared/config';
import { API_PREFIXES } from '../../shared/operations';
import { launchChromium, withFailureScreenshot } from './browser';
import { call, newSubscription, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from './local-stack-client';
import { waitFor } from './wait-for';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

export const PREFIX = API_PREFIXES[0];
export const admin = TEST_CLIENTS.alphaAdmin;
export const reader = TEST_CLIENTS.alphaReader;
export const MAX_SUBSCRIPTIONS = loadConfig(process.env).maxSubscriptionsPerPortal;

export let local: TestStack;
let browser: Browser;
export let page: Page;
export let token: string;
export let receiver: WebhookReceiver;

/** Starts the stack, a receiver and Chromium (one page) before the describe's steps; stops them after. */
export function startAdminPageBeforeAll(): void {
  beforeAll(async () => {
    // A receiver answering 500 is retried by the delivery policy: 5 ms apart here, not seconds.
    local = await startTestStack({ snsDelivery: { deliveryBackoffMs: 5 } });
    receiver = await startWebhookReceiver();
    token = await tokenFor(local.stack, admin);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await local?.stop();
  });
}

/** A step of the scenario: a test that saves a screenshot of the page when it fails. */
export const step = (name: string, steps: () => Promise<void>) => it(name, () => withFailureScreenshot(page, name, steps), 30_000);

export interface Listed {
  configId: string;
  name: string;
  status: number;
  events: string[];
}

/** The portal's subscriptions as the API lists them. */
export async function listed(): Promise<Listed[]> {
  const answer = await call(local.stack, 'GET', `${PREFIX}/list`, { token });
  expect(answer.status).toBe(200);
  return answer.body.configs;
}

export const row = (name: string): Locator => page.getByRole('row', { name: new RegExp(`^${name} `) });
export const statusText = () => page.getByRole('status').textContent();
/** The focused element's id, or else its aria-label. */
export const focusedElement = () => page.evaluate<string>('document.activeElement.id || document.activeElement.getAttribute("aria-label")');

/** Waits until the status line says `text` (the page announces each outcome there). */
export async function statusSays(text: string | RegExp): Promise<void> {
  await page.getByRole('status').filter({ hasText: text }).waitFor();
}

/** Waits until the page's error line says `text`. */
export async function alertSays(text: string | RegExp): Promise<void> {
  await page.locator('#page-error').filter({ hasText: text }).waitFor();
}

/** Whether the element is wholly inside the window as the person sees it now (not scrolled out of view). */
export async function inView(selector: string): Promise<boolean> {
  return page.evaluate<boolean>(`(() => {
    const box = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
  })()`);
}

/** Scrolls to the foot of the page (where the create form is), and answers how far down that is. */
export const scrollToFoot = () => page.evaluate<number>('(() => { window.scrollTo(0, document.documentElement.scrollHeight); return window.scrollY; })()');

/**
 * Run in the page: the parts of an endpoint (between the line-break opportunities the page puts
 * after its separators) and the dates and clocks of the times of the subscriptions' table that do not sit on one line.
 */
export const BROKEN_TOKENS = `(() => {
  const broken = [];
  const lines = (node) => { const range = document.createRange(); range.selectNodeContents(node); return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size; };
  for (const endpoint of document.querySelectorAll('#subscription-rows .endpoint')) {
    for (const part of endpoint.childNodes) if (part.nodeType === Node.TEXT_NODE && lines(part) > 1) broken.push(part.textContent);
  }
  for (const part of document.querySelectorAll('#subscription-rows time > span')) if (lines(part) > 1) broken.push(part.textContent);
  return broken;
})()`;

/** A time as the page shows it. */
export const utc = (time: string | number) => `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** How the page names a subscription's id and creation: its id's last 8 characters, and the UUIDv7's time. */
export function idAndCreation(configId: string): string {
  return `id …${configId.slice(-8)}, created ${utc(Number.parseInt(configId.replaceAll('-', '').slice(0, 12), 16))}`;
}

/**
 * Run in the page: what sticks out sideways. The page must not scroll sideways, and no element of a
 * shown section may reach past that section's edges (a string: the suite's types know no DOM).
 */
export const OVERFLOW_CHECK = `(() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) problems.push('the page scrolls sideways: ' + root.scrollWidth + ' > ' + root.clientWidth);
  for (const section of document.querySelectorAll('section:not([hidden])')) {
    const card = section.getBoundingClientRect();
    for (const inside of section.querySelectorAll('*')) {
      const box = inside.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < card.left - 0.5 || box.right > card.right + 0.5) {
        problems.push(inside.tagName.toLowerCase() + ' "' + (inside.textContent || '').slice(0, 30) + '" spans ' +
          Math.round(box.left) + '-' + Math.round(box.right) + ', outside #' + section.id + ' ' + Math.round(card.left) + '-' + Math.round(card.right));
      }
    }
  }
  return problems;
})()`;

/** The SNS subscription of an endpoint, from what the emulator sent it (list answers carry no ARN). */
export async function subscriptionArnOf(endpoint: string): Promise<string> {
  const { deliveries } = (await (await fetch(`${local.stack.sns.endpoint}/_emulator/deliveries`)).json()) as {
    deliveries: { subscriptionArn: string; endpoint: string }[];
  };
  return deliveries.find((delivery) => delivery.endpoint === endpoint)!.subscriptionArn;
}

export interface DeadLetterView {
  eventId: string;
  event: string;
  occurredAt: string;
  failedAt: string;
}

/** Every dead letter the API keeps for the subscription, newest first (paged through, bounded). */
export async function deadLettersOf(configId: string): Promise<DeadLetterView[]> {
  const all: DeadLetterView[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const query: string = new URLSearchParams({ config_id: configId, limit: '100', ...(cursor ? { cursor } : {}) }).toString();
    const answer = await call(local.stack, 'GET', `${PREFIX}/dead-letters?${query}`, { token });
    expect(answer.status).toBe(200);
    all.push(...answer.body.deadLetters);
    cursor = answer.body.nextCursor;
    if (!cursor) break;
  }
  return all;
}

/**
 * Waits until the API keeps `count` dead letters for the subscription: the SNS emulator gives up
 * on a delivery, its delivery dead-letter queue hands it to the recorder, as on AWS.
 */
export async function deadLettersKept(configId: string, count: number): Promise<DeadLetterView[]> {
  return waitFor(
    `${count} dead letters of ${configId}`,
    async () => {
      const kept = await deadLettersOf(configId);
      return kept.length === count ? kept : undefined;
    },
    20_000,
    100,
  );
}

/** Creates a subscription through the API, as another client of the portal would. */
export async function createdElsewhere(overrides: Record<string, unknown> = {}): Promise<string> {
  const answer = await call(local.stack, 'POST', PREFIX, { token, body: newSubscription(overrides) });
  // The body too, so a refusal says why.
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200 });
  return answer.body.record.configId;
}

export async function deletedElsewhere(configId: string): Promise<void> {
  expect((await call(local.stack, 'DELETE', `${PREFIX}/${configId}`, { token })).status).toBe(200);
}

/** Refreshes the page's list and waits until it shows `count` subscriptions. */
export async function refreshList(count: number): Promise<void> {
  // The count may already read `count` from the last list: wait for this refresh's own answer too.
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/list'));
  await page.getByRole('button', { name: 'Refresh the list' }).press('Enter');
  await answered;
  await page.locator('#subscription-count').filter({ hasText: `${count} of ${MAX_SUBSCRIPTIONS} subscriptions` }).waitFor();
}
