/**
 * The admin page scenario's steps about deliveries, run by admin-page.browser.test.ts in its
 * browser and stack after the steps before them (they continue from the page and the
 * subscriptions those left): failed deliveries listed newest first and sent again, one or all,
 * the Deliveries view of a subscription's attempts, sending again off while it is deactivated, a
 * read-only client, the API's refusal of a token, and a subscription the service disabled for
 * failing. Steps of one scenario, in one file of their own so that each file stays readable;
 * a suite of their own would start the stack and Chromium again.
 */
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS } from '../../infra/local/stack/local-stack';
import { call, forgeToken } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';
import {
  admin,
  createdElsewhere,
  type DeadLetterView,
  deadLettersKept,
  deadLettersOf,
  deletedElsewhere,
  focusedElement,
  listed,
  local,
  OVERFLOW_CHECK,
  page,
  PREFIX,
  reader,
  receiver,
  refreshList,
  row,
  statusSays,
  step,
  token,
  utc,
} from '../support/admin-page';

/** Registers the steps, in order, in the calling describe. */
export function deliveriesSteps(): void {
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
    const shown = `Last delivered ${utc(entry.lastDeliveredAt)}Last failed ${utc(entry.lastFailedAt)}24 h: 1 delivered, ${FAILED} failedShow deliveriesShow messages`;
    // Bounded: waitFor gives up and fails after its limit, naming what it waited for.
    expect(await waitFor('the refreshed row', async () => ((await deliveriesCell.textContent()) === shown ? shown : undefined))).toBe(shown);

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
    await page.getByRole('button', { name: 'Sign in', exact: true }).press('Enter');

    await statusSays('Signed in. 2 subscriptions.');
    expect(await page.locator('#read-only-note').textContent()).toBe(
      `Read-only: the sign-in of ${reader.clientId} does not carry webhooks.config:write, so creating, changing, testing, deleting and ` +
        'sending again are not offered. Sign in as someone who has it to do those.',
    );
    expect(await page.getByRole('heading', { name: 'New subscription' }).isVisible()).toBe(false);
    // Its messages are the one thing of an e-mail subscription it may look at.
    expect(await row('Media hooks').getByRole('button').allTextContents()).toEqual(['Show messages']);
    expect(await row('Media hooks').getByRole('cell').nth(0).textContent()).toBe('email' + 'ops@example.com');
    // It may look at deliveries, messages and failed deliveries, not send them again.
    expect(await row('Receiver').getByRole('button').allTextContents()).toEqual(['Show deliveries', 'Show messages', 'Show them']);
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
    expect(await page.getByRole('heading', { name: 'Sign in', exact: true }).isVisible()).toBe(true);

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
}
