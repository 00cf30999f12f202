/**
 * Whole bodies of the generated requests (requests.ts) from their parts, and what goes around a
 * body: its content type, its size, the query and the path.
 */
import fc from 'fast-check';
import { API_PREFIXES } from '../../shared/operations';
import { type Entry, type FieldParts, type Part, preview } from './field-parts';
import { ANY_FIELD, BODY_CODES, DEPENDENCY_CODES, GATEWAY_MAX_BYTES, MAX_BODY_BYTES, type Verdict } from './hostile-request';
import { EXTRA_KEYS, extraValueText, hostileString, json, malformedJsonText, nonObjectJsonText, percentEncodeAll, percentEncodeUnsafe, rawObject } from './values';

export interface BodyPlan {
  readonly text: string | Uint8Array;
  /** For object bodies: the entries, in order (for re-encoding as a form). */
  readonly entries?: readonly Entry[];
  readonly verdict: Verdict;
  readonly blame: readonly string[];
  /** Every bad part is one only a dependency can find (an id not in the portal). */
  readonly dependencyRefusal?: boolean;
  /** See Target.mustName. */
  readonly mustName?: readonly (readonly string[])[];
  readonly expected: Readonly<Record<string, unknown>>;
  readonly why: string;
}

function extraEntries(reservedKeys: readonly string[]): fc.Arbitrary<Entry[]> {
  const extraKey = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...EXTRA_KEYS) }, { weight: 1, arbitrary: hostileString }).filter((key) => !reservedKeys.includes(key));
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<Entry[]>([]) },
    { weight: 2, arbitrary: fc.array<Entry>(fc.tuple(extraKey, extraValueText), { minLength: 1, maxLength: 3 }) },
  );
}

const separator = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  ');

const isFieldName = (blame: string) => blame !== ANY_FIELD && !/^[A-Z_]+$/.test(blame);

function combine(parts: readonly Part[], extras: readonly Entry[], extrasFirst: boolean, sep: string): BodyPlan {
  const fieldEntries = parts.flatMap((part) => part.entries);
  const entries = extrasFirst ? [...extras, ...fieldEntries] : [...fieldEntries, ...extras];
  const verdict: Verdict = parts.some((part) => part.verdict === 'bad') ? 'bad' : parts.some((part) => part.verdict === 'maybe') ? 'maybe' : 'ok';
  const blame = [...new Set(parts.filter((part) => part.verdict !== 'ok').flatMap((part) => part.blame))];
  const badParts = parts.filter((part) => part.verdict === 'bad');
  const dependencyRefusal = badParts.length > 0 && badParts.every((part) => part.blame.every((code) => DEPENDENCY_CODES.includes(code)));
  // Error codes (SUBSCRIPTION_NOT_FOUND) are no field problems: validation cannot see them.
  const mustName = parts.filter((part) => part.verdict === 'bad' && part.blame.every(isFieldName)).map((part) => part.blame);
  const why = [...parts.map((part) => part.why), ...extras.map(([key]) => `+${preview(key, 12)}`)].join(' ');
  return { text: rawObject(entries, sep), entries, verdict, blame, dependencyRefusal, mustName, expected: Object.assign({}, ...parts.map((part) => part.expected)), why };
}

/** Object bodies made of `fields`: all valid, one uncertain, or some surely invalid. */
export function objectBodies(fields: readonly FieldParts[], reservedKeys: readonly string[], weights: { ok: number; maybe: number; bad: number }): fc.Arbitrary<BodyPlan> {
  const withMaybe = fields.filter((field) => field.maybe);
  const allOk = fc.tuple(...fields.map((field) => field.ok));
  const oneMaybe = fc
    .nat(Math.max(0, withMaybe.length - 1))
    .chain((index) => fc.tuple(...fields.map((field) => (field === withMaybe[index] ? field.maybe! : field.ok))));
  const someBad = fc
    .uniqueArray(fc.nat(fields.length - 1), { minLength: 1, maxLength: fields.length })
    .chain((broken) =>
      fc.tuple(...fields.map((field, index) => (broken.includes(index) ? field.bad : field.maybe ? fc.oneof({ weight: 3, arbitrary: field.ok }, { weight: 1, arbitrary: field.maybe }) : field.ok))),
    );
  const parts = fc.oneof(
    { weight: weights.ok, arbitrary: allOk },
    ...(withMaybe.length > 0 && weights.maybe > 0 ? [{ weight: weights.maybe, arbitrary: oneMaybe }] : []),
    { weight: weights.bad, arbitrary: someBad },
  );
  return fc
    .tuple(parts, extraEntries(reservedKeys), fc.boolean(), separator)
    .chain(([chosen, extras, extrasFirst, sep]) =>
      fc.shuffledSubarray(chosen, { minLength: chosen.length, maxLength: chosen.length }).map((order) => combine(order, extras, extrasFirst, sep)),
    );
}

