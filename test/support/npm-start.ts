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
}

/** Starts `npm start` and resolves once its printout is complete. */
export async function startNpmStart(variables: Record<string, string> = {}): Promise<NpmStart> {
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
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: PROJECT_ROOT,
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stop() can end all of it (npm, tsx, node, java) if it hangs.
    detached: true,
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
    if (child.exitCode !== null || Date.now() > deadline) {
      killGroup();
      throw new Error(`npm start did not get ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!output.includes(READY_LINE)) {
    killGroup();
    throw new Error(`npm start did not get ready:\n${output}`);
  }
  return { ports, baseUrl: `http://127.0.0.1:${ports.api}`, output: () => output, stop };
}

/** A token of a client of infra/local/oauth-clients.json, from the token endpoint. */
export async function tokenFor(stack: NpmStart, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${stack.baseUrl}/v6/authentication/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
