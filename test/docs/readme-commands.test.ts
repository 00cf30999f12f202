/**
 * The README's shell commands, run as a new user would run them: every ```sh block is either
 * run here against `npm start` (in memory, on free ports, which replace the README's 3000, 8000,
 * 9911, 9912 and 4000) or named below with the reason it cannot be, and they run in bash on a PATH
 * with only Node, Java, curl, the AWS CLI and basic POSIX tools: no uuidgen, no jq.
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../infra/local/free-port';
import { type NpmStart, PROJECT_ROOT, startNpmStart, tokenFor } from '../support/npm-start';

/** Every ```sh block of the README by the heading it sits under: run here, or why not. */
const BLOCKS: Readonly<Record<string, 'run' | { notRun: string }>> = {
  'Quick start': { notRun: 'installs, starts the stack this suite starts itself, and runs npm test (this suite among them)' },
  'Install and test': { notRun: 'installs and runs npm test, which runs this suite' },
  'Run locally': { notRun: 'npm start, which this suite starts itself on free ports' },
  Example: { notRun: 'cdk deploy needs an AWS account' },
  'Run one function with SAM': { notRun: 'sam local invoke needs the SAM CLI and Docker; test/infra/sam-invoke.test.ts does the same without them' },
  'OpenAPI document': { notRun: 'npx fetches a client generator; test/service/openapi.document.test.ts checks the document that npm run openapi writes' },
  Delivery: { notRun: "puts an event on the deployed bus, which needs an AWS account; 'Watching a delivery' does the same against npm start" },
  Reconciliation: { notRun: 'test/service/reconciliation.test.ts runs npm run reconcile, with and without --dry-run, against a stack of its own' },
  'Admin page': { notRun: 'runs the browser suite, which npm test runs' },
  Performance: { notRun: 'the full run takes minutes and proves nothing in a test; test/bench/smoke.test.ts runs npm run bench -- --quick' },
  'Calling the API with curl': 'run',
  'Idempotent creates': 'run',
  'The AWS CLI (or any SDK) against the emulators': 'run',
  'Watching a delivery': 'run',
};

/** What README commands may use besides bash's builtins: Node, Java, curl, the AWS CLI and POSIX basics. */
const ALLOWED_TOOLS = ['java', 'curl', 'aws', 'cat', 'tee', 'sleep', 'seq', 'grep', 'sed', 'head', 'tail', 'env', 'rm', 'mkdir', 'ls'];
const SCRIPT_TIMEOUT_MS = 120_000;

interface Block {
  heading: string;
  text: string;
}

