/**
 * The failing → notice → disable life as a table of cases (shared/dead-letters/failing-evaluator.ts):
 * the record and the time in, the decisions out, no database. The suites of the sweep and the
 * recorder (test/service/retries.test.ts, test/local/stack.retries.test.ts) show the same decisions
 * carried out against DynamoDB Local and the SNS emulator.
 */
import type { Subscription } from '../../shared/data/subscription-record';
import { beginsStreak, onDeadLetter, onDisableDue, onFailingDue } from '../../shared/dead-letters/failing-evaluator';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SETTINGS = { deliveryRetryScheduleMs: [5 * 60_000, 30 * 60_000], disableFailingAfterMs: 5 * DAY };
const T0 = '2026-11-20T10:00:00.000Z';
const at = (offsetMs: number) => new Date(Date.parse(T0) + offsetMs).toISOString();

type Health = Pick<Subscription, 'status' | 'protocol' | 'failingSince' | 'lastDeliveredAt' | 'lastEventDeliveredAt' | 'disabledReason' | 'disabledAt'>;
const record = (health: Partial<Health> = {}): Health => ({ status: 1, protocol: 'https', ...health });
const letter = (failedAt: string) => ({ portalId: 'portal-a', configId: 'c-1', failedAt, messageId: 'm-1' });

describe('a failing streak', () => {
  it.each([
    ['begins with the first dead letter of a subscription that never failed', {}, true],
    ['goes on while no delivery succeeded since it began', { failingSince: T0, lastEventDeliveredAt: at(-HOUR) }, false],
    ['goes on when the last success is the moment it began', { failingSince: T0, lastEventDeliveredAt: T0 }, false],
    ['is ended by a success after it began: the next dead letter begins a new one', { failingSince: T0, lastEventDeliveredAt: at(HOUR) }, true],
    ['begins anew after an activation, which cleared it', { lastEventDeliveredAt: at(-DAY) }, true],
    ['goes on when only a test event was delivered since it began', { failingSince: T0, lastDeliveredAt: at(HOUR), lastEventDeliveredAt: at(-HOUR) }, false],
  ])('%s', (_, health, expected) => {
    expect(beginsStreak(record(health))).toBe(expected);
  });
});

describe('a new dead letter', () => {
  it('is retried at the first wait, begins the streak and brings its notice due at once', () => {
    const decision = onDeadLetter(record(), letter(T0), undefined, SETTINGS);
    expect(decision).toMatchObject({ retries: 0, nextRetryAt: at(5 * 60_000), beginsStreak: true });
    expect(decision.dueWork.map((work) => [work.kind, work.dueAt])).toEqual([
      ['retry', at(5 * 60_000)],
      ['failing', T0],
    ]);
  });

  it("takes the next wait of its event's schedule, within the streak that goes on", () => {
    const decision = onDeadLetter(record({ failingSince: at(-HOUR) }), letter(T0), { retries: 1, cancelled: false }, SETTINGS);
    expect(decision).toMatchObject({ retries: 1, nextRetryAt: at(30 * 60_000), beginsStreak: false });
    expect(decision.dueWork.map((work) => work.kind)).toEqual(['retry']);
  });

  it('with its schedule spent brings a check for disabling DISABLE_FAILING_AFTER after the streak began', () => {
    const decision = onDeadLetter(record({ failingSince: at(-HOUR) }), letter(T0), { retries: 2, cancelled: false }, SETTINGS);
    expect(decision.nextRetryAt).toBeUndefined();
    expect(decision.dueWork).toEqual([{ kind: 'disable', dueAt: at(5 * DAY - HOUR), subscriptionPortalId: 'portal-a', configId: 'c-1', failingSince: at(-HOUR) }]);
  });

  it('with its schedule spent after DISABLE_FAILING_AFTER is checked at once', () => {
    const decision = onDeadLetter(record({ failingSince: at(-6 * DAY) }), letter(T0), { retries: 2, cancelled: false }, SETTINGS);
    expect(decision.dueWork).toEqual([expect.objectContaining({ kind: 'disable', dueAt: T0 })]);
  });

  it('of an e-mail endpoint with its schedule spent brings no check for disabling: e-mail reports no successes', () => {
    for (const protocol of ['email', 'email-json'] as const) {
      const decision = onDeadLetter(record({ protocol, failingSince: at(-HOUR) }), letter(T0), { retries: 2, cancelled: false }, SETTINGS);
      expect(decision.dueWork).toEqual([]);
    }
  });

  it('after a replay (its ledger cancelled) waits for a person: no retry, no check', () => {
    const decision = onDeadLetter(record({ failingSince: at(-HOUR) }), letter(T0), { retries: 2, cancelled: true }, SETTINGS);
    expect(decision.nextRetryAt).toBeUndefined();
    expect(decision.dueWork).toEqual([]);
  });

  it('of a deactivated subscription is kept without a retry or a check', () => {
    const decision = onDeadLetter(record({ status: 0, failingSince: at(-HOUR) }), letter(T0), { retries: 2, cancelled: false }, SETTINGS);
    expect(decision.dueWork).toEqual([]);
  });
});

describe('a due failing notice', () => {
  it.each([
    ['is sent while its streak goes on', record({ failingSince: T0 }), 'notify'],
    ['is dropped once a success or an activation ended its streak', record({ lastEventDeliveredAt: at(HOUR) }), 'drop'],
    ['is dropped when another streak began since', record({ failingSince: at(DAY) }), 'drop'],
    ['is dropped when the subscription was deleted', undefined, 'drop'],
  ])('%s', (_, health, expected) => {
    expect(onFailingDue(health, { failingSince: T0 })).toBe(expected);
  });
});

describe('a due check for disabling', () => {
  const work = { failingSince: T0 };
  const after = (offsetMs: number) => Date.parse(T0) + offsetMs;

  it('waits until DISABLE_FAILING_AFTER has passed since the streak began, then disables at that moment', () => {
    expect(onDisableDue(record({ failingSince: T0 }), work, after(5 * DAY - 1), SETTINGS)).toEqual({ action: 'wait' });
    expect(onDisableDue(record({ failingSince: T0 }), work, after(5 * DAY), SETTINGS)).toEqual({ action: 'disable', disabledAt: at(5 * DAY) });
  });

  it.each([
    ['a success since the streak began', record({ failingSince: T0, lastEventDeliveredAt: at(DAY) })],
    ['an activation, which cleared the streak', record({})],
    ['a deactivation by the tenant', record({ status: 0, failingSince: T0 })],
    ['an e-mail endpoint', record({ protocol: 'email', failingSince: T0 })],
    ['a deleted subscription', undefined],
  ])('is dropped after %s', (_, health) => {
    expect(onDisableDue(health, work, after(6 * DAY), SETTINGS)).toEqual({ action: 'drop' });
  });

  it('disables all the same when only test events were delivered since the streak began', () => {
    const answersTestsOnly = record({ failingSince: T0, lastDeliveredAt: at(4 * DAY), lastEventDeliveredAt: at(-HOUR) });
    expect(onDisableDue(answersTestsOnly, work, after(5 * DAY), SETTINGS)).toEqual({ action: 'disable', disabledAt: at(5 * DAY) });
  });

  it('of a subscription disabled already (its notice failed) sends the notice again, with the first disabledAt', () => {
    const disabled = record({ status: 0, failingSince: T0, disabledReason: 'failing', disabledAt: at(5 * DAY) });
    expect(onDisableDue(disabled, work, after(6 * DAY), SETTINGS)).toEqual({ action: 'notify', disabledAt: at(5 * DAY) });
  });
});
