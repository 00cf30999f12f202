/**
 * Calls an integrator writes with openapi-typescript's types and openapi-fetch: every documented
 * call must type-check (test/service/openapi.client-types.test.ts). Never run: only compiled.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/openapi-typescript';

const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000' });
const base = '/v7/webhooks/public/api/subscriptions';
const config_id = '0192f8a4-7b3c-7d2e-9f01-23456789abcd';

export async function documentedCalls(): Promise<void> {
  const created = await api.POST(base, {
    body: { name: 'Media updates', endpoint: 'https://hooks.example.com/webhooks', protocol: 'https', events: ['asset_bank.media.create'] },
    params: { header: { 'Idempotency-Key': 'key-1' } },
  });
  if (created.data) {
    const id: string = created.data.record.configId;
    void id;
  }
  if (created.error) {
    // The error codes are an enum per status; the gateway's errors have a message only.
    const full: boolean = 'code' in created.error && created.error.code === 'SUBSCRIPTION_LIMIT_REACHED';
    const code: components['schemas']['ErrorResponse429']['code'] = 'RATE_LIMITED';
    void full;
    void code;
  }
  await api.POST(base, {
    body: { name: 'Throttled', endpoint: 'https://hooks.example.com/w', protocol: 'https', events: ['asset_bank.media.create'], maxReceivesPerSecond: 10 },
  });
  await api.PUT(base, { body: { config_id, events: ['asset_bank.media.create'] } });
  await api.PUT(base, { body: { config_id, maxReceivesPerSecond: null } });
  await api.PUT(base, { body: { config_id, events: ['asset_bank.media.create'], maxReceivesPerSecond: 5 } });
  await api.PUT(base, { body: { config_id, filter: { brand: [{ prefix: 'ac' }] } } });
  await api.PUT(base, { body: { config_id, filter: null } });
  await api.POST(base, {
    body: { name: 'Filtered', endpoint: 'https://hooks.example.com/f', protocol: 'https', events: ['asset_bank.media.create'], filter: { brand: ['acme'] } },
  });
  const tried = await api.POST(`${base}/test-filter`, { body: { filter: { size: [{ numeric: ['>', 1000] }] }, data: { size: 512 } } });
  const matches: boolean | undefined = tried.data?.matches;
  const decidingKey: string | null | undefined = tried.data?.decidingKey;
  void matches;
  void decidingKey;
  await api.PUT(`${base}/activate`, { body: { config_id, status: 1 } });
  await api.PUT(`${base}/rename`, { body: { config_id, name: 'New name' } });
  await api.POST(`${base}/test`, { body: { config_id } });
  await api.POST(`${base}/confirm`, { body: { config_id } });
  const list = await api.GET(`${base}/list`);
  const when: string | null | undefined = list.data?.configs[0]?.lastDeliveredAt;
  void when;
  await api.GET(`${base}/dead-letters`, { params: { query: { config_id, limit: 10 } } });
  await api.GET(`${base}/dead-letters`, { params: { query: { config_id, cursor: 'abc' } } });
  await api.GET(`${base}/attempts`, { params: { query: { config_id, limit: 10, status: 'failed' } } });
  await api.POST(`${base}/replay`, { body: { config_id, eventIds: ['e-1'] } });
  await api.POST(`${base}/replay`, { body: { config_id } });
  await api.DELETE(`${base}/{configId}`, { params: { path: { configId: config_id } } });
  // The legacy prefix takes the same calls.
  await api.PUT('/webhooks/api/subscriptions/rename', { body: { config_id, name: 'Legacy' } });
}
