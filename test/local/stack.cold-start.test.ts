/**
 * The handlers' logs under `npm start`, where the handlers share one process and one logger:
 * the first request of each handler logs `cold_start: true` on every line, as its first
 * invocation on Lambda would, and every later request `false`. The lines are read in the JSON
 * format (LOG_FORMAT=json), which carries the Lambda context's fields.
 */
import { type NpmStart, startNpmStart, tokenFor } from '../support/npm-start';

const PREFIX = '/v7/webhooks/public/api/subscriptions';

let stack: NpmStart;

beforeAll(async () => {
  stack = await startNpmStart({ variables: { LOG_FORMAT: 'json' } });
}, 90_000);

afterAll(async () => {
  await stack?.stop();
}, 40_000);

interface LogLine {
  operation?: string;
  function_request_id?: string;
  cold_start?: boolean;
}

/** The handlers' JSON log lines printed so far. */
function handlerLogLines(): LogLine[] {
  return stack
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.operation !== undefined);
}

it('logs cold_start true on the first request of each handler and false on every later one', async () => {
  const token = await tokenFor(stack, 'portal-a-admin', 'portal-a-admin-secret');
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.baseUrl}${PREFIX}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect([method, path, response.status]).toEqual([method, path, 200]);
    return (await response.json()) as { record?: { configId: string } };
  };
  const subscription = { name: 'Cold start', endpoint: 'https://127.0.0.1:9/cold', protocol: 'https', events: ['workflow.job.create'] };

  // Each handler twice, in an order that interleaves them.
  const first = (await send('POST', '', subscription)).record!.configId;
  const second = (await send('POST', '', subscription)).record!.configId;
  for (let round = 0; round < 2; round++) {
    await send('GET', '/list');
    await send('PUT', '/rename', { config_id: first, name: `Renamed ${round}` });
    await send('PUT', '', { config_id: first, events: ['antivirus.scan.failed'] });
    await send('PUT', '/activate', { config_id: first, status: round });
  }
  await send('DELETE', `/${first}`);
  await send('DELETE', `/${second}`);

  const byOperation = new Map<string, Map<string, (boolean | undefined)[]>>();
  for (const line of handlerLogLines()) {
    const requests = byOperation.get(line.operation!) ?? new Map<string, (boolean | undefined)[]>();
    requests.set(line.function_request_id!, [...(requests.get(line.function_request_id!) ?? []), line.cold_start]);
    byOperation.set(line.operation!, requests);
  }
  expect([...byOperation.keys()].sort()).toEqual([
    'activateSubscriptionRoute',
    'createSubscriptionRoute',
    'deleteSubscriptionRoute',
    'listSubscriptionsRoute',
    'renameSubscriptionRoute',
    'updateSubscriptionRoute',
  ]);
  for (const [operation, requests] of byOperation) {
    // In the order the requests were made: a Map keeps the order its keys were first set.
    const coldStarts = [...requests.values()].map((lines) => [...new Set(lines)]);
    expect([operation, coldStarts]).toEqual([operation, [[true], [false]]]);
  }
}, 60_000);
