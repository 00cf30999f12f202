/**
 * The documentation's shell commands, run as a new user would run them: every ```sh block of the
 * README and of every docs/*.md page is either run here against `npm start` (in memory, on free
 * ports, which replace the documented 3000, 8000, 9911, 9912 and 4000) or named in sh-blocks.ts
 * with the reason it cannot be, and they run in bash on a PATH with only Node, Java, curl, the
 * AWS CLI and basic POSIX tools: no uuidgen, no jq.
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../infra/local/free-port';
import { AWS_CLI } from '../support/aws-cli-env';
import { type NpmStart, PROJECT_ROOT, startNpmStart, tokenFor } from '../support/npm-start';
import { BLOCKS, ALLOWED_TOOLS, pages, allBlocks, blockUnder, awsCallsWithoutEndpoint, redirectTargets } from './sh-blocks';

const SCRIPT_TIMEOUT_MS = 120_000;

let stack: NpmStart;
let receiverPort: number;
let workDir: string;
let binDir: string;

beforeAll(async () => {
  [stack, receiverPort] = await Promise.all([startNpmStart(), freePort()]);
  workDir = mkdtempSync(join(tmpdir(), 'readme-'));
  binDir = join(workDir, 'bin');
  // Each allowed tool as found on this machine, run with the full PATH it may need itself
  // (a pyenv shim, say); the documented commands see only this directory.
  const wrappers: Record<string, string> = { node: process.execPath };
  for (const tool of ALLOWED_TOOLS) wrappers[tool] = tool === 'aws' ? AWS_CLI : tool;
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

/** The documented commands for this stack: its ports instead of the defaults, and its certificate authority (in memory: the file it printed). */
function onThisStack(text: string): string {
  const authorityFile = /NODE_EXTRA_CA_CERTS=(\S+)/.exec(stack.output())?.[1];
  expect(authorityFile).toBeDefined();
  return text
    .replaceAll('.data/sns/local-ca.pem', authorityFile!)
    .replaceAll('127.0.0.1:3000', `127.0.0.1:${stack.ports.api}`)
    .replaceAll('127.0.0.1:8000', `127.0.0.1:${stack.ports.dynamoDb}`)
    .replaceAll('127.0.0.1:9911', `127.0.0.1:${stack.ports.sns}`)
    .replaceAll('127.0.0.1:9912', `127.0.0.1:${stack.ports.events}`)
    .replaceAll('127.0.0.1:4000', `127.0.0.1:${receiverPort}`);
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

/** Test glue between documented commands: waits (bounded) until the script's output so far holds `text`. */
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

/**
 * Test glue before docs/local.md's delivery: the reference receiver listens on its default port,
 * 4000, replaced like the others, and runs from the repository's directory, as the page says.
 */
function receiverSetUp(): string {
  return `export RECEIVER_PORT=${receiverPort}\ncd ${JSON.stringify(PROJECT_ROOT)}`;
}

/** docs/receiving.md's block on this stack, from the repository's directory, waiting at the end for what it says the receiver prints. */
function receivingScript(): string {
  return [
    receiverSetUp(),
    onThisStack(blockUnder('docs/receiving.md', 'Against npm start')),
    waitForOutput('event asset_bank.media.create '),
    waitForOutput('event webhooks.test '),
    // As the page says; and waited for, so its port is free for the next receiver.
    'kill %1',
    'wait',
  ].join('\n');
}

function expectBothEventsReceived(run: ScriptRun): void {
  // The receiver is given its own topic only: messages of the earlier blocks' subscriptions to the
  // same URL (other topics) are refused, as docs/receiving.md says; nothing else is.
  const otherTopics = /^refused: topic \S+ is not one of ours$/;
  const stderr = run.stderr.split('\n').filter((line) => !otherTopics.test(line)).join('\n');
  expect({ code: run.code, stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/command not found|No such file|refused|could not confirm/) });
  expect(run.stdout).not.toContain('ENDPOINT_NOT_CONFIRMED');
  expect(run.stdout).toMatch(/^confirmed arn:aws:sns:us-east-1:000000000000:webhooks-/m);
  expect(run.stdout).toMatch(/^event asset_bank\.media\.create \S+ of \S+: \{"mediaId":"m-1"\}$/m);
  // curl's answer ends without a newline: the receiver's line may follow it on the same line.
  expect(run.stdout).toMatch(/(^|\})event webhooks\.test \S+ of \S+: \{"name":"Reference receiver"/m);
}

/**
 * Busy loops, one per core, each ending by itself within 150 s: a machine as loaded as a full
 * `npm test` beside `npm start` makes it, where a receiver takes many seconds to listen.
 */
function loadTheMachine(): { stop(): void } {
  const hogs = Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'const end = Date.now() + 150000; while (Date.now() < end);'], { stdio: 'ignore' }),
  );
  return { stop: () => hogs.forEach((hog) => hog.kill('SIGKILL')) };
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

