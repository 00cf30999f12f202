/**
 * The admin page signed in as a person is on a deployed page: through the authorization endpoint
 * with the authorization code grant and PKCE, in Chromium, against a stack whose access tokens
 * live 4 seconds, so the page must renew them with the refresh token to keep working. It sees
 * its portal's subscriptions and no other's, signs out cleanly, and may be framed only by the
 * origins the stack lists.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page, Request } from 'playwright-core';
import { AUTHORIZATION_PATH, TOKEN_PATH } from '../../shared/contract/token-endpoint';
import { API_PREFIXES } from '../../shared/operations';
import { chromiumPath, launchChromium, withFailureScreenshot } from '../support/browser';
import { call, newSubscription, startTestStack, TEST_CLIENTS, type TestStack, tokenFor } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';

const PREFIX = API_PREFIXES[0];
const TOKEN_LIFETIME_SECONDS = 4;
const { alphaAdmin, betaAdmin } = TEST_CLIENTS;

const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('admin page sign-in suite not run: chromium is not installed (apt-get install chromium).');

/** A page on another origin that frames the admin page (whose URL is known once the stack runs). */
async function startEmbeddingSite(framed: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><title>Platform settings</title><iframe title="Webhooks" src="${framed()}"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: another origin than the stack's, on the same machine.
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

describeWithChromium('the admin page signed in with the authorization code grant and PKCE', () => {
  let local: TestStack;
  let browser: Browser;
  let page: Page;
  const apiCalls: { url: string; authorization: string | undefined }[] = [];
  const tokenGrants: string[] = [];
  let betaConfigId: string;
  let listedSite: Awaited<ReturnType<typeof startEmbeddingSite>>;
  let otherSite: Awaited<ReturnType<typeof startEmbeddingSite>>;

  const onRequest = (request: Request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith(PREFIX)) apiCalls.push({ url: request.url(), authorization: request.headers().authorization });
    if (url.pathname === TOKEN_PATH) tokenGrants.push(new URLSearchParams(request.postData() ?? '').get('grant_type') ?? '');
  };
  const step = (name: string, steps: () => Promise<void>) => it(name, () => withFailureScreenshot(page, name, steps), 30_000);
  const statusSays = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();
  const lastToken = () => apiCalls.at(-1)!.authorization!.replace(/^Bearer /, '');
  const expiry = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;

  beforeAll(async () => {
    listedSite = await startEmbeddingSite(() => local.stack.adminUrl);
    otherSite = await startEmbeddingSite(() => local.stack.adminUrl);
    local = await startTestStack({ tokenLifetimeSeconds: TOKEN_LIFETIME_SECONDS, adminFrameAncestors: [listedSite.origin] });
    const alphaToken = await tokenFor(local.stack, alphaAdmin);
    for (const name of ['Alpha one', 'Alpha two']) {
      expect((await call(local.stack, 'POST', PREFIX, { token: alphaToken, body: newSubscription({ name }) })).status).toBe(200);
    }
    const beta = await call(local.stack, 'POST', PREFIX, { token: await tokenFor(local.stack, betaAdmin), body: newSubscription({ name: 'Beta only' }) });
    betaConfigId = beta.body.record.configId;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', onRequest);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await local?.stop();
    for (const site of [listedSite, otherSite]) if (site) await new Promise((resolve) => site.server.close(resolve));
  });

  step('goes to the authorization endpoint with a state and an S256 challenge, and comes back signed in', async () => {
    await page.goto(local.stack.adminUrl);
    await page.locator('body[data-ready="true"]').waitFor();
    const [authorization] = await Promise.all([
      page.waitForRequest((request) => new URL(request.url()).pathname === AUTHORIZATION_PATH),
      page.getByRole('button', { name: 'Sign in with your portal account' }).press('Enter'),
    ]);
    const asked = new URL(authorization.url()).searchParams;
    expect(Object.fromEntries(asked)).toEqual({
      response_type: 'code',
      client_id: 'webhooks-admin-page',
      redirect_uri: local.stack.adminUrl,
      scope: 'webhooks.config:read webhooks.config:write',
      state: expect.stringMatching(/^[\w-]{22}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
    });

    await page.getByLabel('User').selectOption(alphaAdmin.clientId);
    await page.getByLabel('Password').fill(alphaAdmin.clientSecret);
    await page.getByLabel('Password').press('Enter');

    await statusSays('Signed in. 2 subscriptions.');
    expect(tokenGrants).toEqual(['authorization_code']);
    expect(page.url()).toBe(local.stack.adminUrl);
    expect(await page.locator('#signed-in-as').textContent()).toBe(`Signed in as ${alphaAdmin.clientId} (portal ${alphaAdmin.portalId})`);
    // Nothing of the sign-in is left for a script or the next visitor to find.
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect((await page.context().cookies()).length).toBe(0);
  });

  step("shows its portal's subscriptions and no other's", async () => {
    const names = await page.locator('#subscription-rows th .name').allTextContents();
    expect(names).toEqual(['Alpha one', 'Alpha two']);
    expect(await page.getByText('Beta only').count()).toBe(0);
  });

  step('keeps working after the access token expired, through the refresh token', async () => {
    const first = lastToken();
    // Past the first token's expiry, while the page renews it in the background.
    await waitFor('the first token to expire', async () => (Date.now() / 1000 > expiry(first) + 1 ? true : undefined), 10_000, 200);
    expect((await call(local.stack, 'GET', `${PREFIX}/list`, { token: first })).status).toBe(401);

    await page.getByRole('button', { name: 'Refresh the list' }).press('Enter');
    await statusSays(/2 subscriptions|Listed/);
    expect(await page.locator('#page-error').isVisible()).toBe(false);
    expect(tokenGrants.filter((grant) => grant === 'refresh_token').length).toBeGreaterThanOrEqual(1);
    expect(lastToken()).not.toBe(first);
    expect(expiry(lastToken())).toBeGreaterThan(Date.now() / 1000);
  });

  step("cannot reach another portal's subscription with its token", async () => {
    const token = lastToken();
    const renamed = await call(local.stack, 'PUT', `${PREFIX}/rename`, { token, body: { config_id: betaConfigId, name: 'Taken over' } });
    expect(renamed.status).toBe(400);
    const deleted = await call(local.stack, 'DELETE', `${PREFIX}/${betaConfigId}`, { token });
    expect(deleted.status).toBe(400);
    const betaList = await call(local.stack, 'GET', `${PREFIX}/list`, { token: await tokenFor(local.stack, betaAdmin) });
    expect(betaList.body.configs).toEqual([expect.objectContaining({ configId: betaConfigId, name: 'Beta only' })]);
  });

  step('signs out: the list is gone, and the tokens are neither used nor renewed again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).press('Enter');
    await statusSays('Signed out.');
    expect(await page.getByRole('heading', { name: 'Sign in', exact: true }).isVisible()).toBe(true);
    expect(await page.locator('#subscription-rows tr').count()).toBe(0);
    const grants = tokenGrants.length;
    const calls = apiCalls.length;
    await page.waitForTimeout(TOKEN_LIFETIME_SECONDS * 1000);
    expect(tokenGrants.length).toBe(grants);
    expect(apiCalls.length).toBe(calls);
  });

  step('is refused in a frame of another origin unless the stack lists that origin', async () => {
    await page.goto(listedSite.origin);
    await waitFor('the page framed by the listed origin to start', async () => {
      const frame = page.frame({ url: local.stack.adminUrl });
      return frame && (await frame.locator('body[data-ready="true"]').count()) > 0 ? true : undefined;
    }, 10_000, 100);

    // Chromium says why it refused the frame on the console.
    const refusal = page.waitForEvent('console', { predicate: (message) => /frame-ancestors/.test(message.text()), timeout: 10_000 });
    await page.goto(otherSite.origin);
    expect((await refusal).text()).toMatch(`violates the following Content Security Policy directive: "frame-ancestors ${listedSite.origin}". The request has been blocked.`);
    // A refused frame never shows the page, nor runs its modules.
    const frame = page.frame({ url: local.stack.adminUrl });
    expect(frame === null || (await frame.locator('body[data-ready="true"]').count()) === 0).toBe(true);
  });
});
