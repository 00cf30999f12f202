/**
 * `npm start` as a developer runs it, in memory on free ports of 127.0.0.1, with the OAuth
 * clients shipped in the repository, for suites that check what a developer sees: its output
 * (the printout, the gateway's and the handlers' log lines) and its API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../infra/local/free-port';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY_LINE = 'Ctrl-C stops everything.';
const READY_WITHIN_MS = 60_000;
const STOPPED_WITHIN_MS = 30_000;

export interface NpmStart {
  readonly ports: { readonly api: number; readonly dynamoDb: number; readonly sns: number; readonly events: number };
  /** e.g. http://127.0.0.1:54321 */
  readonly baseUrl: string;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM, as Ctrl-C would; the whole process group is killed if it is not gone in 30 s. */
  stop(): Promise<void>;
  /** How the process started exited, once it has. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface NpmStartOptions {
  /** Environment variables beyond a developer's shell. */
  variables?: Record<string, string>;
  /** What runs instead of `npm start`: the entry itself, say (`tsx infra/local/start.ts`). */
  command?: readonly [string, ...string[]];
}

/** How many times the stack gets new ports when one found free was taken before it bound it. */
const START_ATTEMPTS = 3;
const PORT_TAKEN = /Port \d+ on 127\.0\.0\.1 is in use/;

/**
 * Starts `npm start` and resolves once its printout is complete. A port found free can be
 * taken by another suite before the stack binds it; the stack then refuses to start ("is in
 * use"), and is started again on new ports.
 */
export async function startNpmStart(options: NpmStartOptions = {}): Promise<NpmStart> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt === START_ATTEMPTS || !PORT_TAKEN.test((error as Error).message)) throw error;
    }
  }
}

async function startOnce({ variables = {}, command = ['npm', 'start'] }: NpmStartOptions): Promise<NpmStart> {
  const ports = { api: await freePort(), dynamoDb: await freePort(), sns: await freePort(), events: await freePort() };
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    IN_MEMORY: '1',
    PORT: String(ports.api),
    DYNAMODB_PORT: String(ports.dynamoDb),
    SNS_PORT: String(ports.sns),
    EVENTS_PORT: String(ports.events),
    POWERTOOLS_LOG_LEVEL: 'INFO',
    ...variables,
  };
  // What jest's global setup set for the in-process suites is not a developer's shell.
  for (const name of ['DATA_DIR', 'LOCAL_OAUTH_CLIENTS', 'TABLE_NAME', 'TOPIC_PREFIX', 'AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL_SNS', 'DELIVERY_DEAD_LETTER_QUEUE_ARN']) {
    if (!(name in variables)) delete environment[name];
  }
  let output = '';
  const [program, ...args] = command;
  const child: ChildProcess = spawn(program, args, {
    cwd: PROJECT_ROOT,
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stop() can end all of it (npm, tsx, node, java) if it hangs.
    detached: true,
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const killGroup = () => {
    if (child.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), STOPPED_WITHIN_MS)));
    if ((await Promise.race([exited, timedOut])) === 'timeout') killGroup();
    clearTimeout(timer);
  };

  const deadline = Date.now() + READY_WITHIN_MS;
  for (let poll = 0; poll < READY_WITHIN_MS / 100 && !output.includes(READY_LINE); poll++) {
    if (child.exitCode !== null || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!output.includes(READY_LINE)) {
    killGroup();
    await exited;
    throw new Error(`npm start did not get ready:\n${output}`);
  }
  return { ports, baseUrl: `http://127.0.0.1:${ports.api}`, output: () => output, stop, exited };
}

/** A token of a client of infra/local/auth/clients.json, from the token endpoint. */
export async function tokenFor(stack: NpmStart, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${stack.baseUrl}/v6/authentication/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
