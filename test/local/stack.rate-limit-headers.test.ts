/**
 * The RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers-06) as a client of the local stack
 * reads them, through the gateway: on each answer of a limited route once the portal's bucket was
 * consulted, 200 and 400 alike, Remaining goes down by one a call and Reset says when the bucket is
 * full again; the 429 past the burst says Remaining 0 and a Retry-After within Reset, after which a
 * request is served. The gateway's own answers, and a body refused before the bucket, carry none.
 * Default budgets: send 25 at once then 20 a minute (a token every 3 s), read 100 then 300 a minute.
 */
import { randomUUID } from 'node:crypto';
import { portalReadBurst, portalReadRatePerMinute, portalSendBurst, portalSendRatePerMinute } from '../../shared/settings';
import { API_PREFIXES } from '../../shared/operations';
import { type Answer, call, forgeToken, startTestStack, TEST_CLIENTS, type TestStack } from '../support/local-stack-client';

const API = API_PREFIXES[0];
const SEND = { burst: Number(portalSendBurst.default), intervalMs: 60_000 / Number(portalSendRatePerMinute.default) };
const READ = { burst: Number(portalReadBurst.default), intervalMs: 60_000 / Number(portalReadRatePerMinute.default) };
const RATE_LIMIT_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

let local: TestStack;
beforeAll(async () => {
  local = await startTestStack();
}, 60_000);
afterAll(async () => {
  await local?.stop();
});

/** A token of a portal no other test used: its buckets are full. */
const freshPortalToken = () => forgeToken(local.stack, local.signingKey, TEST_CLIENTS.alphaAdmin, { portal_id: `portal-rl-${randomUUID().slice(0, 8)}` });

function rateLimitOf(answer: Answer) {
  const [limit, remaining, reset] = RATE_LIMIT_HEADERS.map((name) => answer.headers.get(name));
  return { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) };
}

/**
 * Reset against Remaining for a bucket of `burst`, one token every `intervalMs`: the bucket is full
 * again (burst - remaining) intervals from now, less the part of the current one already gone.
 */
function expectResetToAgree({ remaining, reset }: { remaining: number; reset: number }, { burst, intervalMs }: typeof SEND) {
  expect(reset).toBeGreaterThan(((burst - remaining - 1) * intervalMs) / 1000);
  expect(reset).toBeLessThanOrEqual(Math.ceil(((burst - remaining) * intervalMs) / 1000));
}

it('tells each answer of POST /test (400: no such subscription) what is left, then 429 with Remaining 0 and a Retry-After within Reset', async () => {
  const token = await freshPortalToken();
  const test = () => call(local.stack, 'POST', `${API}/test`, { token, body: { config_id: randomUUID() } });

  const started = Date.now();
  const answers: Answer[] = [];
  for (let sent = 0; sent < SEND.burst + 5 && answers.at(-1)?.status !== 429; sent++) answers.push(await test());
  const elapsedMs = Date.now() - started;
  const refused = answers.at(-1)!;
  const served = answers.slice(0, -1);

  // Each call past the body's checks took a token and was answered 400 (nothing to test), saying so.
  expect(served.map((answer) => [answer.status, answer.body.code])).toEqual(served.map(() => [400, 'SUBSCRIPTION_NOT_FOUND']));
  const states = served.map(rateLimitOf);
  expect(states.every(({ limit }) => limit === SEND.burst)).toBe(true);
  expect(states[0]!.remaining).toBe(SEND.burst - 1);
  // Down by one a call; level only where a token came back meanwhile (one every 3 s).
  const steps = states.slice(1).map((state, index) => state.remaining - states[index]!.remaining);
  expect(steps.every((step) => step === -1 || step === 0)).toBe(true);
  expect(steps.filter((step) => step === 0).length).toBeLessThanOrEqual(Math.floor(elapsedMs / SEND.intervalMs));
  for (const state of states) expectResetToAgree(state, SEND);

  expect(refused.status).toBe(429);
  expect(refused.body.code).toBe('RATE_LIMITED');
  const refusal = rateLimitOf(refused);
  expect(refusal).toEqual({ limit: SEND.burst, remaining: 0, reset: expect.any(Number) });
  expectResetToAgree(refusal, SEND);
  // Retry-After is when the next token comes back: at most one interval away, Reset less the
  // other (burst - 1) intervals of a bucket that is full again.
  const retryAfter = Number(refused.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(Math.ceil(SEND.intervalMs / 1000));
  expect(Math.abs(refusal.reset - retryAfter - ((SEND.burst - 1) * SEND.intervalMs) / 1000)).toBeLessThanOrEqual(1);

  // After Retry-After, a token is there: served (400 again), and it was the only one.
  await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
  const again = await test();
  expect(again.status).toBe(400);
  expect(rateLimitOf(again).remaining).toBe(0);
}, 120_000);

it('tells a 200 of a reading route (GET /list, POST /test-filter) its own bucket, full but for that call', async () => {
  const token = await freshPortalToken();
  for (const [method, path, body] of [
    ['GET', `${API}/list`, undefined],
    ['POST', `${API}/test-filter`, { filter: { brand: ['acme'] }, data: { brand: 'acme' } }],
  ] as const) {
    const first = await call(local.stack, method, path, { token, body });
    const second = await call(local.stack, method, path, { token, body });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(rateLimitOf(first)).toEqual({ limit: READ.burst, remaining: READ.burst - 1, reset: 1 });
    // A token every 0.2 s: the second call finds one fewer, or the first one back.
    expect([READ.burst - 2, READ.burst - 1]).toContain(rateLimitOf(second).remaining);
    expectResetToAgree(rateLimitOf(second), READ);
  }
});

it('sends none on answers given before the bucket: the gateway\'s 401 and 431, bodies refused by their checks', async () => {
  const token = await freshPortalToken();
  const answers = [
    await call(local.stack, 'GET', `${API}/list`),
    await call(local.stack, 'GET', `${API}/list`, { token, headers: { 'x-padding': 'a'.repeat(11_000) } }),
    await call(local.stack, 'POST', `${API}/test`, { token, body: JSON.stringify({ config_id: 'x'.repeat(70 * 1024) }) }),
    await call(local.stack, 'POST', `${API}/test`, { token, body: {} }),
  ];
  expect(answers.map((answer) => answer.status)).toEqual([401, 431, 400, 400]);
  for (const answer of answers) expect(RATE_LIMIT_HEADERS.filter((name) => answer.headers.has(name))).toEqual([]);
  // The refused bodies spent no token: the next call finds the bucket full.
  const next = await call(local.stack, 'POST', `${API}/test`, { token, body: { config_id: randomUUID() } });
  expect(rateLimitOf(next).remaining).toBe(SEND.burst - 1);
});
