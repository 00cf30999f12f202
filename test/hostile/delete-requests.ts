/** Requests of delete (requests.ts): ids written every way, and what DELETE on each path must give. */
import fc from 'fast-check';
import { API_PREFIXES } from '../../shared/operations';
import { preview } from './field-parts';
import type { GeneratorIds, HostileRequest, Ids, Target } from './hostile-request';
import { ignoredBodyRequests } from './request-assembly';
import { hostileString, percentEncodeAll, percentEncodeUnsafe, TRICKY_TEXTS } from './values';

/** The id segment, from an id that exists when the request is sent. */
type Segment = { segment: (ids: Ids) => string; why: string };

const ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ways of writing an id that still name it (once percent-decoded, case aside). */
const SAME_ID_FORMS: readonly [why: string, form: (id: string) => string][] = [
  ['as is', (id) => id],
  ['upper case', (id) => id.toUpperCase()],
  ['hyphens as %2D', (id) => id.replaceAll('-', '%2D')],
  ['hyphens as %2d', (id) => id.replaceAll('-', '%2d')],
  ['all percent-encoded', (id) => percentEncodeAll(id)],
  ['all percent-encoded, lower-case hex', (id) => percentEncodeAll(id, true)],
];

/** Ways of writing something close to an id that is not it. */
const OTHER_ID_FORMS: readonly [why: string, form: (id: string) => string][] = [
  ['+ %2F', (id) => `${id}%2F`],
  ['+ %2Fx', (id) => `${id}%2Fx`],
  ['+ %2F..', (id) => `${id}%2F..`],
  ['..%2F +', (id) => `..%2F${id}`],
  ['+ %00', (id) => `${id}%00`],
  ['%00 +', (id) => `%00${id}`],
  ['+ %20', (id) => `${id}%20`],
  ['+ %0A', (id) => `${id}%0A`],
  ['hyphens double-encoded %252D', (id) => id.replaceAll('-', '%252D')],
  ['double-encoded', (id) => percentEncodeAll(percentEncodeAll(id))],
  ['hyphens dropped', (id) => id.replaceAll('-', '')],
  ['hyphens as U+2010', (id) => id.replaceAll('-', '%E2%80%90')],
  ['a fullwidth digit', (id) => id.replace(/[0-9]/, (digit) => percentEncodeAll(String.fromCharCode(0xff10 + Number(digit))))],
  ['truncated', (id) => id.slice(0, 35)],
  ['+ x', (id) => `${id}x`],
  ['twice', (id) => `${id}${id}`],
  ['in braces', (id) => `%7B${id}%7D`],
  ['+ ;x', (id) => `${id};x`],
  ['+ .json', (id) => `${id}.json`],
  ['+ %3F', (id) => `${id}%3Fx=1`],
  ['+ %23', (id) => `${id}%23frag`],
  ['urn:uuid:', (id) => `urn:uuid:${id}`],
];

const OTHER_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '%2F',
  '%2f..%2f..%2f',
  '%00',
  '%252F',
  '%25',
  'activate',
  'rename',
  'list',
  'LIST',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'prototype',
  '%5F%5Fproto%5F%5F',
  '00000000-0000-0000-0000-000000000000',
  '*',
  '~',
  '%C0%AF',
  '%FF',
  '%E2%80%AE',
  '%F0%9F%98%80',
];

const MAX_ODD_SEGMENT_LENGTH = 8_000;

/** Malformed percent-encodings: API Gateway may answer 404 (no route) or pass them on. */
const MALFORMED_SEGMENTS = ['%', '%G0', '%E2%80', '%ED%A0%80', 'a%', '%%', '%2'];

