/**
 * The admin page scenario's steps about the create form and the list, run by
 * admin-page.browser.test.ts in its browser and stack after the steps before them (they continue
 * from the page and the subscriptions those left): a refused create whose message is shown next
 * to its field (and no old success above it), long endpoints and dates in the list, the answer of
 * a create kept in view, docs/receiving.md opened in a new tab, the favicon, two subscriptions of
 * one name told apart, and a full portal. Steps of one scenario, in a file of their own so that
 * each file stays readable; a suite of their own would start the stack and Chromium again.
 */
import { call, newSubscription } from '../support/local-stack-client';
import {
  admin,
  BROKEN_TOKENS,
  createdElsewhere,
  deletedElsewhere,
  focusedElement,
  idAndCreation,
  inView,
  listed,
  local,
  MAX_SUBSCRIPTIONS,
  page,
  PREFIX,
  refreshList,
  row,
  scrollToFoot,
  statusSays,
  statusText,
  step,
  token,
} from '../support/admin-page';

export function formAndListSteps(): void {
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

  step('shows a refusal of the endpoint by its code (ENDPOINT_NOT_PUBLIC) on the endpoint field', async () => {
    const privateHost = { name: 'Private', protocol: 'https', endpoint: 'https://10.1.2.3/hooks', events: ['asset_bank.media.create'] };
    const direct = await call(local.stack, 'POST', PREFIX, { token, body: privateHost });
    expect(direct.body).toMatchObject({ code: 'ENDPOINT_NOT_PUBLIC' });

    await page.getByLabel('Name', { exact: true }).fill(privateHost.name);
    await page.getByLabel('Endpoint').fill(privateHost.endpoint);
    await page.getByRole('button', { name: 'Create subscription' }).press('Enter');

    await page.locator('#create-endpoint-error').filter({ hasText: direct.body.message }).waitFor();
    expect(await page.getByLabel('Endpoint').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#create-form-error').isVisible()).toBe(false);
    expect(await focusedElement()).toBe('create-endpoint');
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
}
