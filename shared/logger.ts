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
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';
import { maskCredentials } from './masked-credentials';

const LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type LevelName = keyof typeof LEVELS;

/** Bounds on a line. A line stays far below CloudWatch Logs' 256 KB per event. */
export const LOG_LIMITS = {
  /** Characters of one string value; the rest is replaced by a marker of how much was cut. */
  stringChars: 8 * 1024,
  /** Characters of one line. */
  lineChars: 64 * 1024,
  /** Nesting below a line's fields; an error's cause counts as one level. */
  depth: 10,
  /** Items of one array, Map or Set, and keys of one object. */
  entries: 1000,
} as const;

function levelFrom(text: string | undefined): number {
  const name = text?.trim().toUpperCase();
  return name !== undefined && Object.hasOwn(LEVELS, name) ? LEVELS[name as LevelName] : LEVELS.INFO;
}

/**
 * One walk over an entry's values. `ancestors` holds the objects on the path to the value at
 * hand, so only a real cycle shows as "[Circular]" (an object met twice side by side is written
 * twice); `budget` is the characters left for the line, so that it ends up within lineChars.
 */
interface Walk {
  ancestors: WeakSet<object>;
  budget: number;
}

// What the fields other than the values' strings (keys, quotes, the Lambda context) may take.
const LINE_OVERHEAD = 4 * 1024;

const newWalk = (): Walk => ({ ancestors: new WeakSet(), budget: LOG_LIMITS.lineChars - LINE_OVERHEAD });

function cut(text: string, walk: Walk): string {
  const room = Math.max(0, Math.min(LOG_LIMITS.stringChars, walk.budget));
  walk.budget -= Math.min(text.length, room) + 2;
  return text.length <= room ? text : `${text.slice(0, room)}…[${text.length - room} more chars]`;
}

/** What a thrown value says about itself, without anything that could throw again. */
function thrownText(thrown: unknown): string {
  try {
    const text = thrown instanceof Error ? `${String(thrown.name)}: ${String(thrown.message)}` : String(thrown);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return 'unreadable';
  }
}

const thrownMarker = (thrown: unknown) => `[Thrown: ${thrownText(thrown)}]`;

/** `value[key]` as a loggable value, or a marker when reading it throws (a getter, a Proxy). */
function property(value: object, key: PropertyKey, walk: Walk, depth: number): unknown {
  try {
    return loggable((value as Record<PropertyKey, unknown>)[key], walk, depth);
  } catch (thrown) {
    return thrownMarker(thrown);
  }
}

/**
 * `value` as plain JSON data that JSON.stringify writes without throwing: a cycle becomes
 * "[Circular]", a BigInt, Symbol or non-finite number its text, a function "[Function name]",
 * an error its name, location, message, stack and cause, a Map an object, a Set an array, a
 * typed array or Buffer its size, anything beyond the depth "[Depth limit]", and anything that
 * throws when read "[Thrown: …]". Strings, entries and the whole line are cut to LOG_LIMITS.
 */
function loggable(value: unknown, walk: Walk, depth: number): unknown {
  try {
    switch (typeof value) {
      case 'string':
        return cut(value, walk);
      case 'number':
        return Number.isFinite(value) ? value : String(value);
      case 'boolean':
      case 'undefined':
        return value;
      case 'bigint':
      case 'symbol':
        return cut(value.toString(), walk);
      case 'function':
        return `[Function ${cut(String(value.name) || 'anonymous', walk)}]`;
    }
    if (value === null) return null;
    const object = value as object;
    if (walk.ancestors.has(object)) return '[Circular]';
    if (depth >= LOG_LIMITS.depth) return '[Depth limit]';
    if (walk.budget <= 0) return '[Truncated: line limit]';
    walk.budget -= 2;
    walk.ancestors.add(object);
    try {
      return objectLoggable(object, walk, depth + 1);
    } finally {
      walk.ancestors.delete(object);
    }
  } catch (thrown) {
    // A Proxy's trap, a throwing toJSON or toString: the value is unreadable, the line is not.
    return thrownMarker(thrown);
  }
}

