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
 * with a pasted token. What the page shows is checked against what the API holds.
 *
 * `UPDATE_SCREENSHOTS=1` also saves docs/admin-page.png (the screenshot in docs/local.md).
 */
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SNSClient, UnsubscribeCommand } from '@aws-sdk/client-sns';
import type { Browser, Locator, Page } from 'playwright-core';
import { LOCAL_CREDENTIALS } from '../../infra/local/local-stack';
import { loadConfig } from '../../shared/config';
import { createSubscriptionRequest } from '../../shared/contract/schemas';
import { API_PREFIXES } from '../../shared/operations';
import { chromiumPath, launchChromium, saveScreenshot, withFailureScreenshot } from '../support/browser';
import { confirmAsEndpointOwner, confirmationRequestsTo } from '../support/sns-confirmation';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import {
  call,
  forgeToken,
  lastConfirmationRequestsMinutesAgo,
  newSubscription,
  reconcileLocally,
  requestToken,
  startTestStack,
  TEST_CLIENTS,
  type TestStack,
  tokenFor,
} from '../support/local-stack-client';

const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/admin-page.png', import.meta.url));
const PREFIX = API_PREFIXES[0];
const admin = TEST_CLIENTS.alphaAdmin;
const reader = TEST_CLIENTS.alphaReader;
const MAX_SUBSCRIPTIONS = loadConfig(process.env).maxSubscriptionsPerPortal;

// Runs only where Debian's chromium is installed, and says so in one line where it is not.
const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('admin page browser suite not run: chromium is not installed (apt-get install chromium).');

let local: TestStack;
let browser: Browser;
let page: Page;
let token: string;
let receiver: WebhookReceiver;

interface Listed {
  configId: string;
  name: string;
  status: number;
  events: string[];
}

