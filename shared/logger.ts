/**
 * Structured JSON logs, one object per line on stdout, in the shape of Powertools' logger
 * (level, message, timestamp, service, the Lambda context's fields, appended keys), at the level
 * POWERTOOLS_LOG_LEVEL names (default INFO; SILENT for none).
 *
 * Our own rather than Powertools' Logger: the service uses five of its methods, and its ~21 KB
 * (with its commons) would be a twentieth of every bundle, the margin that decides whether a
 * function stays within 1.15x of its floor in bundle size and module load (README,
 * "Performance").
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
    const entry = {
      level: levelName,
      message,
      timestamp: new Date().toISOString(),
      service: this.options.serviceName,
      ...this.contextKeys,
      ...(traceId && { xray_trace_id: traceId }),
      ...this.appendedKeys,
      ...(extra instanceof Error ? { error: errorField(extra) } : extra),
    };
    process.stdout.write(`${JSON.stringify(entry, (_key, value: unknown) => (value instanceof Error ? errorField(value) : value))}\n`);
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