function deleteSegments(ids: GeneratorIds): fc.Arbitrary<Segment> {
  const scratchForm = fc.constantFrom(...SAME_ID_FORMS, ...OTHER_ID_FORMS).map(([why, form]): Segment => ({ segment: (now) => form(now.scratch!), why: `scratch id ${why}` }));
  const seedForm = fc
    .tuple(fc.constantFrom(...ids.seeds), fc.constantFrom(...OTHER_ID_FORMS))
    .map(([seed, [why, form]]): Segment => ({ segment: () => form(seed), why: `seed ${seed} ${why}` }));
  const foreignForm = fc
    .tuple(fc.oneof(fc.constantFrom(...ids.foreign), fc.uuid(), fc.uuid({ version: 7 })), fc.constantFrom(...SAME_ID_FORMS, ...OTHER_ID_FORMS))
    .map(([id, [why, form]]): Segment => ({ segment: () => form(id), why: `other id ${id} ${why}` }));
  const other = fc.oneof(
    fc.constantFrom(...OTHER_SEGMENTS),
    fc.constantFrom(...MALFORMED_SEGMENTS),
    fc.integer({ min: 256, max: 8_000 }).map((length) => 'a'.repeat(length)),
    hostileString.filter((text) => text !== '').map((text) => percentEncodeUnsafe(text)),
    hostileString.filter((text) => text !== '').map((text) => percentEncodeAll(text)),
    fc.constantFrom(...TRICKY_TEXTS).map((text) => percentEncodeUnsafe(text)),
    // At most 8,000 characters (percent-encoded ones can reach 15,000): with a 3 KB query and the
    // headers, a longer request line passes Node's 16 KiB header limit, past which the local
    // gateway drops the connection unanswered. API Gateway's own answer past its quota (request
    // line and headers, 10,240 bytes) is not pinned down here either.
  ).filter((segment) => segment.length <= MAX_ODD_SEGMENT_LENGTH);
  return fc.oneof(
    { weight: 3, arbitrary: scratchForm },
    { weight: 4, arbitrary: seedForm },
    { weight: 4, arbitrary: foreignForm },
    { weight: 5, arbitrary: other.map((segment): Segment => ({ segment: () => segment, why: preview(segment, 60) })) },
  );
}

export function deleteRequests(ids: GeneratorIds): fc.Arbitrary<HostileRequest> {
  const paths = fc
    .tuple(
      fc.constantFrom(...API_PREFIXES),
      deleteSegments(ids),
      fc.oneof(
        { weight: 20, arbitrary: fc.constant(['', ''] as const) },
        {
          weight: 2,
          arbitrary: fc.constantFrom<readonly [string, string]>(['', '/'], ['', '/x'], ['', '//'], ['//', ''], ['/./', ''], ['/../subscriptions/', ''], ['', '/..']),
        },
      ),
    )
    .map(([prefix, { segment, why }, [before, after]]) => ({
      path: (now: Ids) => `${prefix}${before || '/'}${segment(now)}${after}`,
      why: `${prefix}${before || '/'}<${why}>${after}`,
    }));
  return ignoredBodyRequests('delete', 'DELETE', paths, classifyDeletePath);
}

/**
 * What DELETE on a path must give (docs/api.md: ids matched case-insensitively). The
 * route is `{prefix}/{configId}`: one more non-empty segment; API Gateway percent-decodes it.
 */
export function classifyDeletePath(fullPath: string, ids: Ids): Target {
  const path = fullPath.split('?', 1)[0]!;
  const prefix = API_PREFIXES.find((candidate) => path.startsWith(`${candidate}/`));
  const segment = prefix === undefined ? undefined : path.slice(prefix.length + 1);
  if (segment === undefined || segment === '' || segment.includes('/')) return { path: fullPath, outcome: 'no-route', blame: [] };
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return { path: fullPath, outcome: 'refuse-or-no-route', blame: ['configId'] };
  }
  if (!ID_SHAPE.test(decoded)) return { path: fullPath, outcome: 'refuse', blame: ['configId'] };
  const id = decoded.toLowerCase();
  if (ids.seeds.includes(id)) throw new Error(`generator error: ${fullPath} names seed ${id}, which no request may delete`);
  if (id === ids.scratch) return { path: fullPath, outcome: segment.includes('%') ? 'either' : 'accept', blame: ['configId'] };
  return { path: fullPath, outcome: 'refuse', blame: ['SUBSCRIPTION_NOT_FOUND'], dependencyRefusal: true };
}
