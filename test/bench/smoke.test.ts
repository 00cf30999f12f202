/**
 * `npm run bench -- --quick` still runs from start to end: builds, starts and stops its
 * services, measures every function and prints its table. Its figures are not checked: a
 * shared machine's timings prove nothing (docs/performance.md).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX_CLI = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));
/** The quick run takes well under a minute on an idle machine; a loaded one gets room. */
const QUICK_RUN_TIMEOUT_MS = 240_000;

/** Runs the bench with `args`; answers its exit code and output. */
async function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [TSX_CLI, 'test/bench/run.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), QUICK_RUN_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('npm run bench -- --quick', () => {
  it('measures every function and ends with the summary line', async () => {
    // Act
    const { code, stdout, stderr } = await runBench(['--quick']);

    // Assess
    expect({ code, stderr: code === 0 ? '' : stderr.slice(-3000) }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^bench: 18 rows, \d+ over target$/);
    for (const name of ['createSubscription', 'updateSubscription', 'activateSubscription', 'listSubscriptions', 'renameSubscription', 'deleteSubscription', 'testSubscription', 'confirmSubscription', 'listDeadLetters', 'replayDeadLetters', 'dispatchPortalEvents', 'recordDeadLetters']) {
      expect(lines.some((line) => line.startsWith(`| ${name} |`))).toBe(true);
    }
  }, QUICK_RUN_TIMEOUT_MS + 10_000);

  it('with --only, measures those functions alone; an unknown name is refused with the names it takes', async () => {
    const only = await runBench(['--quick', '--only', 'renameSubscription']);
    expect({ code: only.code, stderr: only.code === 0 ? '' : only.stderr.slice(-3000) }).toEqual({ code: 0, stderr: '' });
    const rows = only.stdout.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| function |'));
    expect(rows.map((line) => line.split(' | ')[0])).toEqual(['| renameSubscription']);
    expect(only.stdout.trim().split('\n').at(-1)).toMatch(/^bench: 1 rows, \d+ over target$/);

    const unknown = await runBench(['--quick', '--only', 'renameSubscriptions']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--only takes function names, comma-separated: createSubscription, ');
  }, 2 * QUICK_RUN_TIMEOUT_MS + 10_000);
});