/** The portal's subscriptions as the API lists them. */
async function listed(): Promise<Listed[]> {
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

/** Waits until the page's error line says `text`. */
async function alertSays(text: string | RegExp): Promise<void> {
  await page.locator('#page-error').filter({ hasText: text }).waitFor();
}

/** Whether the element is wholly inside the window as the person sees it now (not scrolled out of view). */
async function inView(selector: string): Promise<boolean> {
  return page.evaluate<boolean>(`(() => {
    const box = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
  })()`);
}

/** Scrolls to the foot of the page (where the create form is), and answers how far down that is. */
const scrollToFoot = () => page.evaluate<number>('(() => { window.scrollTo(0, document.documentElement.scrollHeight); return window.scrollY; })()');

/**
 * Run in the page: the parts of an endpoint (between the line-break opportunities the page puts
 * after its separators) and the times of the subscriptions' table that do not sit on one line.
 */
const BROKEN_TOKENS = `(() => {
  const broken = [];
  const lines = (node) => { const range = document.createRange(); range.selectNodeContents(node); return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size; };
  for (const endpoint of document.querySelectorAll('#subscription-rows .endpoint')) {
    for (const part of endpoint.childNodes) if (part.nodeType === Node.TEXT_NODE && lines(part) > 1) broken.push(part.textContent);
  }
  for (const time of document.querySelectorAll('#subscription-rows time')) if (lines(time) > 1) broken.push(time.textContent);
  return broken;
})()`;

/** A time as the page shows it. */
const utc = (time: string | number) => `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** How the page names a subscription's id and creation: its id's last 8 characters, and the UUIDv7's time. */
function idAndCreation(configId: string): string {
  return `id …${configId.slice(-8)}, created ${utc(Number.parseInt(configId.replaceAll('-', '').slice(0, 12), 16))}`;
}

/**
 * Run in the page: what sticks out sideways. The page must not scroll sideways, and no element of a
 * shown section may reach past that section's edges (a string: the suite's types know no DOM).
 */
const OVERFLOW_CHECK = `(() => {
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
async function subscriptionArnOf(endpoint: string): Promise<string> {
  const { deliveries } = (await (await fetch(`${local.stack.sns.endpoint}/_emulator/deliveries`)).json()) as {
    deliveries: { subscriptionArn: string; endpoint: string }[];
  };
  return deliveries.find((delivery) => delivery.endpoint === endpoint)!.subscriptionArn;
}

interface DeadLetterView {
  eventId: string;
  event: string;
  occurredAt: string;
  failedAt: string;
}

/** Every dead letter the API keeps for the subscription, newest first (paged through, bounded). */
async function deadLettersOf(configId: string): Promise<DeadLetterView[]> {
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
async function deadLettersKept(configId: string, count: number): Promise<DeadLetterView[]> {
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
async function createdElsewhere(overrides: Record<string, unknown> = {}): Promise<string> {
  const answer = await call(local.stack, 'POST', PREFIX, { token, body: newSubscription(overrides) });
  // The body too, so a refusal says why.
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200 });
  return answer.body.record.configId;
}

async function deletedElsewhere(configId: string): Promise<void> {
  expect((await call(local.stack, 'DELETE', `${PREFIX}/${configId}`, { token })).status).toBe(200);
}

/** Refreshes the page's list and waits until it shows `count` subscriptions. */
async function refreshList(count: number): Promise<void> {
  await page.getByRole('button', { name: 'Refresh the list' }).press('Enter');
  await page.locator('#subscription-count').filter({ hasText: `${count} of ${MAX_SUBSCRIPTIONS} subscriptions` }).waitFor();
}

describeWithChromium('the admin page, in Chromium with the keyboard', () => {
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
    expect(await page.locator('#subscription-count').textContent()).toBe(`0 of ${MAX_SUBSCRIPTIONS} subscriptions`);
    expect(await page.locator('#read-only-note').isVisible()).toBe(false);
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
      'Not recorded for e-mail',
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
    // No new request within 5 minutes of the first (shared/subscriptions/confirmation-requests.ts).
    await lastConfirmationRequestsMinutesAgo(local.stack, admin.portalId, 6);

    await row('Media hooks').getByRole('button', { name: 'Resend confirmation: Media hooks' }).press('Enter');

    await statusSays('Confirmation requested: SNS sent the endpoint a new confirmation request. (Media hooks)');
    expect(await confirmationRequestsTo(subscriptionArn, local.stack.sns.endpoint)).toHaveLength(2);
    expect(await row('Media hooks').getByRole('cell').nth(3).textContent()).toBe('Pending confirmation');

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
    // One message area: the refresh's success no longer stands above the refusal.
    expect(await statusText()).toBe('');
  });

  step('breaks a long endpoint only between its parts, and a date not at all', async () => {
    const longId = await createdElsewhere({
      name: 'Long endpoint',
      protocol: 'https',
      endpoint: 'https://webhooks.integration-partner.example.invalid/portal-events/asset-bank/media-updates?tenant=portal-alpha&source=admin',
    });
    await refreshList(2);

    expect(await row('Long endpoint').locator('.endpoint').textContent()).toBe(
      'https://webhooks.integration-partner.example.invalid/portal-events/asset-bank/media-updates?tenant=portal-alpha&source=admin',
    );
    // It does wrap (the column is narrower than it), between its parts.
    expect(await row('Long endpoint').locator('.endpoint').evaluate((element) => element.getClientRects().length > 0 && element.getBoundingClientRect().height > 30)).toBe(true);
    expect(await page.evaluate<string[]>(BROKEN_TOKENS)).toEqual([]);

    await deletedElsewhere(longId);
    await refreshList(1);
  });

  step('shows the answer of a create in view when the new row lands far down a long list', async () => {
    const fillers: string[] = [];
    for (let index = 1; index <= 6; index++) fillers.push(await createdElsewhere({ name: `Earlier ${index}` }));
    await refreshList(7);
    await page.getByLabel('Name', { exact: true }).fill('Far down');
    await page.getByLabel('Protocol').selectOption('email');
    await page.getByLabel('Endpoint').fill('far@example.com');
    await page.getByRole('checkbox', { name: 'workflow.job.create' }).press('Space');
    expect(await scrollToFoot()).toBeGreaterThan(0);

    await page.getByRole('button', { name: 'Create subscription' }).press('Enter');

    await statusSays('Subscription created. (Far down)');
    expect(await inView('#status')).toBe(true);
    const created = (await listed()).find((subscription) => subscription.name === 'Far down')!;
    for (const configId of [...fillers, created.configId]) await deletedElsewhere(configId);
    await refreshList(1);
  });

  step('opens docs/receiving.md in a new tab, rendered, and keeps this one signed in', async () => {
    const link = page.getByRole('link', { name: 'docs/receiving.md' });
    expect(await link.getAttribute('target')).toBe('_blank');

    const [opened] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    try {
      await opened.waitForLoadState();
      expect(await opened.getByRole('heading', { level: 1 }).textContent()).toBe('Receiving webhooks');
      expect(await opened.getByRole('table').count()).toBeGreaterThan(0);
      expect(await opened.getByRole('heading', { name: 'What to answer' }).getAttribute('id')).toBe('what-to-answer');
      // Rendered, not shown as markdown (the command blocks aside, whose comments start with #).
      expect(await opened.locator('pre code').count()).toBeGreaterThan(0);
      const prose = await opened.evaluate<string>("[...document.querySelectorAll('main > :not(pre)')].map((element) => element.innerText).join('\\n')");
      expect(prose).not.toMatch(/^#+ |\*\*|\]\(|```/m);
    } finally {
      await opened.close();
    }
    expect(page.url()).toBe(local.stack.adminUrl);
    expect(await page.getByRole('heading', { name: 'Subscriptions', exact: true }).isVisible()).toBe(true);
    expect(await page.locator('#signed-in-as').textContent()).toBe(`Signed in as ${admin.clientId} (portal ${admin.portalId})`);
  });

  step('has a favicon (no 404 in the console)', async () => {
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    const icon = await fetch(new URL(href!, local.stack.adminUrl));
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(await icon.text()).toMatch(/^<svg /);
  });

  step('tells two subscriptions of the same name apart by short id and creation date', async () => {
    const twinId = await createdElsewhere({ name: 'Media hooks' });
    await refreshList(2);

    const subscriptions = await listed();
    expect(subscriptions.map((subscription) => subscription.name)).toEqual(['Media hooks', 'Media hooks']);
    const headers = await page.getByRole('rowheader').allTextContents();
    expect(headers).toEqual(subscriptions.map((subscription) => `Media hooks${idAndCreation(subscription.configId)}`));
    expect(new Set(headers).size).toBe(2);
    // Their buttons too are told apart.
    const twinRename = page.getByRole('button', { name: `Rename: Media hooks (…${twinId.slice(-8)})`, exact: true });
    expect(await twinRename.count()).toBe(1);

    await deletedElsewhere(twinId);
    await refreshList(1);
  });

  step('says how many subscriptions the portal has of its limit, and that a full portal takes no more', async () => {
    const others: string[] = [];
    for (let index = 1; index < MAX_SUBSCRIPTIONS; index++) others.push(await createdElsewhere({ name: `Filler ${index}` }));
    await refreshList(MAX_SUBSCRIPTIONS);

    const create = page.getByRole('button', { name: 'Create subscription' });
    expect(await create.isDisabled()).toBe(true);
    expect(await page.locator('#create-limit').textContent()).toBe(
      `The portal has ${MAX_SUBSCRIPTIONS} of ${MAX_SUBSCRIPTIONS} subscriptions, as many as it may: delete one to create another.`,
    );
    // The API agrees: one more is refused.
    expect((await call(local.stack, 'POST', PREFIX, { token, body: newSubscription() })).status).toBe(400);

    for (const configId of others) await deletedElsewhere(configId);
    await refreshList(1);
    expect(await create.isDisabled()).toBe(false);
    expect(await page.locator('#create-limit').isVisible()).toBe(false);
  });

  const FAILING_PATH = '/receiver';
  const FAILED = 11;
  let receiverId: string;
  let kept: DeadLetterView[];

  step('shows how many deliveries of a subscription failed, and when the last did', async () => {
    receiverId = await createdElsewhere({ name: 'Receiver', protocol: 'http', endpoint: `${receiver.url}${FAILING_PATH}` });
    await waitFor('the receiver to confirm', async () =>
      (await call(local.stack, 'GET', `${PREFIX}/list`, { token })).body.configs.find(
        (entry: { configId: string; confirmed: boolean }) => entry.configId === receiverId && entry.confirmed,
      ),
    );
    receiver.failingPaths.add(FAILING_PATH);
    for (let index = 0; index < FAILED; index++) {
      expect((await call(local.stack, 'POST', `${PREFIX}/test`, { token, body: { config_id: receiverId } })).status).toBe(200);
    }
    kept = await deadLettersKept(receiverId, FAILED);

    await refreshList(2);

    const entry = (await call(local.stack, 'GET', `${PREFIX}/list`, { token })).body.configs.find(
      (candidate: { configId: string }) => candidate.configId === receiverId,
    );
    expect(entry).toMatchObject({ deadLetters: FAILED, deadLettersDropped: 0 });
    const failedCell = row('Receiver').getByRole('cell').nth(5);
    expect(await failedCell.textContent()).toBe(`${FAILED} failedlast ${utc(entry.lastDeadLetterAt)}Show them`);
    expect(await row('Receiver').getByRole('cell').nth(2).textContent()).toBe('Active');
  });

  step('lists its failed deliveries newest first, a page at a time', async () => {
    await row('Receiver').getByRole('button', { name: 'Show them: Receiver' }).press('Enter');

    const panel = page.getByRole('region', { name: /^Failed deliveries of Receiver/ });
    await panel.waitFor();
    expect(await panel.getByRole('heading', { level: 2 }).textContent()).toBe(`Failed deliveries of Receiver (…${receiverId.slice(-8)})`);
    expect(await page.locator('#dead-letters-summary').textContent()).toBe(`${FAILED} failed deliveries are kept.`);
    const shownIds = () => panel.getByRole('rowheader').allTextContents();
    expect(await shownIds()).toEqual(kept.slice(0, 10).map((letter) => letter.eventId));
    expect((await panel.getByRole('row').nth(1).getByRole('cell').allTextContents()).slice(0, 3)).toEqual([
      kept[0]!.event,
      utc(kept[0]!.occurredAt),
      utc(kept[0]!.failedAt),
    ]);

    await panel.getByRole('button', { name: 'Show older failed deliveries' }).press('Enter');

    await panel.getByRole('rowheader').nth(FAILED - 1).waitFor();
    expect(await shownIds()).toEqual(kept.map((letter) => letter.eventId));
    expect(await panel.getByRole('button', { name: 'Show older failed deliveries' }).isVisible()).toBe(false);

    if (process.env.UPDATE_SCREENSHOTS === '1') await saveScreenshot(page, DOCS_SCREENSHOT);
  });

  step('fits a 420 px wide screen: nothing wider than its section, no sideways scrolling', async () => {
    await page.setViewportSize({ width: 420, height: 900 });
    try {
      const overflow = await page.evaluate<string[]>(OVERFLOW_CHECK);
      expect(overflow).toEqual([]);
      expect(await page.locator('#subscriptions').isVisible()).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  step('sends one again: the recovered receiver gets it with its original eventId, and it leaves the list', async () => {
    receiver.failingPaths.delete(FAILING_PATH);
    const [newest] = kept;
    const panel = page.locator('#dead-letters');

    // The replay is held on its way: meanwhile no replay button can be pressed (a double click sends nothing twice).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/replay', async (route) => {
      await held;
      await route.continue();
    });
    await panel.getByRole('button', { name: `Send again: ${newest!.event} ${newest!.eventId}` }).press('Enter');
    const replayButtons = () => panel.getByRole('button', { name: /^Send (all )?again/ }).all();
    await waitFor('the replay buttons disabled', async () => {
      const disabled = await Promise.all((await replayButtons()).map((button) => button.isDisabled()));
      return disabled.length > 1 && disabled.every(Boolean) ? true : undefined;
    });
    release();

    await statusSays(`1 dead letter sent again. ${FAILED - 1} still kept. (Receiver)`);
    await page.unroute('**/replay');
    expect((await Promise.all((await replayButtons()).map((button) => button.isDisabled()))).some(Boolean)).toBe(false);
    const arrived = await waitFor('the message sent again', () =>
      receiver.notificationsAt(FAILING_PATH).find((entry) => entry.message.eventId === newest!.eventId),
    );
    expect(arrived.message).toMatchObject({ eventId: newest!.eventId, configId: receiverId, event: newest!.event });
    kept = kept.slice(1);
    expect((await deadLettersOf(receiverId)).map((letter) => letter.eventId)).toEqual(kept.map((letter) => letter.eventId));
    expect(await panel.getByRole('rowheader').allTextContents()).toEqual(kept.slice(0, 10).map((letter) => letter.eventId));
    expect(await page.locator('#dead-letters-summary').textContent()).toBe(`${FAILED - 1} failed deliveries are kept.`);
    expect(await row('Receiver').getByRole('cell').nth(5).textContent()).toMatch(new RegExp(`^${FAILED - 1} failed`));
  });

  step('shows the last delivery and failure of a subscription, and a Deliveries view of its attempts: time, result, status code, duration, tries, message id', async () => {
    // SNS's delivery status records reach the attempts consumer after the deliveries: wait for the sent-again one.
    const entry = await waitFor('the delivery sent again to be recorded', async () => {
      const found = (await call(local.stack, 'GET', `${PREFIX}/list`, { token })).body.configs.find(
        (candidate: { configId: string }) => candidate.configId === receiverId,
      );
      return found?.lastDeliveredAt && found.failedLast24h === FAILED ? found : undefined;
    });
    await refreshList(2);
    const deliveriesCell = row('Receiver').getByRole('cell').nth(4);
    expect(await deliveriesCell.textContent()).toBe(
      `Last delivered ${utc(entry.lastDeliveredAt)}Last failed ${utc(entry.lastFailedAt)}24 h: 1 delivered, ${FAILED} failedShow deliveries`,
    );

    await row('Receiver').getByRole('button', { name: 'Show deliveries: Receiver' }).press('Enter');

    const panel = page.getByRole('region', { name: /^Deliveries of Receiver/ });
    await panel.waitFor();
    expect(await focusedElement()).toBe('attempts-heading');
    const recorded = (await call(local.stack, 'GET', `${PREFIX}/attempts?config_id=${receiverId}&limit=20`, { token })).body.attempts;
    expect(recorded).toHaveLength(1 + FAILED);
    expect(await panel.getByRole('rowheader').allTextContents()).toEqual(recorded.map((attempt: { at: string }) => utc(attempt.at)));
    const [newest, failed] = recorded;
    expect(await panel.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual([
      'Delivered',
      '200',
      `${newest.dwellTimeMs} ms`,
      '1',
      newest.messageId,
    ]);
    expect(await panel.getByRole('row').nth(2).getByRole('cell').allTextContents()).toEqual([
      'Failed',
      '500',
      `${failed.dwellTimeMs} ms`,
      String(failed.attempts),
      failed.messageId,
    ]);
    await panel.getByRole('button', { name: 'Close' }).press('Enter');
    await panel.waitFor({ state: 'hidden' });
    expect(await focusedElement()).toMatch(/^Show deliveries: Receiver/);
  });

  step('says why sending again is off while the subscription is deactivated', async () => {
    await row('Receiver').getByRole('button', { name: 'Deactivate: Receiver' }).press('Enter');
    await statusSays('Subscription deactivated. (Receiver)');
    const refusal = await call(local.stack, 'POST', `${PREFIX}/replay`, { token, body: { config_id: receiverId } });
    expect(refusal.status).toBe(400);

    const panel = page.locator('#dead-letters');
    expect(await page.locator('#replay-blocked').textContent()).toBe(
      'Sending again is off: "Receiver" is deactivated, so nothing would be delivered. Activate it first.',
    );
    expect(await panel.getByRole('button', { name: 'Send all again' }).isDisabled()).toBe(true);
    const sendAgain = await panel.getByRole('button', { name: /^Send again: / }).all();
    expect(sendAgain).toHaveLength(10);
    for (const button of sendAgain) expect(await button.isDisabled()).toBe(true);

    await row('Receiver').getByRole('button', { name: 'Activate: Receiver' }).press('Enter');
    await statusSays('Subscription activated. (Receiver)');
    expect(await page.locator('#replay-blocked').isVisible()).toBe(false);
    expect(await panel.getByRole('button', { name: 'Send all again' }).isDisabled()).toBe(false);
  });

  step('shows a read-only client no create form and no write buttons, and says it is read-only', async () => {
    await page.getByRole('button', { name: 'Sign out' }).press('Enter');
    await page.getByLabel('Client id').fill(reader.clientId);
    await page.getByLabel('Client secret').fill(reader.clientSecret);
    await page.getByRole('button', { name: 'Sign in' }).press('Enter');

    await statusSays('Signed in. 2 subscriptions.');
    expect(await page.locator('#read-only-note').textContent()).toBe(
      `Read-only: the token of ${reader.clientId} does not carry webhooks.config:write, so creating, changing, testing, deleting and ` +
        'sending again are not offered. Sign in with a client that has it to do those.',
    );
    expect(await page.getByRole('heading', { name: 'New subscription' }).isVisible()).toBe(false);
    expect(await row('Media hooks').getByRole('button').count()).toBe(0);
    expect(await row('Media hooks').getByRole('cell').nth(0).textContent()).toBe('email' + 'ops@example.com');
    // It may look at deliveries and failed deliveries, not send them again.
    expect(await row('Receiver').getByRole('button').allTextContents()).toEqual(['Show deliveries', 'Show them']);
    await row('Receiver').getByRole('button', { name: 'Show them: Receiver' }).press('Enter');
    const panel = page.locator('#dead-letters');
    await panel.getByRole('rowheader').first().waitFor();
    expect(await panel.getByRole('rowheader').count()).toBe(10);
    expect(await panel.getByRole('button').allTextContents()).toEqual(['Close']);
    expect(await page.locator('#replay-blocked').isVisible()).toBe(false);
  });

  step('says which scope a token lacks when the API still refuses it (403), and to sign in again when it expired (401)', async () => {
    await page.getByRole('button', { name: 'Sign out' }).press('Enter');
    // A token that names no scopes: the page cannot tell, and the gateway refuses the list.
    const scopeless = await forgeToken(local.stack, local.signingKey, admin, { scope: undefined });
    expect((await call(local.stack, 'GET', `${PREFIX}/list`, { token: scopeless })).status).toBe(403);

    await page.getByLabel('Or paste an access token').fill(scopeless);
    await page.getByRole('button', { name: 'Use this token' }).press('Enter');

    await page
      .getByRole('alert')
      .filter({ hasText: 'Not allowed: this needs the scope webhooks.config:read, which the token you signed in with does not carry.' })
      .waitFor();
    expect(await page.getByRole('alert').filter({ hasText: /^Forbidden$/ }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);

    // An expired token: a sentence, not a bare "Unauthorized".
    const now = Math.floor(Date.now() / 1000);
    const expired = await forgeToken(local.stack, local.signingKey, admin, { iat: now - 7200, exp: now - 3600 });
    expect((await call(local.stack, 'GET', `${PREFIX}/list`, { token: expired })).status).toBe(401);
    await page.getByLabel('Or paste an access token').fill(expired);
    await page.getByRole('button', { name: 'Use this token' }).press('Enter');
    await page.getByRole('alert').filter({ hasText: 'The service no longer accepts your sign-in (the token expired' }).waitFor();

    await page.getByLabel('Or paste an access token').fill(token);
    await page.getByRole('button', { name: 'Use this token' }).press('Enter');
    await statusSays('Signed in. 2 subscriptions.');
  });

  step('sends all again, 100 a call until none is left', async () => {
    await row('Receiver').getByRole('button', { name: 'Show them: Receiver' }).press('Enter');
    const panel = page.locator('#dead-letters');
    await panel.getByRole('rowheader').first().waitFor();

    await panel.getByRole('button', { name: 'Send all again' }).press('Enter');

    await statusSays(`${FAILED - 1} failed deliveries sent again. (Receiver)`);
    const arrivedIds = () => new Set(receiver.notificationsAt(FAILING_PATH).map((entry) => entry.message.eventId));
    await waitFor('every message sent again', () => (kept.every((letter) => arrivedIds().has(letter.eventId)) ? true : undefined));
    expect(await deadLettersOf(receiverId)).toEqual([]);
    expect(await page.locator('#dead-letters-summary').textContent()).toBe('No failed deliveries are kept.');
    expect(await panel.getByRole('button', { name: 'Send all again' }).isDisabled()).toBe(true);
    expect(await row('Receiver').getByRole('cell').nth(5).textContent()).toBe('None');

    await panel.getByRole('button', { name: 'Close' }).press('Enter');
    expect(await panel.isVisible()).toBe(false);
    await deletedElsewhere(receiverId);
    await refreshList(1);
  });

  step('shows a subscription the service disabled for failing, since when, and that activating it is the way back', async () => {
    const created = await call(local.stack, 'POST', PREFIX, {
      token,
      body: { name: 'Failing hooks', protocol: 'http', endpoint: `${receiver.url}/failing-hooks`, events: ['asset_bank.media.create'] },
    });
    expect(created.status).toBe(200);
    const { configId } = created.body.record;
    // What the retry sweep writes when it disables one (stack.retries.test.ts runs it end to end).
    const disabledAt = '2026-11-20T08:30:00.000Z';
    const db = new DynamoDBClient({ endpoint: local.stack.dynamoDb.endpoint, region: local.stack.region, credentials: LOCAL_CREDENTIALS });
    try {
      await db.send(
        new UpdateItemCommand({
          TableName: local.stack.tableName,
          Key: { portalId: { S: admin.portalId }, sk: { S: `subscription#${configId}` } },
          UpdateExpression: 'SET #status = :off, disabledReason = :failing, disabledAt = :at',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':off': { N: '0' }, ':failing': { S: 'failing' }, ':at': { S: disabledAt } },
        }),
      );
    } finally {
      db.destroy();
    }
    await refreshList(2);

    expect(await row('Failing hooks').getByRole('cell').nth(2).textContent()).toBe(
      `Disabled: failingNo successful delivery for too long; disabled ${utc(disabledAt)}. Fix the endpoint, then activate it.`,
    );
    await row('Failing hooks').getByRole('button', { name: 'Activate: Failing hooks' }).press('Enter');
    await row('Failing hooks').getByText('Active', { exact: true }).waitFor();
    expect((await listed()).find((entry) => entry.configId === configId)).toMatchObject({ status: 1, disabledReason: null, disabledAt: null });
    await deletedElsewhere(configId);
    await refreshList(1);
  });

  step('deletes it after a confirmation', async () => {
    await row('Media hooks').getByRole('button', { name: 'Delete: Media hooks' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete subscription?' });
    const [subscription] = await listed();
    expect(await dialog.textContent()).toContain(`"Media hooks" (email ops@example.com, id ${subscription!.configId}) and its SNS topic will be deleted`);
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
