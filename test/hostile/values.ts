/**
 * Hostile values for the hostile-input suite (test/hostile-input.*.test.ts): strings a caller
 * can put in a field, values of the wrong type, and raw JSON text written by hand, so that keys
 * such as `__proto__` appear literally and strings can carry escapes JSON.stringify would never
 * write (`\u0061`, lone surrogates as `\ud800`).
 *
 * Everything here is plain fast-check arbitraries; what a field accepts is decided in
 * hostile-requests.ts.
 */
import fc from 'fast-check';
import { splitList } from '../../shared/setting-rules';
import { eventKinds } from '../../shared/settings';

/** The catalog the functions run with in tests (EVENT_KINDS is unset there). */
export const EVENT_KINDS: readonly string[] = splitList(eventKinds.default!);

/** Raw JSON text of a value (lone surrogates come out as `\udXXX` escapes). */
export const json = (value: unknown): string => JSON.stringify(value);

/** The same string as JSON text with every UTF-16 unit escaped: `"\u006e\u0061..."`. */
export function escapedJsonString(value: string): string {
  let text = '"';
  for (let index = 0; index < value.length; index++) text += `\\u${value.charCodeAt(index).toString(16).padStart(4, '0')}`;
  return `${text}"`;
}

/** The same string as JSON text, either plainly or with some or all units escaped. */
export const jsonStringText = (value: string): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.constant(json(value)), weight: 6 },
    { arbitrary: fc.constant(escapedJsonString(value)), weight: 1 },
    // `\/` is a legal escape of `/`
    { arbitrary: fc.constant(json(value).replaceAll('/', '\\/')), weight: 1 },
  );

/** A JSON object written by hand: keys appear exactly as given, `__proto__` included. */
export function rawObject(entries: readonly (readonly [key: string, raw: string])[], separator = ''): string {
  return `{${entries.map(([key, raw]) => `${separator}${json(key)}${separator}:${separator}${raw}`).join(',')}${separator}}`;
}

export const CONTROL_CHARACTERS = [
  '\u0000', '\u0001', '\u0007', '\b', '\t', '\n', '\u000b', '\f', '\r', '\u001b', '\u001f', '\u007f', '\u0080', '\u0085', '\u009f',
] as const;

export const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff', '\ud83d'] as const;

/** Whitespace String.prototype.trim removes. */
export const TRIMMED_WHITESPACE = [' ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u2028'] as const;

/** Printable text from many scripts: astral, combining, RTL, zero-width, emoji sequences. */
export const UNICODE_TEXTS = [
  'Café crème',
  'naïve façade',
  'e\u0301\u0301\u0301',
  '日本語のフック',
  '😀 hooks',
  '👩‍👩‍👧‍👦',
  '𝄞𝕳𝖔𝖔𝖐',
  '\u202eevil\u202c',
  'مرحبا بالعالم',
  'שלום',
  'a\u200bb',
  'x\u200dy',
  'Z̴̡̪͌a̸͎l̵̰g̷̟o̶̙',
  'İstanbul ß ﬀ',
  '\ufffd',
  'x\uffff',
  '\u{10ffff}',
  '\u{1f600}\u{1f3fd}',
  '각',
  'Ω≈ç√∫',
] as const;

/** Strings that mean something elsewhere: JavaScript, SQL, templates, paths, ARNs, key names. */
export const TRICKY_TEXTS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  'NaN',
  'Infinity',
  '[object Object]',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '${jndi:ldap://x/y}',
  '{{7*7}}',
  '%s%n%x',
  '../../etc/passwd',
  '\\',
  '"',
  '\\u0000',
  'arn:aws:sns:us-east-1:000000000000:webhooks-test-x',
  'subscription#x',
  'portal',
  '#',
] as const;

/** Mixes units that are hard on text handling: controls, lone surrogates, combining marks, astral characters. */
const nastyUnit = fc.constantFrom(...CONTROL_CHARACTERS, ...LONE_SURROGATES, 'a', 'Z', '9', 'é', '\u0301', '😀', '\u202e', '"', '\\', '/', '%');

