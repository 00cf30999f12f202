/**
 * `npm start`'s entry (tsx infra/local/start.ts) as a developer runs it: it prints where
 * everything is with commands that work as printed, and SIGTERM stops all of it, DynamoDB
 * Local's Java process included, and exits 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort } from '../infra/local/free-port';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const READY_LINE = 'Ctrl-C stops everything.';

let child: ChildProcess | undefined;
let output = '';

afterEach(() => {
  // Only if a test failed half-way: end the whole group it started (npm, tsx, node, java).
  if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
});

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

function exited(process: ChildProcess, timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not exit within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    process.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** What `start` was given, and its exit. */
interface Started {
  stack: ChildProcess;
  ports: Record<'PORT' | 'DYNAMODB_PORT' | 'SNS_PORT' | 'EVENTS_PORT', number>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the local stack on four free ports and waits for its printout. A port found free can
 * be taken by another suite before the stack binds it; the stack then refuses to start ("is in
 * use") and gets four new ports, at most 3 times.
 */
async function startOnFreePorts(command: string, args: string[]): Promise<Started> {
  for (let attempt = 1; ; attempt++) {
    const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort(), SNS_PORT: await freePort(), EVENTS_PORT: await freePort() };
    const environment: NodeJS.ProcessEnv = { ...process.env, IN_MEMORY: '1', POWERTOOLS_LOG_LEVEL: 'SILENT' };
    for (const [name, port] of Object.entries(ports)) environment[name] = String(port);
    delete environment.DATA_DIR;
    delete environment.LOCAL_OAUTH_CLIENTS; // the clients file shipped in the repository

    output = '';
    child = spawn(command, args, {
      cwd: ROOT,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a failed test can end all of it (see afterEach).
      detached: true,
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exit = exited(child, 120_000);

    // The printout, within a minute.
    const deadline = Date.now() + 60_000;
    for (let poll = 0; poll < 600 && !output.includes(READY_LINE); poll++) {
      if (child.exitCode !== null || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (output.includes(READY_LINE)) return { stack: child, ports, exit };
    const portTaken = /Port \d+ on 127\.0\.0\.1 is in use/.test(output);
    if (!portTaken || attempt === 3) throw new Error(`npm start did not get ready:\n${output}`);
    await exit;
  }
}

// The entry itself, and through npm, which runs it with `exec` so a signal to npm reaches it.
it.each([
  ['tsx infra/local/start.ts', `${ROOT}node_modules/.bin/tsx`, ['infra/local/start.ts']],
  ['npm start', 'npm', ['start']],
])('%s prints working commands, and SIGTERM stops everything and exits 0', async (_name, command, args) => {
  const { stack, ports, exit } = await startOnFreePorts(command, args);
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

  // The OpenAPI document and the admin page, where the printout says.
  const openApi = await fetch(`http://127.0.0.1:${ports.PORT}/openapi.json`);
  expect(output).toContain(`OpenAPI:         http://127.0.0.1:${ports.PORT}/openapi.json`);
  expect(((await openApi.json()) as { components: { securitySchemes: { portalOAuth: { flows: { clientCredentials: { tokenUrl: string } } } } } }).components.securitySchemes.portalOAuth.flows.clientCredentials.tokenUrl).toBe(tokenUrl);
  expect(output).toContain(`Admin page:      http://127.0.0.1:${ports.PORT}/admin/`);
  expect((await fetch(`http://127.0.0.1:${ports.PORT}/admin/`)).headers.get('content-type')).toMatch(/^text\/html/);

  // SIGTERM to the process started: everything stops, exit code 0.
  stack.kill('SIGTERM');
  expect(await exit).toEqual({ code: 0, signal: null });
  expect(output).toContain('Stopped.');
  for (const [name, port] of Object.entries(ports)) {
    expect([name, await listening(port)]).toEqual([name, false]);
  }
}, 150_000);
