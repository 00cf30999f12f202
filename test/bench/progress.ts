/** Progress on stderr, with the seconds since start, so stdout holds only the table. */
const STARTED_AT = Date.now();

export function log(message: string): void {
  process.stderr.write(`bench: [${Math.round((Date.now() - STARTED_AT) / 1000)} s] ${message}\n`);
}