describe('the README and the docs pages', () => {
  it('has every command block either run here or named with the reason it is not', () => {
    const blocks = allBlocks();
    expect(blocks.length).toBeGreaterThan(0);
    expect(Object.keys(BLOCKS).filter((page) => !pages().includes(page))).toEqual([]);
    const unnamed = blocks.filter((block) => BLOCKS[block.page]?.[block.heading] === undefined);
    expect(unnamed.map((block) => `${block.page} > ${block.heading}`)).toEqual([]);
    for (const [page, headings] of Object.entries(BLOCKS)) {
      for (const [heading, verdict] of Object.entries(headings)) {
        expect([page, heading, blocks.some((block) => block.page === page && block.heading === heading)]).toEqual([page, heading, true]);
        if (verdict !== 'run') expect(verdict.notRun.length).toBeGreaterThan(10);
      }
    }
  });

  it('sends no AWS CLI command it runs to an AWS account: a block for a deployed stack is not run, and says so', () => {
    const toAnAccount = allBlocks().filter((block) => awsCallsWithoutEndpoint(block.text).length > 0);
    for (const block of toAnAccount) {
      const verdict = BLOCKS[block.page]?.[block.heading];
      const namedAsNeedingAnAccount = verdict !== undefined && verdict !== 'run' && /AWS account/.test(verdict.notRun);
      expect([block.page, block.heading, namedAsNeedingAnAccount]).toEqual([block.page, block.heading, true]);
    }
  });

  it('leaves no file behind in the working tree: a block writes files only under cdk.out/ (ignored by git)', () => {
    const written = allBlocks().flatMap((block) => redirectTargets(block.text).map((target) => `${block.page} > ${block.heading}: ${target}`));
    expect(written.filter((entry) => !/: (cdk\.out\/|\/dev\/null$)/.test(entry))).toEqual([]);
  });

  it('runs as written: the curl walk-through, an idempotent create run twice, the AWS CLI and a delivery', async () => {
    const walkThrough = blockUnder('README.md', 'Call the API with curl');
    const idempotentCreate = blockUnder('docs/api.md', 'Idempotent creates');
    expect(idempotentCreate).toMatch(/^KEY=\$\(.*\)/m);
    const [receiveAndCreate, publish] = blockUnder('docs/local.md', 'Watching a delivery').split(/\n(?=# A portal event of a kind)/);
    expect(publish).toBeDefined();
    const script = [
      onThisStack(walkThrough),
      'echo "== idempotent create, first run"',
      onThisStack(idempotentCreate),
      // "The same command again": the create, with the key the block made.
      'echo "== idempotent create, second run"',
      onThisStack(idempotentCreate.split('\n').filter((line) => !line.startsWith('KEY=')).join('\n')),
      'echo "== AWS CLI"',
      onThisStack(blockUnder('README.md', 'Look inside with the AWS CLI')),
      'echo "== delivery"',
      receiverSetUp(),
      // No glue between: the block itself waits for the receiver to listen and to confirm.
      onThisStack(receiveAndCreate!),
      onThisStack(publish!),
      waitForOutput('event asset_bank.media.create '),
      'kill %1', // as docs/local.md says
    ].join('\n');

    const run = await runScript(script, { strict: true });

    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/command not found|No such file/) });
    expect(run.stderr).toContain('"message":"Subscription created."');
    for (const answer of ['Subscription renamed.', 'Subscription events updated.', 'Subscription deactivated.', 'Subscription activated.', 'Subscription deleted.']) {
      expect(run.stdout).toContain(`{"success":true,"message":"${answer}"`);
    }
    // The endpoint never confirms: a test event and a replay are refused, saying why; no dead letters.
    expect(run.stdout.match(/"code":"ENDPOINT_NOT_CONFIRMED"/g)).toHaveLength(2);
    expect(run.stdout).toContain('"deadLetters":[],"nextCursor":null,"deadLettersDropped":0}');
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
    // The reference receiver verified and confirmed its subscription, then printed the
    // published event, the one put-events answered, once; it refused nothing.
    const [receiver] = (await portalAList()).filter((entry) => entry.name === 'Local receiver');
    expect(receiver).toBeDefined();
    const delivery = run.stdout.slice(run.stdout.indexOf('== delivery'));
    expect(delivery).toContain(`confirmed arn:aws:sns:us-east-1:000000000000:webhooks-${receiver!.configId}\n`);
    const eventId = /"EventId": "([^"]+)"/.exec(delivery)?.[1];
    expect(eventId).toBeDefined();
    expect(delivery.split('\n').filter((line) => line.startsWith('event '))).toEqual([
      `event asset_bank.media.create ${eventId} of ${receiver!.configId}: {"mediaId":"m-1"}`,
    ]);
    expect(run.stderr).not.toMatch(/refused|could not confirm/);
  }, 150_000);

  it("runs docs/receiving.md's receiver against npm start as written: it waits for the receiver to listen and confirm, then both events arrive", async () => {
    const run = await runScript(receivingScript(), { strict: true });
    expectBothEventsReceived(run);
  }, 150_000);

  it('runs the blocks that start something as written while the machine is busy, since they wait for what they started', async () => {
    const hogs = loadTheMachine();
    try {
      const script = [
        receivingScript(),
        // docs/local.md's delivery, with the AWS CLI set up as the README's block does.
        blockUnder('README.md', 'Look inside with the AWS CLI').split('\n')[0]!,
        onThisStack(blockUnder('docs/local.md', 'Watching a delivery')),
        waitForOutput('event asset_bank.media.create '),
        'kill %1',
      ].join('\n');
      const run = await runScript(script, { strict: true });
      expectBothEventsReceived(run);
    } finally {
      hogs.stop();
    }
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
    const run = await runScript(onThisStack(blockUnder('README.md', 'Call the API with curl')), { strict: false });

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
