/**
 * What a log line may hold (logger.ts): any value made plain JSON data that JSON.stringify writes
 * without throwing, bounded to LOG_LIMITS, with a marker for whatever cannot be read.
 */

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

export const newWalk = (): Walk => ({ ancestors: new WeakSet(), budget: LOG_LIMITS.lineChars - LINE_OVERHEAD });

export function cut(text: string, walk: Walk): string {
  const room = Math.max(0, Math.min(LOG_LIMITS.stringChars, walk.budget));
  walk.budget -= Math.min(text.length, room) + 2;
  return text.length <= room ? text : `${text.slice(0, room)}…[${text.length - room} more chars]`;
}

/** What a thrown value says about itself, without anything that could throw again. */
export function thrownText(thrown: unknown): string {
  try {
    const text = thrown instanceof Error ? `${String(thrown.name)}: ${String(thrown.message)}` : String(thrown);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return 'unreadable';
  }
}

export const thrownMarker = (thrown: unknown) => `[Thrown: ${thrownText(thrown)}]`;

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
export function loggable(value: unknown, walk: Walk, depth: number): unknown {
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
export function merge(entry: Record<string, unknown>, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  Object.assign(entry, value);
  return true;
}
