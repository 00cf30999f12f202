/**
 * A subscription receives only what matters (issue 40, "How it is checked"), over HTTP against
 * the local stack that `npm start` runs: a filter on the brand lets through the event of that
 * brand and not the other; an update to a prefix applies to the very next event; a numeric range
 * selects by size; a filter SNS would refuse is a 400 naming its part; POST /test-filter answers
 * `matches` for the same pairs, under both prefixes and with the read scope alone; list shows the
 * filter.
 */
import { API_PREFIXES } from '../../shared/operations';
import { useDeliveryStack } from '../support/delivery-stack';
import { type Created, eventDeliveryCalls } from '../support/event-delivery';
import { call, TEST_CLIENTS } from '../support/local-stack-client';
import { waitFor } from '../support/wait-for';

const API = API_PREFIXES[0];
const KIND = 'asset_bank.media.create';
const admin = TEST_CLIENTS.alphaAdmin;
const reader = TEST_CLIENTS.alphaReader;

const delivery = useDeliveryStack();
const { putPortalEvents, dispatched, recipientsOf, arrivedAt, isListedConfirmed } = eventDeliveryCalls(delivery);

/** An http subscription of the receiver at a path of its own, with `filter`, confirmed. */
async function subscribeFiltered(label: string, filter: Record<string, unknown>): Promise<Created> {
  const path = `/hooks/${label}-${Math.random().toString(36).slice(2, 8)}`;
  const created = await call(delivery.stack, 'POST', API, {
    token: await delivery.token(admin),
    body: { name: label, protocol: 'http', endpoint: delivery.receiver.url + path, events: [KIND], filter },
  });
  expect(created.status).toBe(200);
  expect(created.body.record.filter).toEqual(filter);
  const record = { ...created.body.record, path } as Created;
  await waitFor(`${label} confirmed`, async () => ((await isListedConfirmed(admin, record.configId)) ? true : undefined));
  return record;
}

async function listedFilter(configId: string) {
  const listed = await call(delivery.stack, 'GET', `${API}/list`, { token: await delivery.token(admin) });
  return listed.body.configs.find((entry: { configId: string }) => entry.configId === configId)?.filter;
}

async function testFilter(prefix: string, filter: unknown, data: unknown) {
  return call(delivery.stack, 'POST', `${prefix}/test-filter`, { token: await delivery.token(reader), body: { filter, data } });
}

it('delivers the brand it filters on and not another; an update to a prefix applies to the very next event; list shows it', async () => {
  const brand = await subscribeFiltered('brand', { brand: ['acme'] });
  expect(await listedFilter(brand.configId)).toEqual({ brand: ['acme'] });

  const [acme, other] = await putPortalEvents({ kind: KIND, portalId: admin.portalId, data: { brand: 'acme' } }, { kind: KIND, portalId: admin.portalId, data: { brand: 'other' } });
  await dispatched();
  await arrivedAt(brand, acme!);
  expect(await recipientsOf(acme!, [brand])).toEqual([brand]);
  expect(await recipientsOf(other!, [brand])).toEqual([]);

  const updated = await call(delivery.stack, 'PUT', API, { token: await delivery.token(admin), body: { config_id: brand.configId, filter: { brand: [{ prefix: 'ac' }] } } });
  expect(updated.status).toBe(200);
  expect(updated.body.record.filter).toEqual({ brand: [{ prefix: 'ac' }] });
  expect(await listedFilter(brand.configId)).toEqual({ brand: [{ prefix: 'ac' }] });

  const [acorn, zeta] = await putPortalEvents({ kind: KIND, portalId: admin.portalId, data: { brand: 'acorn' } }, { kind: KIND, portalId: admin.portalId, data: { brand: 'zeta' } });
  await dispatched();
  await arrivedAt(brand, acorn!);
  expect(await recipientsOf(acorn!, [brand])).toEqual([brand]);
  expect(await recipientsOf(zeta!, [brand])).toEqual([]);
});

it('selects by size with a numeric range', async () => {
  const large = await subscribeFiltered('large', { size: [{ numeric: ['>', 1000] }] });
  const [big, small, none] = await putPortalEvents(
    { kind: KIND, portalId: admin.portalId, data: { size: 5000 } },
    { kind: KIND, portalId: admin.portalId, data: { size: 1000 } },
    { kind: KIND, portalId: admin.portalId, data: { brand: 'acme' } },
  );
  await dispatched();
  await arrivedAt(large, big!);
  expect(await recipientsOf(small!, [large])).toEqual([]);
  expect(await recipientsOf(none!, [large])).toEqual([]);
});

describe('a filter SNS would refuse', () => {
  it.each([
    ['an unknown operator', { brand: [{ regex: 'ac.*' }] }, 'filter.brand[0].regex', /not an operator of SNS filter policies/],
    ['too many keys', { a: ['1'], b: ['1'], c: ['1'], d: ['1'], e: ['1'], f: ['1'] }, 'filter', /has 6 keys; a filter may have at most 5/],
    ['a value not in a list', { brand: 'acme' }, 'filter.brand', /must be a list of values or conditions/],
  ])('%s is a 400 naming it, on create, update and test-filter', async (_, filter, field, reason) => {
    const token = await delivery.token(admin);
    const answers = [
      await call(delivery.stack, 'POST', API, { token, body: { name: 'refused', protocol: 'https', endpoint: 'https://hooks.example.com/x', events: [KIND], filter } }),
      await call(delivery.stack, 'PUT', API, { token, body: { config_id: '0192f8a4-7b3c-7d2e-9f01-23456789abcd', filter } }),
      await testFilter(API, filter, { brand: 'acme' }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: false, code: 'INVALID_REQUEST', errors: [{ field, message: expect.stringMatching(reason) }] });
      expect(answer.body.message).toContain(field);
    }
  });
});

describe('POST /test-filter', () => {
  it.each(API_PREFIXES.map((prefix) => [prefix]))('under %s answers matches true and false for the same pairs, with the read scope alone', async (prefix) => {
    const cases: [unknown, unknown, boolean, string | null][] = [
      [{ brand: ['acme'] }, { brand: 'acme' }, true, null],
      [{ brand: ['acme'] }, { brand: 'other' }, false, 'brand'],
      [{ brand: [{ prefix: 'ac' }] }, { brand: 'acorn' }, true, null],
      [{ brand: [{ prefix: 'ac' }] }, { brand: 'zeta' }, false, 'brand'],
      [{ size: [{ numeric: ['>', 1000] }] }, { size: 5000 }, true, null],
      [{ size: [{ numeric: ['>', 1000] }] }, { size: 1000 }, false, 'size'],
    ];
    for (const [filter, data, matches, decidingKey] of cases) {
      const answer = await testFilter(prefix, filter, data);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ success: true, message: expect.any(String), matches, decidingKey });
    }
  });
});