function readmeBlocks(): Block[] {
  const blocks: Block[] = [];
  let heading = '';
  let current: string[] | undefined;
  for (const line of readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8').split('\n')) {
    if (current) {
      if (line.startsWith('```')) {
        blocks.push({ heading, text: current.join('\n') });
        current = undefined;
      } else current.push(line);
    } else if (line.startsWith('```sh')) current = [];
    else if (/^#{1,4} /.test(line)) heading = line.replace(/^#+ /, '');
  }
  return blocks;
}

function blockUnder(heading: string): string {
  const found = readmeBlocks().filter((block) => block.heading === heading);
  expect(found).toHaveLength(1);
  return found[0]!.text;
}

let stack: NpmStart;
let receiverPort: number;
let workDir: string;
let binDir: string;

beforeAll(async () => {
  [stack, receiverPort] = await Promise.all([startNpmStart(), freePort()]);
  workDir = mkdtempSync(join(tmpdir(), 'readme-'));
  binDir = join(workDir, 'bin');
  // Each allowed tool as found on this machine, run with the full PATH it may need itself
  // (a pyenv shim, say); the README's commands see only this directory.
  const wrappers: Record<string, string> = { node: process.execPath };
  for (const tool of ALLOWED_TOOLS) wrappers[tool] = tool;
  mkdirSync(binDir);
  for (const [name, target] of Object.entries(wrappers)) {
    const file = join(binDir, name);
    writeFileSync(file, `#!/bin/sh\nPATH=${JSON.stringify(process.env.PATH ?? '')} exec ${JSON.stringify(target)} "$@"\n`);
    chmodSync(file, 0o755);
  }
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}, 40_000);

/** The README's commands for this stack: its ports instead of the defaults. */
function onThisStack(text: string): string {
  return text
    .replaceAll('127.0.0.1:3000', `127.0.0.1:${stack.ports.api}`)
    .replaceAll('127.0.0.1:8000', `127.0.0.1:${stack.ports.dynamoDb}`)
    .replaceAll('127.0.0.1:9911', `127.0.0.1:${stack.ports.sns}`)
    .replaceAll('127.0.0.1:9912', `127.0.0.1:${stack.ports.events}`)
    .replaceAll('127.0.0.1:4000', `127.0.0.1:${receiverPort}`)
    .replaceAll('listen(4000,', `listen(${receiverPort},`);
}

interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` in bash on the restricted PATH, in its own process group, killed as a whole
 * (a background receiver included) when it ends or after SCRIPT_TIMEOUT_MS. `options.strict`:
 * stop at the first failing command (set -e -o pipefail), as every command must work.
 */
async function runScript(script: string, options: { strict: boolean }): Promise<ScriptRun> {
  const name = `script-${Date.now()}`;
  const file = join(workDir, `${name}.sh`);
  // Files, as a terminal would be: /dev/stderr cannot be opened on the sockets spawn() pipes through.
  const stdoutFile = join(workDir, `${name}.out`);
  const stderrFile = join(workDir, `${name}.err`);
  writeFileSync(file, `${options.strict ? 'set -e -o pipefail\n' : ''}STDOUT_FILE=${JSON.stringify(stdoutFile)}\n${script}\n`);
  const [stdoutFd, stderrFd] = [openSync(stdoutFile, 'w'), openSync(stderrFile, 'w')];
  const child = spawn('/bin/bash', [file], {
    cwd: workDir,
    env: { PATH: binDir, HOME: workDir, LANG: 'C.UTF-8' },
    stdio: ['ignore', stdoutFd, stderrFd],
    detached: true,
  });
  closeSync(stdoutFd);
  closeSync(stderrFd);
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(killGroup, SCRIPT_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  killGroup(); // what it left in the background
  return { code, stdout: readFileSync(stdoutFile, 'utf8'), stderr: readFileSync(stderrFile, 'utf8') };
}

/** Test glue between README commands: waits (bounded) until the script's output so far holds `text`. */
function waitForOutput(text: string): string {
  return `node -e '
    const { readFileSync } = require("fs");
    const deadline = Date.now() + 30000;
    const poll = () => {
      let output = "";
      try { output = readFileSync(process.argv[1], "utf8"); } catch {}
      if (output.includes(process.argv[2])) return;
      if (Date.now() > deadline) { console.error("waited 30 s in vain for " + process.argv[2]); process.exit(1); }
      setTimeout(poll, 100);
    };
    poll();' "$STDOUT_FILE" ${JSON.stringify(text)}`;
}

/** Test glue: waits (bounded) until the API lists the receiver's subscription as confirmed. */
function waitForConfirmation(): string {
  const confirmed = `curl -s $API/list -H "Authorization: Bearer $TOKEN" | grep -q '"name":"Local receiver"[^}]*"confirmed":true'`;
  return `for attempt in $(seq 1 40); do
  ${confirmed} && break
  sleep 0.25
done
${confirmed}`;
}

async function portalAList(): Promise<{ configId: string; name: string }[]> {
  const token = await tokenFor(stack, 'portal-a-admin', 'portal-a-admin-secret');
  const response = await fetch(`${stack.baseUrl}/v7/webhooks/public/api/subscriptions/list`, { headers: { authorization: `Bearer ${token}` } });
  return ((await response.json()) as { configs: { configId: string; name: string }[] }).configs;
}

/**
 * Where npm start's output stands once everything requested so far is logged: a request of its
 * own, a path no route has, marks the place in the gateway's log (which logs in order).
 */
