/**
 * `npm start` and its entry under tsx's CLI (tsx infra/local/start.ts) as a developer runs them:
 * each prints where everything is with commands that work as printed, the handlers log one
 * readable line per entry, and SIGTERM stops all of it, DynamoDB Local's Java process included,
 * and exits 0.
 */
import { connect } from 'node:net';
import { type NpmStart, PROJECT_ROOT, startNpmStart } from '../support/npm-start';
import { waitFor } from '../support/wait-for';

let stack: NpmStart | undefined;

// Only if a test failed half-way: stop what it started (npm, tsx, node, java).
afterEach(() => stack?.stop());

/** Whether something accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** docs/failed-deliveries.md's "Locally": a retry schedule of seconds, and a disable horizon of minutes. */
const SETTINGS_OF_SECONDS = { DELIVERY_RETRY_SCHEDULE: '10s,30s', DISABLE_FAILING_AFTER: '2m', ATTEMPT_KEEP_DAYS: '1' };
/** Each at its default: blank is unset (and the shell running the tests may hold none of them). */
const SETTINGS_AT_DEFAULTS = { DELIVERY_RETRY_SCHEDULE: '', DISABLE_FAILING_AFTER: '5d', ATTEMPT_KEEP_DAYS: '' };

// The entry itself, and through npm, which runs it with `exec` so a signal to npm reaches it:
// the one at the functions' defaults, the other with delivery settings of its own.
it.each([
  ['tsx infra/local/start.ts', `${PROJECT_ROOT}node_modules/.bin/tsx`, ['infra/local/start.ts'], SETTINGS_AT_DEFAULTS],
  ['npm start', 'npm', ['start'], SETTINGS_OF_SECONDS],
])('%s prints working commands and the settings apart from the defaults, logs readable lines, and SIGTERM stops everything and exits 0', async (_name, command, args, settings) => {
  // LOG_FORMAT empty: the stack's own choice, whatever the shell running the tests holds.
  stack = await startNpmStart({ command: [command, ...args], variables: { POWERTOOLS_LOG_LEVEL: 'INFO', LOG_FORMAT: '', ...settings } });
  const output = stack.output();
  // The delivery settings in effect, where they are not the defaults (shared/settings.ts), and nothing else.
  const settingLines = output.slice(output.indexOf('Function settings'), output.indexOf('\n\n', output.indexOf('Function settings'))).split('\n');
  if (settings === SETTINGS_OF_SECONDS) {
    expect(settingLines).toEqual([
      'Function settings other than the defaults (docs/configuration.md):',
      expect.stringMatching(/^  ATTEMPT_KEEP_DAYS=1 +\(default 7\)$/),
      expect.stringMatching(/^  DELIVERY_RETRY_SCHEDULE=10s,30s +\(default 5m,30m,2h,5h,10h,10h\)$/),
      expect.stringMatching(/^  DISABLE_FAILING_AFTER=2m +\(default 5d\)$/),
    ]);
  } else {
    expect(settingLines).toEqual(['Function settings: every one at its default (docs/configuration.md).']);
  }
  const ports = { PORT: stack.ports.api, DYNAMODB_PORT: stack.ports.dynamoDb, SNS_PORT: stack.ports.sns, EVENTS_PORT: stack.ports.events };
  expect(output).toContain(`http://127.0.0.1:${ports.PORT}/v7/webhooks/public/api/subscriptions`);
  expect(output).toContain(`http://127.0.0.1:${ports.PORT}/webhooks/api/subscriptions`);
  expect(output).toContain(`aws --endpoint-url http://127.0.0.1:${ports.DYNAMODB_PORT} dynamodb scan --table-name `);
  expect(output).toContain(`aws --endpoint-url http://127.0.0.1:${ports.SNS_PORT} sns list-topics`);

  // The printed token request works as printed.
  const tokenCurl = /curl -s -X POST (\S+) -d grant_type=(\S+) -d client_id=(\S+) -d client_secret=(\S+)/.exec(output);
  expect(tokenCurl).not.toBeNull();
  const [, tokenUrl, grantType, clientId, clientSecret] = tokenCurl!;
  const token = await fetch(tokenUrl!, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: grantType!, client_id: clientId!, client_secret: clientSecret! }),
  });
  expect(token.status).toBe(200);

  // The printed list request, with the token printed in it, works as printed.
  const listCurl = /curl -s (\S+) -H 'Authorization: Bearer ([^']+)'/.exec(output);
  expect(listCurl).not.toBeNull();
  const list = await fetch(listCurl![1]!, { headers: { Authorization: `Bearer ${listCurl![2]}` } });
  expect(list.status).toBe(200);
  expect(await list.json()).toMatchObject({ success: true, configs: [] });
  // Its log line: time, level, operation, message, status and duration, not a JSON object.
  const listLogged = /^\d\d:\d\d:\d\d INFO  listSubscriptionsRoute request completed 200 \d+ms$/m;
  await waitFor('the list request in the log', () => listLogged.test(stack!.output()) || undefined);
  expect(stack.output()).not.toMatch(/^\{/m);

  // The OpenAPI document and the admin page, where the printout says.
  const openApi = await fetch(`http://127.0.0.1:${ports.PORT}/openapi.json`);
  expect(output).toContain(`OpenAPI:         http://127.0.0.1:${ports.PORT}/openapi.json`);
  expect(((await openApi.json()) as { components: { securitySchemes: { portalOAuth: { flows: { clientCredentials: { tokenUrl: string } } } } } }).components.securitySchemes.portalOAuth.flows.clientCredentials.tokenUrl).toBe(tokenUrl);
  expect(output).toContain(`Admin page:      http://127.0.0.1:${ports.PORT}/admin/`);
  expect((await fetch(`http://127.0.0.1:${ports.PORT}/admin/`)).headers.get('content-type')).toMatch(/^text\/html/);

  // SIGTERM to the process started: everything stops, exit code 0.
  await stack.stop();
  expect(await stack.exited).toEqual({ code: 0, signal: null });
  expect(stack.output()).toContain('Stopped.');
  for (const [name, port] of Object.entries(ports)) {
    expect([name, await listening(port)]).toEqual([name, false]);
  }
}, 150_000);
