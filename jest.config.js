// Tests run as native ES modules (middy is ESM-only), transformed by swc; `npm test` passes
// --experimental-vm-modules. Type checking is `tsc --noEmit`, run before jest by `npm test`.
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'es6' } },
    ],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // The service's log lines a test provokes and does not capture are held back (quiet-logs.ts).
  // Each suite gets a table of its own in the shared DynamoDB Local (suite-table.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/quiet-logs.ts', '<rootDir>/test/support/suite-table.ts'],
  testTimeout: 30_000,
  // Three suites at a time on the 2 cores CI has: many suites wait on servers, child processes and
  // timers, and each has a table of its own (suite-table.ts). jest's default is cores - 1. Two
  // left the run about 35 s longer (docs/decisions/test-run-in-parallel-suites.md).
  maxWorkers: 3,
  // The slowest suites first, also in a fresh clone, where jest has no times of its own yet.
  testSequencer: '<rootDir>/test/support/slowest-first-sequencer.js',
  // Per-suite wall times after every run of more than one suite (suite-times-reporter.js).
  reporters: ['default', '<rootDir>/test/support/suite-times-reporter.js'],
};
