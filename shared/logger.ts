/**
 * Logs, one line per entry on stdout, at the level POWERTOOLS_LOG_LEVEL names (default INFO;
 * SILENT for none). By default a JSON object in the shape of Powertools' logger (level,
 * message, timestamp, service, the Lambda context's fields, appended keys): what Lambda runs,
 * and what CloudWatch Logs Insights queries. LOG_FORMAT=pretty, which `npm start` and
 * `npm run reconcile` set, gives a short line for a person at a terminal instead (readableLine).
 *
 * Logging never throws: it is called from the error envelope, where a throw would turn a handled
 * error into an unhandled one. Every value goes through `loggable` first, which bounds what it
 * writes (cycles, depth, entries, string and line length) and turns whatever it cannot read
 * into a marker; a last-resort catch writes a minimal line instead. No line shows a URL's
 * password: whatever a caller logs (an SDK error quoting an endpoint, say), every
 * `scheme://user:password@` is written `user:****@` (masked-credentials.ts).
 *
 * Our own rather than Powertools' Logger, which throws on a looping cause, a throwing getter or
 * Proxy, and adds about 17 KB and several ms of module load to a bundle, close to the 1.15x of its
 * floor a function is held to (docs/performance.md; the measurements: docs/decisions/own-logger.md).
 */
import { maskCredentials } from './masked-credentials';
import { invocationFields, invocations } from './logging/invocation-context';
import { cut, LOG_LIMITS, loggable, merge, newWalk, thrownText } from './logging/loggable';
import { readableLine } from './logging/readable-line';

export { withInvocationLogging } from './logging/invocation-context';
export { LOG_LIMITS } from './logging/loggable';
export { readableLine } from './logging/readable-line';

const LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type LevelName = keyof typeof LEVELS;

function levelFrom(text: string | undefined): number {
  const name = text?.trim().toUpperCase();
  return name !== undefined && Object.hasOwn(LEVELS, name) ? LEVELS[name as LevelName] : LEVELS.INFO;
}

export class Logger {
  private readonly level = levelFrom(process.env.POWERTOOLS_LOG_LEVEL ?? process.env.AWS_LAMBDA_LOG_LEVEL);
  /** Keys appended outside any invocation (withInvocationLogging). */
  private readonly processKeys: Record<string, unknown> = {};

  constructor(private readonly options: { serviceName: string }) {}

  debug(message: string, extra?: Record<string, unknown> | Error): void {
    this.write('DEBUG', message, extra);
  }
  info(message: string, extra?: Record<string, unknown> | Error): void {
    this.write('INFO', message, extra);
  }
  warn(message: string, extra?: Record<string, unknown> | Error): void {
    this.write('WARN', message, extra);
  }
  error(message: string, extra?: Record<string, unknown> | Error): void {
    this.write('ERROR', message, extra);
  }

  /** Keys every following line of this invocation carries (outside one: of the process). */
  appendKeys(keys: Record<string, unknown>): void {
    try {
      Object.assign(invocations.getStore()?.keys ?? this.processKeys, keys);
    } catch {
      // Keys that cannot be read are left out rather than thrown.
    }
  }

  private write(levelName: LevelName, message: string, extra: Record<string, unknown> | Error | undefined): void {
    if (LEVELS[levelName] < this.level) return;
    const now = new Date();
    // Read at each line, so whatever sets it need not do so before this module is loaded.
    const pretty = process.env.LOG_FORMAT?.trim().toLowerCase() === 'pretty';
    try {
      const entry = this.entry(levelName, message, extra, now);
      let line = maskCredentials(pretty ? readableLine(entry, now) : JSON.stringify(entry));
      if (line.length > LOG_LIMITS.lineChars) line = pretty ? `${line.slice(0, LOG_LIMITS.lineChars)}…` : maskCredentials(this.shortLine(entry, line.length));
      process.stdout.write(`${line}\n`);
    } catch (thrown) {
      this.writeFallback(levelName, message, now, pretty, thrown);
    }
  }

  private entry(levelName: LevelName, message: string, extra: unknown, now: Date): Record<string, unknown> {
    const walk = newWalk();
    const invocation = invocations.getStore();
    // What says which line this is and whose: set first, for the keys' order, and again last, so
    // neither appended keys nor a caller's fields can replace them.
    const own: Record<string, unknown> = {
      level: levelName,
      message: typeof message === 'string' ? cut(message, walk) : loggable(message, walk, 0),
      timestamp: now.toISOString(),
      service: this.options.serviceName,
      // Outside an invocation its keys stay unset (a caller's cannot pose as them), bar
      // whatever trace the process is in.
      ...(invocation?.fields ?? invocationFields(undefined, undefined)),
    };
    const entry: Record<string, unknown> = Object.create(null);
    Object.assign(entry, own);
    merge(entry, loggable(invocation?.keys ?? this.processKeys, walk, 0));
    if (extra !== undefined) {
      let isError = false;
      try {
        isError = extra instanceof Error;
      } catch {
        // A Proxy: written as the marker loggable gives it.
      }
      const fields = loggable(extra, walk, 0);
      if (isError) entry.error = fields;
      else if (!merge(entry, fields)) entry.extra = fields;
    }
    return Object.assign(entry, own);
  }

  /** A JSON line over lineChars despite the budget (escapes count twice or more): its core fields only. */
  private shortLine(entry: Record<string, unknown>, length: number): string {
    const core: Record<string, unknown> = {};
    for (const key of ['level', 'message', 'timestamp', 'service', 'operation', 'function_request_id', 'xray_trace_id']) core[key] = entry[key];
    core.log_truncated = `a line of ${length} chars, over ${LOG_LIMITS.lineChars}: fields other than these left out`;
    return JSON.stringify(core);
  }

  /** The last resort: a line that says what could not be logged, built from nothing that can throw. */
  private writeFallback(levelName: LevelName, message: unknown, now: Date, pretty: boolean, thrown: unknown): void {
    try {
      const text = typeof message === 'string' ? maskCredentials(message.slice(0, LOG_LIMITS.stringChars)) : '[unreadable message]';
      const invocation = invocations.getStore();
      const line = pretty
        ? `${now.toTimeString().slice(0, 8)} ${levelName.padEnd(5)} ${text} (entry not logged: ${thrownText(thrown)})`
        : JSON.stringify({
            level: levelName,
            message: text,
            timestamp: now.toISOString(),
            service: this.options.serviceName,
            function_request_id: invocation?.fields.function_request_id,
            xray_trace_id: invocation?.fields.xray_trace_id,
            log_error: `entry not logged: ${thrownText(thrown)}`,
          });
      process.stdout.write(`${line}\n`);
    } catch {
      // Nowhere left to write to.
    }
  }
}

export const logger = new Logger({ serviceName: 'webhook-subscriptions' });