/** Bodies that are not JSON objects, or not JSON at all, around a valid body. */
export function nonObjectBodies(validBody: fc.Arbitrary<BodyPlan>): fc.Arbitrary<BodyPlan> {
  const plan = (text: string | Uint8Array, verdict: Verdict, blame: readonly string[], why: string, expected: Readonly<Record<string, unknown>> = {}): BodyPlan => ({
    text,
    verdict,
    blame,
    expected,
    why,
  });
  const textOf = (body: BodyPlan) => body.text as string;
  return fc.oneof(
    { weight: 4, arbitrary: nonObjectJsonText.map((text) => plan(text, 'bad', ['BODY_NOT_OBJECT'], `not an object: ${preview(text)}`)) },
    { weight: 1, arbitrary: validBody.map((body) => plan(`[${textOf(body)}]`, 'bad', ['BODY_NOT_OBJECT'], 'a valid body inside an array')) },
    { weight: 4, arbitrary: malformedJsonText.map((text) => plan(text, 'bad', ['MALFORMED_JSON', 'MISSING_BODY'], `malformed: ${preview(text)}`)) },
    {
      weight: 3,
      arbitrary: validBody.chain((body) =>
        fc.nat(textOf(body).length - 1).map((cut) => plan(textOf(body).slice(0, cut), 'bad', ['MALFORMED_JSON', 'MISSING_BODY'], `truncated at ${cut} of ${textOf(body).length}`)),
      ),
    },
    { weight: 2, arbitrary: fc.constantFrom('', ' ', '\n\n', '\t \r\n').map((text) => plan(text, 'bad', ['MISSING_BODY', 'MALFORMED_JSON'], `blank: ${preview(text)}`)) },
    {
      weight: 2,
      arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => plan(bytes, 'bad', [...BODY_CODES, ANY_FIELD], `${bytes.length} random bytes`)),
    },
    { weight: 1, arbitrary: validBody.map((body) => plan(`\ufeff${textOf(body)}`, 'maybe', ['MALFORMED_JSON'], `BOM + ${body.why}`, body.expected)) },
    { weight: 2, arbitrary: validBody.map((body) => plan(`${textOf(body)}\n \t`, 'ok', [], `${body.why} + trailing whitespace`, body.expected)) },
    {
      weight: 2,
      arbitrary: fc.tuple(validBody, fc.constantFrom('x', '}', ',', '{}', ' null', '\u0000')).map(([body, tail]) => plan(`${textOf(body)}${tail}`, 'bad', ['MALFORMED_JSON'], `${body.why} + ${preview(tail)}`)),
    },
  );
}

/** Any body at all, for operations that ignore theirs (list, delete). */
export const ignoredBodies: fc.Arbitrary<BodyPlan | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.array(fc.tuple(fc.oneof(fc.constantFrom(...EXTRA_KEYS, 'config_id', 'configId', 'name', 'status', 'events'), hostileString), extraValueText), { maxLength: 5 }), separator)
      .map(([entries, sep]): BodyPlan => ({ text: rawObject(entries, sep), entries, verdict: 'ok', blame: [], expected: {}, why: `object of ${entries.length} hostile fields` })),
  },
  { weight: 1, arbitrary: nonObjectJsonText.map((text): BodyPlan => ({ text, verdict: 'ok', blame: [], expected: {}, why: `not an object: ${preview(text)}` })) },
  { weight: 1, arbitrary: malformedJsonText.map((text): BodyPlan => ({ text, verdict: 'ok', blame: [], expected: {}, why: `malformed: ${preview(text)}` })) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes): BodyPlan => ({ text: bytes, verdict: 'ok', blame: [], expected: {}, why: `${bytes.length} random bytes` })) },
);