function objectLoggable(object: object, walk: Walk, depth: number): unknown {
  if (object instanceof Error) return errorLoggable(object, walk, depth);
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
  if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
    return `[${object.constructor?.name ?? 'ArrayBuffer'} ${object.byteLength} bytes]`;
  }
  if (Array.isArray(object)) return items(object, object.length, walk, depth);
  if (object instanceof Set) return items(first(object.values()), object.size, walk, depth);
  if (object instanceof Map) {
    const keys = first(object.keys()).map((key): [string, unknown] => [typeof key === 'string' ? key : String(loggable(key, walk, depth)), key]);
    return fields(keys, object.size, (key) => object.get(key), walk, depth);
  }
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  // Depth + 1, so a toJSON that answers a fresh object each time still comes to an end.
  if (typeof toJSON === 'function') return loggable(toJSON.call(object), walk, depth + 1);
  const keys = Object.keys(object);
  return fields(
    keys.slice(0, LOG_LIMITS.entries).map((key) => [key, key]),
    keys.length,
    (key) => (object as Record<string, unknown>)[key as string],
    walk,
    depth,
  );
}

/** The first LOG_LIMITS.entries values of an iterator, without reading the rest. */
function first<T>(values: Iterator<T>): T[] {
  const out: T[] = [];
  for (let next = values.next(); !next.done && out.length < LOG_LIMITS.entries; next = values.next()) out.push(next.value);
  return out;
}

/** The first LOG_LIMITS.entries items of a list of `size`, then a marker of how many more. */
function items(list: readonly unknown[], size: number, walk: Walk, depth: number): unknown[] {
  // As JSON.stringify has it, an undefined item is null.
  const out = list.slice(0, LOG_LIMITS.entries).map((_item, index) => property(list, index, walk, depth) ?? null);
  if (size > LOG_LIMITS.entries) out.push(`…[${size - LOG_LIMITS.entries} more items]`);
  return out;
}

/** An object of the given keys (name in the line, key to read) of `size` in all, read one by one. */
function fields(keys: [string, unknown][], size: number, read: (key: unknown) => unknown, walk: Walk, depth: number): Record<string, unknown> {
  // No prototype: a key named "__proto__" is then a field like any other.
  const out: Record<string, unknown> = Object.create(null);
  for (const [name, key] of keys) {
    walk.budget -= name.length + 4;
    try {
      out[name] = loggable(read(key), walk, depth);
    } catch (thrown) {
      out[name] = thrownMarker(thrown);
    }
  }
  if (size > LOG_LIMITS.entries) out['…'] = `${size - LOG_LIMITS.entries} more keys`;
  return out;
}

/** An error as a log field: what it is, where it was thrown, and what caused it (to LOG_LIMITS.depth). */
function errorLoggable(error: Error, walk: Walk, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  out.name = property(error, 'name', walk, depth);
  let stack: unknown;
  try {
    stack = error.stack;
  } catch (thrown) {
    stack = thrownMarker(thrown);
  }
  const frame = typeof stack === 'string' ? stack.slice(0, LOG_LIMITS.stringChars).split('\n')[1] : undefined;
  out.location = /\(([^)]+)\)/.exec(frame ?? '')?.[1] ?? '';
  out.message = property(error, 'message', walk, depth);
  out.stack = loggable(stack, walk, depth);
  const cause = property(error, 'cause', walk, depth);
  if (cause !== undefined) out.cause = cause;
  if (error instanceof AggregateError) out.errors = property(error, 'errors', walk, depth);
  return out;
}

