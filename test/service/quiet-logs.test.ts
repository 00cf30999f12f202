/**
 * What the suites print: the service's log lines a test provokes without capturing them are held
 * back (test/support/quiet-logs.ts, set up for every suite), everything else goes through, and a
 * suite that captures logs still gets every line.
 */
import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { holdBackServiceLogs } from '../support/quiet-logs';
import { PROJECT_ROOT } from '../support/npm-start';

function fakeStream() {
  const written: string[] = [];
  const stream = {
    write: (chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      (rest.find((argument) => typeof argument === 'function') as (() => void) | undefined)?.();
      return true;
    },
  };
  holdBackServiceLogs(stream);
  return { stream, written };
}

it("holds back the service's JSON log lines and lets everything else through", async () => {
  const { stream, written } = fakeStream();
  const logLine = `${JSON.stringify({ level: 'ERROR', message: 'dependency failure', timestamp: '2026-11-25T00:00:00.000Z' })}\n`;

  stream.write(logLine);
  const calledBack = new Promise<void>((resolve) => stream.write(Buffer.from(logLine), resolve));
  stream.write('PASS test/service/limits.test.ts\n');
  stream.write(`partly ${logLine}`);
  stream.write(`${logLine}not a log line\n`);

  await calledBack;
  expect(written).toEqual(['PASS test/service/limits.test.ts\n', `partly ${logLine}`, 'not a log line\n']);
});

it('is set up for every suite, and a suite that captures the logs still sees them', async () => {
  expect(readFileSync(join(PROJECT_ROOT, 'jest.config.js'), 'utf8')).toMatch(/setupFilesAfterEnv: \[[^\]]*'<rootDir>\/test\/support\/quiet-logs\.ts'/);
  const captured: string[] = [];
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    captured.push(String(chunk));
    return true;
  });
  try {
    process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
    const { logger } = await import('../../shared/logger');
    logger.error('dependency failure', { cause: 'ThrottledException' });
  } finally {
    stdout.mockRestore();
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  }
  expect(captured.join('')).toMatch(/^\{"level":"ERROR","message":"dependency failure"/);
});
