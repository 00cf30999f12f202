/**
 * A generated request (requests.ts) put together from its layers: body, content type, size,
 * Idempotency-Key header and path, with the outcome they make it expect.
 */
import fc from 'fast-check';
import type { HttpMethod } from '../../shared/operations';
import { bodyBytes, type BodyPlan, chunkedOrNot, type ContentType, contentTypes, ignoredBodies, lengthOf, pathsOf, queries, sizes } from './bodies';
import { preview } from './field-parts';
import { GATEWAY_MAX_BYTES, type HostileRequest, type Ids, MAX_BODY_BYTES, type OperationName, type Outcome, type Target, type Verdict } from './hostile-request';

function request(fields: Omit<HostileRequest, typeof fc.toStringMethod>): HostileRequest {
  // fast-check prints counterexamples with this: never the megabytes of a body.
  return Object.assign(fields, { [fc.toStringMethod]: () => fields.label });
}

/** The Idempotency-Key header (docs/api.md: create only; 1-255 printable ASCII, not only spaces). */
interface KeyHeader {
  readonly value: string | undefined;
  readonly verdict: Verdict;
  /** Made unique when sent (a random suffix), so that no two requests share a valid key, shrinking included. */
  readonly unique?: boolean;
}

const printableAscii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 });
const BAD_KEYS = ['', ' ', '   ', 'x'.repeat(256), `${'k'.repeat(250)} ${'k'.repeat(10)}`, 'clé', 'a\tb', '\u00ff\u00fe', 'k\u00a0'];

/** Mostly none; else a valid key (unique: each accepted create with a key is remembered), or an invalid one. */
export const idempotencyKeys: fc.Arbitrary<KeyHeader> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<KeyHeader>({ value: undefined, verdict: 'ok' }) },
  { weight: 3, arbitrary: printableAscii.map((text): KeyHeader => ({ value: text, verdict: 'ok', unique: true })) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_KEYS).map((value): KeyHeader => ({ value, verdict: 'bad' })) },
);

/** For the operations that do not read the header: any value is ignored. */
export const ignoredKeys: fc.Arbitrary<KeyHeader> = idempotencyKeys.map((key) => ({ ...key, verdict: 'ok' }));

function headersFor(contentType: ContentType, chunked: boolean, hasBody: boolean): Record<string, string> {
  return {
    ...(contentType.header === null ? {} : { 'content-type': contentType.header }),
    ...(chunked && hasBody ? { 'transfer-encoding': 'chunked' } : {}),
  };
}

const keyOf = (key: KeyHeader) => (key.value === undefined ? undefined : { value: key.value, unique: key.unique === true });

function labelOf(method: string, path: string, contentType: ContentType, length: number, chunked: boolean, key: KeyHeader, why: string): string {
  const type = contentType.header === null ? 'no content-type' : `content-type ${preview(contentType.header, 40)}`;
  const keyText = key.value === undefined ? '' : `, Idempotency-Key ${preview(key.value, 40)}${key.unique ? '+<uuid>' : ''}`;
  return `${method} ${preview(path, 120)} (${type}, ${length} bytes${chunked ? ', chunked' : ''}${keyText}): ${why}`;
}