/** Adds the fields of `value` (as `loggable` gives it) to `entry`, if it is an object of fields. */
function merge(entry: Record<string, unknown>, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  Object.assign(entry, value);
  return true;
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
 * An entry (as `loggable` gives it) as one line for a terminal: local time, level, operation,
 * message, then the other keys as key=value, a status code bare and a duration in ms, e.g.
 * `12:03:04 INFO  createSubscriptionRoute request completed 200 12ms`. An error shows its name,
 * message and where it was thrown. Nested objects (a reconciliation's summary) are left out to
 * keep the line short; LOG_FORMAT=json shows them.
 */
export function readableLine(entry: Record<string, unknown>, at: Date): string {
  const parts = [at.toTimeString().slice(0, 8), text(entry.level).padEnd(5), text(entry.operation ?? entry.function_name ?? entry.service), text(entry.message)];
  for (const [key, value] of Object.entries(entry)) {
    if (value === undefined || NOT_IN_READABLE_LINE.has(key)) continue;
    if (key === 'statusCode') parts.push(text(value));
    else if (key === 'durationMs') parts.push(`${text(value)}ms`);
    else {
      const written = readableValue(value);
      if (written !== undefined) parts.push(`${key}=${written}`);
    }
  }
  return parts.join(' ');
}

function readableValue(value: unknown): string | undefined {
  if (Array.isArray(value)) return `[${value.map((item) => readableValue(item) ?? '{…}').join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    // Any other object than an error (as errorLoggable gives it) stays out.
    return 'stack' in value ? quoted(errorText(value as Record<string, unknown>)) : undefined;
  }
  return quoted(text(value));
}

function errorText({ name, message, location, cause }: Record<string, unknown>): string {
  const where = location ? ` (${text(location)})` : '';
  const said = `${text(name)}: ${text(message)}${where}`;
  if (cause === undefined) return said;
  // The cause is already bounded in depth and free of cycles (loggable).
  const causeText = typeof cause === 'object' && cause !== null && 'stack' in cause ? errorText(cause as Record<string, unknown>) : text(cause);
  return `${said}, caused by ${causeText}`;
}

/**
 * A value of an entry as text. String() would throw on the prototype-less objects `fields` and
 * `errorLoggable` make (a cause or message that is a plain object), so objects are written as
 * JSON, which loggable has made safe to stringify.
 */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return JSON.stringify(value);
  } catch (thrown) {
    return thrownMarker(thrown);
  }
}

function quoted(text: string): string {
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

/**
 * What every line of one invocation carries: its Lambda context's fields, trace id and
 * operation (which no caller's keys replace), and the keys appended while it runs. Kept per
 * invocation (AsyncLocalStorage), not in the logger: one process serves several invocations at
 * once on Lambda Managed Instances
 * (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-nodejs-runtime.html)
 * and under `npm start`, and a slot of the logger's would name whichever invocation set it last.
 */
interface Invocation {
  fields: Record<string, unknown>;
  keys: Record<string, unknown>;
}

const invocations = new AsyncLocalStorage<Invocation>();

/**
 * The X-Ray trace id of the invocation at hand. Under multi-concurrency Lambda's runtime keeps
 * each invocation's trace header in its per-invocation store (`awslambda.InvokeStore`, an
 * AsyncLocalStorage; Powertools reads it the same way), since one process-wide variable cannot
 * hold several; otherwise it sets `_X_AMZN_TRACE_ID` before each invocation. The header is
 * `Root=1-…;Parent=…;Sampled=…`; the id is its Root.
 */
function currentTraceId(): string | undefined {
  let header: unknown;
  try {
    const store = (globalThis as { awslambda?: { InvokeStore?: { getXRayTraceId?: () => unknown } } }).awslambda?.InvokeStore;
    header = store?.getXRayTraceId?.();
  } catch {
    // An unexpected runtime: the variable below is all there is.
  }
  if (typeof header !== 'string' || header === '') header = process.env._X_AMZN_TRACE_ID;
  if (typeof header !== 'string' || header === '') return undefined;
  if (!header.includes('=')) return header;
  return /(?:^|;)\s*Root=([^;]*)/.exec(header)?.[1] || undefined;
}

function invocationFields(context: Context | undefined, coldStart: boolean | undefined): Record<string, unknown> {
  return {
    cold_start: coldStart,
    function_arn: context?.invokedFunctionArn,
    function_memory_size: context?.memoryLimitInMB === undefined ? undefined : Number(context.memoryLimitInMB),
    function_name: context?.functionName,
    function_request_id: context?.awsRequestId,
    xray_trace_id: currentTraceId(),
  };
}

/**
 * Wraps a Lambda handler so that every line logged while an invocation runs, in whatever it
 * awaits, carries that invocation's Lambda context, trace id and `operation`, and none of
 * another's. `cold_start` is true on the first invocation of this handler, and, as Powertools
 * has it, only where Lambda says the environment started on demand
 * (AWS_LAMBDA_INITIALIZATION_TYPE=on-demand; not provisioned concurrency or SnapStart). The flag
 * lives in this closure, one per handler, not in the logger: where several handlers share a
 * process and this logger (npm start, the tests), each still reports its own first invocation.
 */
export function withInvocationLogging<Event, Result>(
  operation: string,
  handler: (event: Event, context: Context) => Promise<Result>,
): (event: Event, context: Context) => Promise<Result> {
  let firstInvocation = true;
  return (event, context) => {
    const coldStart = firstInvocation && process.env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand';
    firstInvocation = false;
    return invocations.run({ fields: { ...invocationFields(context, coldStart), operation }, keys: {} }, () => handler(event, context));
  };
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
