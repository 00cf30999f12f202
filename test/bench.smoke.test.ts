/**
 * `npm run bench -- --quick` still runs from start to end: builds, starts and stops its
 * services, measures every function and prints its table. Its figures are not checked: a
 * shared machine's timings prove nothing (README, "Performance").
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX_CLI = fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url));
/** The quick run takes well under a minute on an idle machine; a loaded one gets room. */
const QUICK_RUN_TIMEOUT_MS = 240_000;

describe('npm run bench -- --quick', () => {
  it('measures every function and ends with the summary line', async () => {
    // Act
    const child = spawn(process.execPath, [TSX_CLI, 'test/bench/run.ts', '--quick'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), QUICK_RUN_TIMEOUT_MS);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);

    // Assess
    expect({ code, stderr: code === 0 ? '' : stderr.slice(-3000) }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^bench: 14 rows, \d+ over target$/);
    for (const name of ['createSubscription', 'updateSubscription', 'activateSubscription', 'listSubscriptions', 'renameSubscription', 'deleteSubscription', 'testSubscription', 'dispatchPortalEvents']) {
      expect(lines.some((line) => line.startsWith(`| ${name} |`))).toBe(true);
    }
  }, QUICK_RUN_TIMEOUT_MS + 10_000);
});