/** Requests of an operation that reads a JSON body (create, update, activate, rename). */
export function bodyRequests(
  operation: OperationName,
  method: HttpMethod,
  subPath: string,
  bodies: fc.Arbitrary<BodyPlan>,
  keys: fc.Arbitrary<KeyHeader>,
): fc.Arbitrary<HostileRequest> {
  return fc
    .record({ body: bodies, contentType: contentTypes, size: sizes, chunked: chunkedOrNot, path: pathsOf(subPath), query: queries, key: keys })
    .map(({ body, contentType, size, chunked, path, query, key }) => {
      const bodyLength = lengthOf(body, contentType, size);
      // Past 10 MB only with a content-length (API Gateway refuses it from the headers): a chunked
      // upload the gateway emulation cuts off at 10 MB resets the connection, which can lose its 413.
      const isChunked = chunked && bodyLength > 0 && bodyLength <= GATEWAY_MAX_BYTES;
      const fullPath = path.path + query;
      const target = (): Target => {
        if (!path.route) return { path: fullPath, outcome: 'no-route', blame: [] };
        if (bodyLength > GATEWAY_MAX_BYTES) return { path: fullPath, outcome: 'too-large', blame: [] };
        // The worst verdict of the layers decides; the refusal may name any of their problems.
        const verdicts: Verdict[] = [body.verdict];
        const blame: string[] = [];
        if (contentType.verdict !== 'ok') {
          verdicts.push(contentType.verdict);
          blame.push('UNSUPPORTED_CONTENT_TYPE');
        }
        if (bodyLength > MAX_BODY_BYTES) {
          verdicts.push('bad');
          blame.push('BODY_TOO_LARGE');
        }
        if (key.verdict !== 'ok') {
          verdicts.push(key.verdict);
          blame.push('INVALID_IDEMPOTENCY_KEY');
        }
        blame.push(...body.blame);
        const outcome: Outcome = verdicts.includes('bad') ? 'refuse' : verdicts.includes('maybe') ? 'either' : 'accept';
        // Only the body's id is wrong: the other layers pass, so the handler looks the id up.
        const dependencyRefusal = body.verdict === 'bad' && body.dependencyRefusal === true && !verdicts.slice(1).includes('bad');
        return { path: fullPath, outcome, blame, dependencyRefusal, mustName: body.mustName ?? [] };
      };
      return request({
        operation,
        label: labelOf(method, fullPath, contentType, bodyLength, isChunked, key, body.why),
        method,
        headers: headersFor(contentType, isChunked, bodyLength > 0),
        idempotencyKey: keyOf(key),
        bodyLength,
        body: () => (bodyLength === 0 ? undefined : bodyBytes(body, contentType, size)),
        chunked: isChunked,
        target,
        expected: body.expected,
      });
    });
}


/** Requests of an operation that ignores any body: the content type and size do not matter, up to API Gateway's limit. */
export function ignoredBodyRequests(
  operation: 'list' | 'delete',
  method: HttpMethod,
  paths: fc.Arbitrary<{ path: (ids: Ids) => string; why: string }>,
  classify: (path: string, ids: Ids) => Target,
): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      body: ignoredBodies,
      contentType: fc.oneof({ weight: 3, arbitrary: contentTypes }, { weight: 1, arbitrary: fc.constant<ContentType>({ header: null, verdict: 'ok', style: 'json' }) }),
      size: sizes,
      chunked: chunkedOrNot,
      path: paths,
      query: queries,
      key: ignoredKeys,
    })
    .map(({ body, contentType, size, chunked, path, query, key }) => {
      const plan = body ?? { text: '', verdict: 'ok' as const, blame: [], expected: {}, why: 'no body' };
      const bodyLength = body === undefined && size === undefined ? 0 : lengthOf(plan, contentType, size);
      // Past 10 MB only with a content-length (API Gateway refuses it from the headers): a chunked
      // upload the gateway emulation cuts off at 10 MB resets the connection, which can lose its 413.
      const isChunked = chunked && bodyLength > 0 && bodyLength <= GATEWAY_MAX_BYTES;
      const target = (ids: Ids): Target => {
        const fullPath = path.path(ids) + query;
        const routed = classify(fullPath, ids);
        if (routed.outcome === 'no-route' || bodyLength <= GATEWAY_MAX_BYTES) return routed;
        // Past 10 MB: API Gateway's 413, or its 404 where the path may match no route.
        return { path: fullPath, outcome: routed.outcome === 'refuse-or-no-route' ? 'too-large-or-no-route' : 'too-large', blame: [] };
      };
      return request({
        operation,
        label: labelOf(method, `${path.why}${query}`, contentType, bodyLength, isChunked, key, plan.why),
        method,
        headers: headersFor(contentType, isChunked, bodyLength > 0),
        idempotencyKey: keyOf(key),
        bodyLength,
        body: () => (bodyLength === 0 ? undefined : bodyBytes(plan, contentType, size)),
        chunked: isChunked,
        target,
        expected: {},
      });
    });
}
