/**
 * Prints where a run's time went: each suite's own wall time, slowest first, and the sum beside
 * the run's wall time (their ratio is how much the workers overlapped). The full list is written
 * to test-results/suite-times.txt; the console gets the slowest suites only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SHOWN_ON_CONSOLE = 12;

export default class SuiteTimesReporter {
  #rootDir;
  #times = [];
  #startedAt = Date.now(); // after the global setup (DynamoDB Local, the SNS emulator): jest makes reporters then

  constructor(globalConfig) {
    this.#rootDir = globalConfig.rootDir;
  }

  onTestResult(test, result) {
    const { start, end } = result.perfStats;
    this.#times.push({ suite: relative(this.#rootDir, test.path), seconds: (end - start) / 1000, tests: result.numPassingTests + result.numFailingTests });
  }

  onRunComplete() {
    if (this.#times.length < 2) return; // one suite: jest's own line already says its time
    const times = [...this.#times].sort((a, b) => b.seconds - a.seconds);
    const wall = (Date.now() - this.#startedAt) / 1000;
    const sum = times.reduce((total, { seconds }) => total + seconds, 0);
    const line = ({ suite, seconds, tests }) => `${seconds.toFixed(1).padStart(7)} s  ${String(tests).padStart(4)} tests  ${suite}`;
    const summary = `suites: ${times.length}, their times summed ${sum.toFixed(0)} s, run wall time ${wall.toFixed(0)} s`;
    const dir = join(this.#rootDir, 'test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'suite-times.txt'), `${summary}\n${times.map(line).join('\n')}\n`);
    process.stderr.write(`\nWhere the time went (slowest ${Math.min(SHOWN_ON_CONSOLE, times.length)} of ${times.length} suites; all in test-results/suite-times.txt):\n`);
    process.stderr.write(`${times.slice(0, SHOWN_ON_CONSOLE).map(line).join('\n')}\n${summary}\n`);
  }
}
