/**
 * Calling the API from TypeScript: types generated from the OpenAPI document with
 * openapi-typescript, requests with openapi-fetch. A subscription's whole life: create, list,
 * rename, update, activate, test, delete. Against `npm start`:
 *
 *   npx openapi-typescript http://127.0.0.1:3000/openapi.json -o examples/typescript-client/generated/webhooks-api.ts
 *   npx tsx examples/typescript-client/client.ts https://your-receiver.example/webhooks
 *
 * (WEBHOOKS_API_URL, WEBHOOKS_CLIENT_ID and WEBHOOKS_CLIENT_SECRET choose another stack and
 * client.) test/local/typescript-client.test.ts generates the types from the document the local
 * stack serves, type-checks this file and runs it.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './generated/webhooks-api';

type EventKind = components['schemas']['EventKind'];

const BASE = '/v7/webhooks/public/api/subscriptions';

export interface ClientOptions {
  /** The API's base URL, e.g. http://127.0.0.1:3000. */
  readonly apiUrl: string;
  /** The OAuth 2.0 token endpoint (client credentials). */
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/** An access token for the client (client credentials, client_secret_post). */
async function accessToken({ tokenUrl, clientId, clientSecret }: ClientOptions): Promise<string> {
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (!response.ok) throw new Error(`The token endpoint answered ${response.status}.`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A typed client of the API that sends a bearer token with every request. */
export async function webhooksClient(options: ClientOptions) {
  const token = await accessToken(options);
  const client = createClient<paths>({ baseUrl: options.apiUrl });
  const bearer: Middleware = {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  };
  client.use(bearer);
  return client;
}

/** The answer's data, or an error naming the service's code (or the gateway's message). */
function dataOf<T>(what: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data !== undefined) return answer.data;
  throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates a subscription to `endpoint` and takes it through its life; returns what happened, step by step. */
export async function lifecycle(options: ClientOptions, endpoint: string, eventKind: EventKind): Promise<string[]> {
  const api = await webhooksClient(options);
  const steps: string[] = [];

  const created = dataOf(
    'create',
    await api.POST(BASE, {
      body: { name: 'Example client', endpoint, protocol: endpoint.startsWith('https:') ? 'https' : 'http', events: [eventKind] },
      params: { header: { 'Idempotency-Key': crypto.randomUUID() } },
    }),
  );
  const config_id = created.record.configId;
  steps.push(`created ${config_id}`);

  // The endpoint confirms the subscription (SNS's confirmation request); list shows when.
  let confirmed = false;
  for (let tries = 0; !confirmed && tries < 100; tries++) {
    const listed = dataOf('list', await api.GET(`${BASE}/list`));
    confirmed = listed.configs.some((entry) => entry.configId === config_id && entry.confirmed);
    if (!confirmed) await sleep(100);
  }
  steps.push(confirmed ? 'listed, confirmed' : 'listed, not confirmed');

  dataOf('rename', await api.PUT(`${BASE}/rename`, { body: { config_id, name: 'Example client, renamed' } }));
  steps.push('renamed');
  dataOf('update', await api.PUT(BASE, { body: { config_id, events: [eventKind], maxReceivesPerSecond: 5 } }));
  steps.push('updated');
  dataOf('activate', await api.PUT(`${BASE}/activate`, { body: { config_id, status: 1 } }));
  steps.push('activated');
  dataOf('test', await api.POST(`${BASE}/test`, { body: { config_id } }));
  steps.push('tested');
  dataOf('delete', await api.DELETE(`${BASE}/{configId}`, { params: { path: { configId: config_id } } }));
  steps.push('deleted');
  return steps;
}

// Run directly: against `npm start` and its default client, unless told otherwise.
if (import.meta.url === `file://${process.argv[1]}`) {
  const apiUrl = process.env.WEBHOOKS_API_URL ?? 'http://127.0.0.1:3000';
  const endpoint = process.argv[2];
  if (!endpoint) throw new Error('Give the endpoint to subscribe: an http(s) URL that confirms SNS subscriptions.');
  const steps = await lifecycle(
    {
      apiUrl,
      tokenUrl: `${apiUrl}/v6/authentication/oauth2/token`,
      clientId: process.env.WEBHOOKS_CLIENT_ID ?? 'portal-a-admin',
      clientSecret: process.env.WEBHOOKS_CLIENT_SECRET ?? 'portal-a-admin-secret',
    },
    endpoint,
    (process.argv[3] ?? 'asset_bank.media.create') as EventKind,
  );
  console.log(steps.join('\n'));
}
