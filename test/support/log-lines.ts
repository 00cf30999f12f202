/**
 * The lines the logger writes to stdout while a piece of code runs, in either of its formats:
 * what an operator's log query sees.
 */
import { jest } from '@jest/globals';

export type Format = 'json' | 'pretty';

/** The lines written to stdout while `act` runs; `act` itself must not throw. */
export async function linesWrittenBy(act: () => unknown, format: Format = 'json'): Promise<string[]> {
  const written: string[] = [];
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  if (format === 'pretty') process.env.LOG_FORMAT = 'pretty';
  try {
    await act();
  } finally {
    stdout.mockRestore();
    delete process.env.LOG_FORMAT;
  }
  return written.join('').split('\n').filter((line) => line !== '');
}

/** The one line `act` writes, as JSON. */
export async function entryWrittenBy(act: () => unknown): Promise<Record<string, any>> {
  const lines = await linesWrittenBy(act);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}
