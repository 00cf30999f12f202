/** An entry as one short line for a person at a terminal (logger.ts; LOG_FORMAT=pretty). */
import { thrownMarker } from './loggable';

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