/** Any string a caller could send in a JSON string, from empty to a few thousand characters. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.constantFrom(...TRIMMED_WHITESPACE).map((space) => space.repeat(3)),
  fc.constantFrom(...UNICODE_TEXTS),
  fc.constantFrom(...TRICKY_TEXTS),
  fc.constantFrom(...CONTROL_CHARACTERS),
  fc.constantFrom(...LONE_SURROGATES),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: nastyUnit, maxLength: 30 }),
  fc.integer({ min: 256, max: 5_000 }).map((length) => 'x'.repeat(length)),
  fc.integer({ min: 100, max: 300 }).map((count) => '😀'.repeat(count)),
);

/** Raw JSON text of numbers, including forms JSON.stringify never writes. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(json),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(json),
  fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '9007199254740993', '0.1', '-1', '2', '1.5', '0e0', '1E+2'),
);

/** Raw JSON text of deeply nested arrays or objects (JSON.parse takes them; recursion could not). */
export const deepJson: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 100, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 100, max: 5_000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
);

/** Raw JSON text of any value that is not a string. */
export const notAStringText: fc.Arbitrary<string> = fc.oneof(
  numberText,
  fc.constantFrom('true', 'false', 'null', '[]', '{}', '[""]', '["a"]', '[null]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
  fc.jsonValue({ maxDepth: 3 }).filter((value) => typeof value !== 'string').map(json),
  deepJson,
);

/** A short JSON object with hostile keys and values, as raw text. */
export const hostileObjectText: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...TRICKY_TEXTS), hostileString), fc.oneof(hostileString.map(json), notAStringText)), {
    maxLength: 4,
  })
  .map((entries) => rawObject(entries));

/** Keys that are not fields of any operation, to add to a body: they must be ignored. */
export const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '',
  ' ',
  'portalId',
  'portal_id',
  'topicArn',
  'subscriptionArn',
  'sk',
  'createdAt',
  'success',
  'NAME',
  'name ',
  '😀',
  '\u0000',
  'a'.repeat(300),
] as const;

/** Values for extra keys: prototype-pollution payloads among them. */
export const extraValueText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{"polluted":"yes","status":0,"name":"pwned","isAdmin":true}',
    '{"prototype":{"polluted":"yes"}}',
    '{"__proto__":{"polluted":"yes"}}',
    '{"toString":"pwned","valueOf":1}',
    '"portal-b"',
    'null',
  ),
  hostileString.map(json),
  notAStringText,
  hostileObjectText,
);

/** Text that is not valid JSON. */
export const malformedJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"name":',
    '{"name":"x"',
    '{"name":"x",}',
    "{'name':'x'}",
    '{name:"x"}',
    '{"name":"x"}}',
    '{"name":"x"} {}',
    '{"name":undefined}',
    '{"status":NaN}',
    '{"status":Infinity}',
    '{"status":0x1}',
    '{"status":01}',
    '{"status":+1}',
    '{"status":.5}',
    '{"name":"x\u0000"}',
    '{"name":"\\x41"}',
    '{"name":"\\u12"}',
    '{"name":"unterminated}',
    '// comment\n{}',
    '{/* c */}',
    '[1,2',
    'nul',
    'tru',
    '"open',
    '<?xml version="1.0"?><a/>',
    'name=x&protocol=email',
    '\u0000\u0000\u0000',
  ),
  // strings that are not JSON (filtered: a few happen to be, such as "1")
  fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).filter((text) => !parses(text)),
);

/** Raw JSON text of values that are not objects. */
export const nonObjectJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '0', '-1', '1e400', '""', '"{}"', '[]', '[{}]', '[null]', '"name"'),
  numberText,
  hostileString.map(json),
  fc.jsonValue({ maxDepth: 2 }).filter((value) => typeof value !== 'object' || value === null || Array.isArray(value)).map(json),
);

export function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Percent-encodes every UTF-8 byte of the text (`%41` for `A`); lone surrogates become U+FFFD's bytes. */
export function percentEncodeAll(text: string, lowerCase = false): string {
  const hex = [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
  return lowerCase ? hex : hex.toUpperCase();
}

/** Percent-encodes what a request-target may not hold raw (and `%` itself), leaving the rest. */
export function percentEncodeUnsafe(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => (byte > 0x20 && byte < 0x7f && byte !== 0x25 && byte !== 0x3f && byte !== 0x23 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}
