/**
 * Calls the service refuses for their shape: with openapi-typescript's types and openapi-fetch,
 * each must fail to compile, where its `@ts-expect-error` says (an unused one is an error too).
 * test/service/openapi.client-types.test.ts compiles it. Never run.
 */
import createClient from 'openapi-fetch';
import type { paths } from './generated/openapi-typescript';

const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000' });
const base = '/v7/webhooks/public/api/subscriptions';
const config_id = '0192f8a4-7b3c-7d2e-9f01-23456789abcd';

export async function refusedCalls(): Promise<void> {
  // @ts-expect-error -- rename without config_id
  await api.PUT(`${base}/rename`, { body: { name: 'x' } });
  // @ts-expect-error -- update with nothing to change
  await api.PUT(base, { body: { config_id } });
  // @ts-expect-error -- test without config_id
  await api.POST(`${base}/test`, { body: {} });
  // @ts-expect-error -- confirm without config_id
  await api.POST(`${base}/confirm`, { body: {} });
  // @ts-expect-error -- activate without status
  await api.PUT(`${base}/activate`, { body: { config_id } });
  // @ts-expect-error -- activate with a status that is neither 0 nor 1
  await api.PUT(`${base}/activate`, { body: { config_id, status: 2 } });
  // @ts-expect-error -- a name that is not a string
  await api.PUT(`${base}/rename`, { body: { config_id, name: 42 } });
  // @ts-expect-error -- an endpoint that is not a string
  await api.POST(base, { body: { name: 'x', endpoint: 42, protocol: 'https', events: ['asset_bank.media.create'] } });
  // @ts-expect-error -- a protocol the service does not know
  await api.POST(base, { body: { name: 'x', endpoint: 'ftp://x', protocol: 'ftp', events: ['asset_bank.media.create'] } });
  // @ts-expect-error -- create without events
  await api.POST(base, { body: { name: 'x', endpoint: 'https://x.example', protocol: 'https' } });
  // @ts-expect-error -- an event kind outside the catalog
  await api.POST(base, { body: { name: 'x', endpoint: 'https://x.example', protocol: 'https', events: ['no.such.kind'] } });
  // @ts-expect-error -- limit as a string
  await api.GET(`${base}/dead-letters`, { params: { query: { config_id, limit: '10' } } });
  // @ts-expect-error -- dead letters without config_id
  await api.GET(`${base}/dead-letters`, { params: { query: { limit: 10 } } });
  // @ts-expect-error -- an attempts status that does not exist
  await api.GET(`${base}/attempts`, { params: { query: { config_id, status: 'pending' } } });
  // @ts-expect-error -- replay's eventIds as one string
  await api.POST(`${base}/replay`, { body: { config_id, eventIds: 'e-1' } });
}