// ---------------------------------------------------------------------------------------------
// Transport: content type, size, chunking, path, query
// ---------------------------------------------------------------------------------------------

export interface ContentType {
  /** null: no content-type header at all. */
  readonly header: string | null;
  readonly verdict: Verdict;
  /** How a refused type's body is written: as JSON, or re-encoded as the type says. */
  readonly style: 'json' | 'form' | 'multipart';
}

const JSON_TYPES = [
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'Application/Json ; charset=utf-8',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/problem+json; charset=utf-8',
];
const NOT_JSON_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'text/json',
  'text/html',
  'application/xml',
  'application/octet-stream',
  'application/jsonp',
  'application/json5',
  'application/x-json-stream',
  'application/json, text/plain',
  'json',
  'application',
  '*/*',
  'application/*',
  'image/png',
  'text/plain; charset=\u00e9',
];

export const contentTypes: fc.Arbitrary<ContentType> = fc.oneof(
  { weight: 60, arbitrary: fc.constant<ContentType>({ header: 'application/json', verdict: 'ok', style: 'json' }) },
  { weight: 8, arbitrary: fc.constantFrom(...JSON_TYPES).map((header): ContentType => ({ header, verdict: 'ok', style: 'json' })) },
  { weight: 6, arbitrary: fc.constant<ContentType>({ header: null, verdict: 'ok', style: 'json' }) },
  { weight: 10, arbitrary: fc.constantFrom(...NOT_JSON_TYPES).map((header): ContentType => ({ header, verdict: 'bad', style: 'json' })) },
  { weight: 3, arbitrary: fc.constant<ContentType>({ header: 'application/x-www-form-urlencoded', verdict: 'bad', style: 'form' }) },
  { weight: 3, arbitrary: fc.constant<ContentType>({ header: 'multipart/form-data; boundary=----hostile', verdict: 'bad', style: 'multipart' }) },
  {
    // printable garbage (header values may hold tab, space to ~ and Latin-1)
    weight: 3,
    arbitrary: fc
      .string({ unit: fc.constantFrom(...'\t abcxyz/+;=,"\\~%*\u00e9\u00ff'.split('')), maxLength: 40 })
      .map((text): ContentType => ({ header: `x-garbage/${text}`.trim(), verdict: 'bad', style: 'json' })),
  },
  { weight: 2, arbitrary: fc.constantFrom('', 'application/json\tx', ' application/json ', 'application/json; charset=latin1', 'application/JSON;charset=utf-16').map((header): ContentType => ({ header, verdict: 'maybe', style: 'json' })) },
);

/** Target body sizes in bytes (undefined: as generated). */
export const sizes: fc.Arbitrary<number | undefined> = fc.oneof(
  { weight: 880, arbitrary: fc.constant(undefined) },
  { weight: 30, arbitrary: fc.constantFrom(MAX_BODY_BYTES - 1, MAX_BODY_BYTES, MAX_BODY_BYTES + 1) },
  { weight: 60, arbitrary: fc.integer({ min: MAX_BODY_BYTES + 1, max: 300_000 }) },
  { weight: 25, arbitrary: fc.integer({ min: 1_000_001, max: 2_500_000 }) },
  { weight: 5, arbitrary: fc.integer({ min: GATEWAY_MAX_BYTES + 1, max: GATEWAY_MAX_BYTES + 300_000 }) },
);

/** Chunked transfer encoding for about one body in six. */
export const chunkedOrNot = fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

export const queries: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom('?', '?a=1', '?config_id=x&name=y&status=1', '?__proto__[polluted]=1&constructor[prototype][polluted]=1', '?%zz=%E2%80&%00', `?a=${'b'.repeat(3000)}`),
      hostileString.map((text) => `?q=${percentEncodeUnsafe(text)}`),
    ),
  },
);

function formBody(entries: readonly Entry[]): string {
  const textOf = (raw: string) => {
    try {
      const value: unknown = JSON.parse(raw);
      return typeof value === 'string' ? value : raw;
    } catch {
      return raw;
    }
  };
  return entries.map(([key, raw]) => `${percentEncodeAll(key)}=${percentEncodeAll(textOf(raw))}`).join('&');
}

function multipartBody(entries: readonly Entry[]): string {
  const parts = entries.map(([key, raw]) => `------hostile\r\nContent-Disposition: form-data; name=${json(key)}\r\n\r\n${raw}\r\n`);
  return `${parts.join('')}------hostile--\r\n`;
}

