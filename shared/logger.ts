/**
 * Logs, one line per entry on stdout, at the level POWERTOOLS_LOG_LEVEL names (default INFO;
 * SILENT for none). By default a JSON object in the shape of Powertools' logger (level,
 * message, timestamp, service, the Lambda context's fields, appended keys): what Lambda runs,
 * and what CloudWatch Logs Insights queries. LOG_FORMAT=pretty, which `npm start` and
 * `npm run reconcile` set, gives a short line for a person at a terminal instead (readableLine).
 *
 * Our own rather than Powertools' Logger: the service uses five of its methods, and its ~21 KB
 * (with its commons) would be a twentieth of every bundle, the margin that decides whether a
 * function stays within 1.15x of its floor in bundle size and module load (docs/performance.md).
 */
import type { Context } from 'aws-lambda';

const LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type LevelName = keyof typeof LEVELS;

function levelFrom(text: string | undefined): number {
  const name = text?.trim().toUpperCase();
  return name !== undefined && Object.hasOwn(LEVELS, name) ? LEVELS[name as LevelName] : LEVELS.INFO;
}

/** An error as a log field: what it is, where it was thrown, and what caused it. */
function errorField(error: Error): Record<string, unknown> {
  return {
    name: error.name,
    location: /\(([^)]+)\)/.exec(error.stack?.split('\n')[1] ?? '')?.[1] ?? '',
    message: error.message,
    stack: error.stack,
    ...(error.cause !== undefined && { cause: error.cause instanceof Error ? errorField(error.cause) : error.cause }),
  };
}

/** What a readable line leaves out: the Lambda context's fields, and what it shows up front. */
const NOT_IN_READABLE_LINE = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'operation',
  'route',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'xray_trace_id',
]);

/**
 * An entry as one line for a terminal: local time, level, operation, message, then the other
 * keys as key=value, a status code bare and a duration in ms, e.g.
 * `12:03:04 INFO  createSubscriptionRoute request completed 200 12ms`. An error shows its name,
 * message and where it was thrown. Nested objects (a reconciliation's summary) are left out to
 * keep the line short; LOG_FORMAT=json shows them.
 */
export function readableLine(entry: Record<string, unknown>, at: Date): string {
  const parts = [at.toTimeString().slice(0, 8), String(entry.level).padEnd(5), String(entry.operation ?? entry.function_name ?? entry.service), String(entry.message)];
  for (const [key, value] of Object.entries(entry)) {
    if (value === undefined || NOT_IN_READABLE_LINE.has(key)) continue;
    if (key === 'statusCode') parts.push(String(value));
    else if (key === 'durationMs') parts.push(`${value}ms`);
    else {
      const text = readableValue(value);
      if (text !== undefined) parts.push(`${key}=${text}`);
    }
  }
  return parts.join(' ');
}

function readableValue(value: unknown): string | undefined {
  if (Array.isArray(value)) return `[${value.map((item) => readableValue(item) ?? '{…}').join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const error = value instanceof Error ? errorField(value) : value;
    // Any other object than an error (as errorField gives it) stays out.
    return 'stack' in error ? quoted(errorText(error as Record<string, unknown>)) : undefined;
  }
  return quoted(String(value));
}

function errorText({ name, message, location, cause }: Record<string, unknown>): string {
  const where = location ? ` (${location})` : '';
  if (cause === undefined) return `${name}: ${message}${where}`;
  const causeText = typeof cause === 'object' && cause !== null && 'stack' in cause ? errorText(cause as Record<string, unknown>) : String(cause);
  return `${name}: ${message}${where}, caused by ${causeText}`;
}

function quoted(text: string): string {
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

export class Logger {
  private readonly level = levelFrom(process.env.POWERTOOLS_LOG_LEVEL ?? process.env.AWS_LAMBDA_LOG_LEVEL);
  private contextKeys: Record<string, unknown> = {};
  private appendedKeys: Record<string, unknown> = {};

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

  /** Keys every following line carries, until the next invocation starts (resetKeys). */
  appendKeys(keys: Record<string, unknown>): void {
    Object.assign(this.appendedKeys, keys);
  }

  resetKeys(): void {
    this.appendedKeys = {};
  }

  /** The invocation's Lambda context, on every line until the next one. */
  addContext(context: Context, coldStart: boolean): void {
    this.contextKeys = {
      cold_start: coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: Number(context.memoryLimitInMB),
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
  }

  private write(levelName: LevelName, message: string, extra: Record<string, unknown> | Error | undefined): void {
    if (LEVELS[levelName] < this.level) return;
    const traceId = process.env._X_AMZN_TRACE_ID?.split(';')[0]?.replace('Root=', '');
    const now = new Date();
    const entry = {
      level: levelName,
      message,
      timestamp: now.toISOString(),
      service: this.options.serviceName,
      ...this.contextKeys,
      ...(traceId && { xray_trace_id: traceId }),
      ...this.appendedKeys,
      ...(extra instanceof Error ? { error: errorField(extra) } : extra),
    };
    // Read at each line, so whatever sets it need not do so before this module is loaded.
    const line =
      process.env.LOG_FORMAT?.trim().toLowerCase() === 'pretty'
        ? readableLine(entry, now)
        : JSON.stringify(entry, (_key, value: unknown) => (value instanceof Error ? errorField(value) : value));
    process.stdout.write(`${line}\n`);
  }
}

/**
 * Middleware (middy's `before`): each invocation's lines carry its Lambda context, and none of
 * the previous invocation's appended keys. `cold_start` is true on the first invocation of this
 * handler, and, as Powertools has it, only where Lambda says the environment started on demand
 * (AWS_LAMBDA_INITIALIZATION_TYPE=on-demand; not provisioned concurrency or SnapStart). The flag
 * lives in this closure, one per handler, not in the logger: where several handlers share a
 * process and this logger (npm start, the tests), each still reports its own first invocation.
 */
export function lambdaContextLogging(logger: Logger) {
  let firstInvocation = true;
  return {
    before: ({ context }: { context: Context }) => {
      logger.resetKeys();
      logger.addContext(context, firstInvocation && process.env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand');
      firstInvocation = false;
    },
  };
}

export const logger = new Logger({ serviceName: 'webhook-subscriptions' });
