/**
 * `npm run bench -- --quick` still runs from start to end: builds, starts and stops its
 * services, measures every function beside its floor and the CDK's default build, prints its
 * table and says it was a smoke run. Its figures are not checked, and it judges none itself:
 * a shared machine's timings prove nothing (docs/performance.md), so it prints no ratio and no
 * verdict that a reader could take for one.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ALL_FUNCTIONS } from './plan';
import { SMOKE_RUN_NOTE } from './table';

/** What a smoke run must not print: a verdict, or a ratio a reader would take for a measurement. */
const JUDGEMENTS = /OVER TARGET|\bmet\b|over target|\d\.\d\dx|NOT flat|\bflat\b/;

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
  it('measures every function, and its cold start beside the default CDK build, and says it was a smoke run: no ratio, no verdict', async () => {
    // Act
    const { code, stdout, stderr } = await runBench(['--quick']);

    // Assess
    expect({ code, stderr: code === 0 ? '' : stderr.slice(-3000) }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('bench: smoke run, 32 rows measured, none judged (figures: npm run bench without --quick)');
    expect(lines).toContain(SMOKE_RUN_NOTE);
    expect(stdout).not.toMatch(JUDGEMENTS);
    const coldColumn = lines[0]!.split(' | ').indexOf('cold start ms: fn / default CDK build (ratio)');
    expect(coldColumn).toBeGreaterThan(0);
    // Every function the bench knows (the operations table's and the consumers'), with no list to keep here.
    for (const { name } of ALL_FUNCTIONS) {
      const row = lines.find((line) => line.startsWith(`| ${name} |`));
      expect({ name, cold: row?.split(' | ')[coldColumn] }).toEqual({ name, cold: expect.stringMatching(/^\d+\.\d \/ \d+\.\d$/) });
    }
  }, QUICK_RUN_TIMEOUT_MS + 10_000);

  it('with --only, measures those functions alone; an unknown name is refused with the names it takes', async () => {
    const only = await runBench(['--quick', '--only', 'renameSubscription']);
    expect({ code: only.code, stderr: only.code === 0 ? '' : only.stderr.slice(-3000) }).toEqual({ code: 0, stderr: '' });
    const rows = only.stdout.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| function |'));
    expect(rows.map((line) => line.split(' | ')[0])).toEqual(['| renameSubscription']);
    expect(only.stdout.trim().split('\n').at(-1)).toBe('bench: smoke run, 1 rows measured, none judged (figures: npm run bench without --quick)');
    expect(only.stdout).not.toMatch(JUDGEMENTS);

    const unknown = await runBench(['--quick', '--only', 'renameSubscriptions']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--only takes function names, comma-separated: createSubscription, ');
  }, 2 * QUICK_RUN_TIMEOUT_MS + 10_000);
});
