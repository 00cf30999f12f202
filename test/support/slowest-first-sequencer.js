/**
 * The order jest starts the suites in (jest.config.js, testSequencer). Jest starts the slowest
 * first by the times it kept from earlier runs; a fresh clone (as CI runs) has none, and jest
 * falls back to file size, which started the longest suites, small files that drive long runs,
 * last: they then ran alone at the end while the other workers idled. Without kept times these
 * start first, slowest first (as measured from a fresh clone); the rest keep jest's order.
 * test/service/layout.test.ts checks that each names a suite.
 */
import Sequencer from '@jest/test-sequencer';

export const STARTED_FIRST = [
  'test/hostile/hostile-input.test.ts',
  'test/hostile/hostile-input.list-rename-delete.test.ts',
  'test/bench/smoke.test.ts',
  'test/infra/sam-invoke.test.ts',
  'test/local/sns-emulator.cli.test.ts',
  'test/local/stack.delivery-load.test.ts',
  'test/infra/stack.bundles.test.ts',
  'test/local/stack.stop-resume.test.ts',
  'test/docs/readme-commands.test.ts',
  'test/local/stack.retries-restart.test.ts',
  'test/local/admin-page.browser.test.ts',
];

export default class SlowestFirstSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    const rank = (test) => {
      const at = STARTED_FIRST.findIndex((suite) => test.path.endsWith(`/${suite}`));
      return at === -1 ? STARTED_FIRST.length : at;
    };
    return sorted
      .map((test, index) => ({ test, index }))
      .sort((a, b) => rank(a.test) - rank(b.test) || a.index - b.index)
      .map(({ test }) => test);
  }
}