async function gatewayLogMark(): Promise<number> {
  const path = `/readme-mark-${Date.now()}`;
  expect((await fetch(`${stack.baseUrl}${path}`)).status).toBe(404);
  for (let poll = 0; poll < 100 && !stack.output().includes(`GET ${path} `); poll++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const at = stack.output().indexOf(`GET ${path} `);
  expect(at).toBeGreaterThan(0);
  return stack.output().indexOf('\n', at);
}

describe('the README', () => {
  it('has every command block either run here or named with the reason it is not', () => {
    const blocks = readmeBlocks();
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.map((block) => block.heading).filter((heading) => !(heading in BLOCKS))).toEqual([]);
    for (const [heading, verdict] of Object.entries(BLOCKS)) {
      expect([heading, blocks.some((block) => block.heading === heading)]).toEqual([heading, true]);
      if (verdict !== 'run') expect(verdict.notRun.length).toBeGreaterThan(10);
    }
  });

  it('runs as written: the curl walk-through, an idempotent create run twice, the AWS CLI and a delivery', async () => {
    const walkThrough = blockUnder('Calling the API with curl');
    const idempotentCreate = blockUnder('Idempotent creates');
    expect(idempotentCreate).toMatch(/^KEY=\$\(.*\)/m);
    const [receiveAndCreate, publish] = blockUnder('Watching a delivery').split(/\n(?=# A portal event of a kind)/);
    expect(publish).toBeDefined();
    const script = [
      onThisStack(walkThrough),
      'echo "== idempotent create, first run"',
      onThisStack(idempotentCreate),
      // "The same command again": the create, with the key the block made.
      'echo "== idempotent create, second run"',
      onThisStack(idempotentCreate.split('\n').filter((line) => !line.startsWith('KEY=')).join('\n')),
      'echo "== AWS CLI"',
      onThisStack(blockUnder('The AWS CLI (or any SDK) against the emulators')),
      'echo "== delivery"',
      onThisStack(receiveAndCreate!),
      // The README says to publish once the receiver has printed SubscriptionConfirmation (and confirmed).
      waitForOutput('SubscriptionConfirmation'),
      waitForConfirmation(),
      onThisStack(publish!),
      waitForOutput('"data":{"mediaId":"m-1"}}'),
      'kill %1', // as the README says
    ].join('\n');

    const run = await runScript(script, { strict: true });

    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/command not found|No such file/) });
    expect(run.stderr).toContain('"message":"Subscription created."');
    for (const answer of ['Subscription renamed.', 'Subscription events updated.', 'Subscription deactivated.', 'Subscription activated.', 'Subscription deleted.']) {
      expect(run.stdout).toContain(`{"success":true,"message":"${answer}"`);
    }
    // The idempotent create: the second run answers the first answer byte for byte, and creates nothing.
    const [, first, second] = /== idempotent create, first run\n(.*)\n== idempotent create, second run\n(.*)\n/.exec(run.stdout) ?? [];
    expect(first).toMatch(/^\{"success":true,"message":"Subscription created\.","record":\{/);
    expect(second).toBe(first);
    const configId = (JSON.parse(first!) as { record: { configId: string } }).record.configId;
    expect((await portalAList()).filter((entry) => entry.name === 'Media updates').map((entry) => entry.configId)).toEqual([configId]);
    // The AWS CLI commands answered.
    expect(run.stdout).toMatch(/"Items": \[/);
    expect(run.stdout).toMatch(/"Topics": \[/);
    expect(run.stdout).toMatch(/"Subscriptions": \[/);
    // The receiver confirmed, then printed the published event.
    expect(run.stdout).toContain('SubscriptionConfirmation You have chosen to subscribe to the topic');
    const notifications = run.stdout.split('\n').filter((line) => line.startsWith('Notification '));
    expect(notifications).toHaveLength(1);
    expect(JSON.parse(notifications[0]!.slice('Notification '.length))).toMatchObject({
      event: 'asset_bank.media.create',
      portalId: 'portal-a',
      data: { mediaId: 'm-1' },
    });
  }, 150_000);

  it('walk-through stops cleanly on a full portal: the refusal, a clear message, and no request with an empty id', async () => {
    const token = await tokenFor(stack, 'portal-a-admin', 'portal-a-admin-secret');
    const body = JSON.stringify({ name: 'Filler', endpoint: 'https://127.0.0.1:9/filler', protocol: 'https', events: ['workflow.job.create'] });
    for (let filled = 0; filled < 10; filled++) {
      const response = await fetch(`${stack.baseUrl}/v7/webhooks/public/api/subscriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      if (response.status === 400) break;
      expect(response.status).toBe(200);
    }
    expect(await portalAList()).toHaveLength(10);
    const printedBefore = await gatewayLogMark();

    // Not strict: pasted into a terminal, the commands run on whatever fails before them.
    const run = await runScript(onThisStack(blockUnder('Calling the API with curl')), { strict: false });

    expect(run.stderr).toContain('"code":"SUBSCRIPTION_LIMIT_REACHED"');
    expect(run.stderr).toContain('No subscription was created (This portal already has the maximum of 10 subscriptions');
    expect(run.stderr).toContain('CONFIG_ID: no subscription was created, see above');
    expect(run.stderr).not.toMatch(/\n\s+at |TypeError|SyntaxError|Cannot read properties/);
    expect(run.code).not.toBe(0);
    // What reached the API: the token, the refused create and the list; no rename, update, activate or delete.
    const printedAfter = await gatewayLogMark();
    const requests = stack
      .output()
      .slice(printedBefore, printedAfter)
      .split('\n')
      .filter((line) => line.startsWith('[gateway] ') && !line.includes('/readme-mark-'))
      .map((line) => line.replace(/ -> .*/, '').replace(/\/v7\/webhooks\/public\/api\/subscriptions/, '{API}'));
    expect(requests).toEqual(['[gateway] POST /v6/authentication/oauth2/token', '[gateway] POST {API}', '[gateway] GET {API}/list']);
    expect(await portalAList()).toHaveLength(10);
  }, 90_000);
});