/** The body's text as sent: re-encoded for a form content type, padded to `size` bytes when asked. */
export function bodyBytes(plan: BodyPlan, contentType: ContentType, size: number | undefined): Buffer {
  let bytes: Buffer;
  if (contentType.style !== 'json' && plan.entries) {
    bytes = Buffer.from(contentType.style === 'form' ? formBody(plan.entries) : multipartBody(plan.entries), 'utf8');
  } else {
    bytes = typeof plan.text === 'string' ? Buffer.from(plan.text, 'utf8') : Buffer.from(plan.text);
  }
  if (size === undefined || size <= bytes.length) return bytes;
  const text = bytes.toString('latin1');
  if (plan.entries && contentType.style === 'json' && text.trimEnd().endsWith('}')) {
    // An ignored field that fills the body up to `size` bytes.
    const end = text.trimEnd().length - 1;
    const field = plan.entries.length > 0 ? ',"padding":""' : '"padding":""';
    const fill = size - bytes.length - Buffer.byteLength(field);
    if (fill >= 0) {
      return Buffer.concat([bytes.subarray(0, end), Buffer.from(field.slice(0, -1), 'utf8'), Buffer.alloc(fill, 'x'), Buffer.from('"', 'utf8'), bytes.subarray(end)]);
    }
  }
  // Anything else grows by trailing spaces: what it is stays what it was.
  return Buffer.concat([bytes, Buffer.alloc(size - bytes.length, ' ')]);
}

export function lengthOf(plan: BodyPlan, contentType: ContentType, size: number | undefined): number {
  // Padding (bodyBytes) always reaches `size` exactly when the body is smaller.
  return Math.max(bodyBytes(plan, contentType, undefined).length, size ?? 0);
}

// --- paths ------------------------------------------------------------------------------------

interface PathChoice {
  readonly path: string;
  /** Whether it is exactly one of the operation's routes. */
  readonly route: boolean;
}

function mangledPaths(subPath: string): fc.Arbitrary<string> {
  return fc.constantFrom(...API_PREFIXES).chain((prefix) => {
    const exact = prefix + subPath;
    const last = subPath === '' ? 'subscriptions' : subPath.slice(1);
    const lastSegmentAt = exact.length - last.length;
    return fc.constantFrom(
      `${exact}/`,
      `${exact}//`,
      `${exact}/x`,
      `${exact}/.`,
      `${exact}/..`,
      `${exact}%2F`,
      `${exact}%00`,
      `${exact};x`,
      `${exact}.json`,
      exact.toUpperCase(),
      `/${exact}`,
      exact.replace('/webhooks/', '/webhooks//'),
      exact.replace('/webhooks/', '/webhooks/./'),
      exact.replace('/webhooks/', '/x/../webhooks/'),
      exact.replace('/webhooks/', '/webhooks%2F'),
      // one character of the last segment percent-encoded
      exact.slice(0, lastSegmentAt) + percentEncodeAll(last[0]!) + last.slice(1),
      exact.slice(0, lastSegmentAt) + last.slice(0, -1) + percentEncodeAll(last.slice(-1), true),
    );
  });
}

/**
 * Whether API Gateway routes `path` to the operation's route: segment by segment, each segment
 * percent-decoded (docs/local.md), so `%6Cist` is `list` while `%2F` never
 * makes a new segment and a malformed escape matches nothing.
 */
export function routesTo(path: string, subPath: string): boolean {
  const decoded = path.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return undefined;
    }
  });
  return API_PREFIXES.some((prefix) => {
    const expected = (prefix + subPath).split('/');
    return expected.length === decoded.length && expected.every((segment, index) => segment === decoded[index]);
  });
}

export function pathsOf(subPath: string): fc.Arbitrary<PathChoice> {
  return fc.oneof(
    { weight: 46, arbitrary: fc.constantFrom(...API_PREFIXES).map((prefix): PathChoice => ({ path: prefix + subPath, route: true })) },
    // Mostly no route; a percent-encoded letter of the path is the route, decoded.
    { weight: 4, arbitrary: mangledPaths(subPath).map((path): PathChoice => ({ path, route: routesTo(path, subPath) })) },
  );
}
