/**
 * `npm test` beside `npm start`: with every default port taken by something else (3000, 8000,
 * 9911, 9912 of the local stack, 4000 of the reference receiver), each way a suite starts a stack
 * still starts and answers, since none of them can fall back to a default port; and `npm start`
 * itself, on a taken port, says in one line which variable chooses another.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, relative } from 'node:path';
import { freePort } from '../../infra/local/free-port';
import { DEFAULT_PORTS } from '../../infra/local/stack/local-stack';
import { startHostileHarness } from '../hostile/harness';
import { PROJECT_ROOT, startNpmStart, tokenFor } from '../support/npm-start';
import { API_PREFIXES } from '../../shared/operations';

const RECEIVER_DEFAULT_PORT = 4000;
const DEFAULT_PORT_LIST = [...Object.values(DEFAULT_PORTS), RECEIVER_DEFAULT_PORT];

/** Servers of this suite on the default ports that were free; a port already taken (say by `npm start`) is held anyway. */
const holders: Server[] = [];

function hold(port: number): Promise<void> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', () => resolve());
    server.listen(port, '127.0.0.1', () => {
      holders.push(server);
      resolve();
    });
  });
}

beforeAll(async () => {
  await Promise.all(DEFAULT_PORT_LIST.map(hold));
});

afterAll(async () => {
  await Promise.all(holders.map((server) => new Promise((resolve) => server.close(resolve))));
});

// One in-process stack per suite (the handlers read their endpoints once, at import): the
// hostile-input harness's, which is startTestStack's, the one the delivery and stack suites use.
it('starts the test stack, as the hostile-input harness does, on free ports while the default ports are taken', async () => {
  const harness = await startHostileHarness();
  try {
    const { stack } = harness;
    const ports = [stack.apiUrl, stack.dynamoDb.endpoint, stack.sns.endpoint, stack.events.endpoint].map((url) => Number(new URL(url).port));
    expect(ports.filter((port) => DEFAULT_PORT_LIST.includes(port))).toEqual([]);
    expect((await harness.api('bystander', 'GET', '/list')).status).toBe(200);
  } finally {
    await harness.stop();
  }
}, 90_000);

it('starts npm start for the suites on free ports while the default ports are taken', async () => {
  const stack = await startNpmStart();
  try {
    expect(Object.values(stack.ports).filter((port) => DEFAULT_PORT_LIST.includes(port))).toEqual([]);
    const token = await tokenFor(stack, 'portal-a-admin', 'portal-a-admin-secret');
    const listed = await fetch(`${stack.baseUrl}${API_PREFIXES[0]}/list`, { headers: { authorization: `Bearer ${token}` } });
    expect(listed.status).toBe(200);
  } finally {
    await stack.stop();
  }
}, 90_000);

it('npm start on a taken port fails in one line naming the variable that chooses another', async () => {
  // EVENTS_PORT is the one the default-holding servers may not own (something else may); take a fresh one.
  const taken = await freePort();
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(taken, '127.0.0.1', resolve));
  try {
    const failure = await startNpmStart({ variables: { EVENTS_PORT: String(taken) } }).then(
      () => new Error('npm start started'),
      (error: Error) => error,
    );
    expect(failure.message).toMatch(
      new RegExp(`\\nnpm start failed: Port ${taken} on 127\\.0\\.0\\.1 is in use: the EventBridge stand-in cannot listen there\\. .*EVENTS_PORT=\\d+ npm start\\n`),
    );
    expect(failure.message).not.toMatch(/\n\s+at /);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
}, 90_000);

it('no suite starts the local stack but through the test support (which always asks for free ports)', () => {
  const allowed = new Set([
    'test/support/local-stack-client.ts',
    // Two starts on the same four ports, found free, and the same data directory.
    'test/local/stack.persistence.test.ts',
  ]);
  const callers: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts') && /\bstartLocalStack\(/.test(readFileSync(path, 'utf8'))) callers.push(relative(PROJECT_ROOT, path));
    }
  };
  visit(join(PROJECT_ROOT, 'test'));
  expect(callers.filter((caller) => !allowed.has(caller))).toEqual([]);
});
