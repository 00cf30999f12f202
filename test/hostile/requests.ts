/**
 * Generated hostile requests for each operation of the API, and what the answer to each must be.
 *
 * A request is built in layers, each of which knows whether it makes the request invalid:
 * - the body: for the operations that read one, an object of fields each of which is valid,
 *   surely invalid ("bad": wrong type, missing, out of range, malformed), or of uncertain
 *   validity ("maybe": e.g. arbitrary Unicode in a name), plus ignored extra fields
 *   (`__proto__`, `constructor`, ...); or a body that is not a JSON object at all;
 * - the content type (JSON, a JSON variant, none, or something else);
 * - the size (padded past 64 KiB, past 1 MB, rarely past API Gateway's 10 MB), chunked or not;
 * - the Idempotency-Key header (create reads it; the others must ignore it);
 * - the path (the route, or a mangled path no route matches; for delete, odd ids) and a query.
 *
 * From the layers follows the expected outcome: `accept` (200), `refuse` (the handler's 400
 * envelope, naming one of `blame`: a field or an error code), `either` (200 or such a 400),
 * `no-route` (API Gateway's 404), `too-large` (API Gateway's 413), and for malformed
 * percent-encodings in delete's id, where API Gateway's own answer is not pinned down here,
 * `refuse-or-no-route` / `too-large-or-no-route`.
 *
 * Paths are matched as the local gateway (infra/local/gateway/routes.ts) does and as API
 * Gateway documents it: literal segments exactly as sent, the `{configId}` segment
 * percent-decoded.
 *
 * The oracle is the request rules and the decisions in docs/api.md, written out independently of the
 * service's code: it never calls the service's validators.
 */
import fc from 'fast-check';
import { API_PREFIXES, type HttpMethod } from '../../shared/operations';
import {
  CONTROL_CHARACTERS,
  deepJson,
  EVENT_KINDS,
  EXTRA_KEYS,
  extraValueText,
  hostileString,
  json,
  jsonStringText,
  LONE_SURROGATES,
  malformedJsonText,
  nonObjectJsonText,
  notAStringText,
  percentEncodeAll,
  percentEncodeUnsafe,
  rawObject,
  TRICKY_TEXTS,
  TRIMMED_WHITESPACE,
  UNICODE_TEXTS,
} from './values';

/** Request bodies over 64 KiB are refused with a 400. */
export const MAX_BODY_BYTES = 64 * 1024;
/** API Gateway's payload limit for HTTP APIs: larger requests get its 413. */
export const GATEWAY_MAX_BYTES = 10 * 1024 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PROTOCOLS = ['https', 'http', 'email', 'email-json', 'sqs', 'lambda'] as const;

export type OperationName = 'create' | 'update' | 'activate' | 'list' | 'rename' | 'delete';
export type Outcome = 'accept' | 'either' | 'refuse' | 'refuse-or-no-route' | 'no-route' | 'too-large' | 'too-large-or-no-route';
type Verdict = 'ok' | 'maybe' | 'bad';

/** Error codes of refusals that concern the body as a whole. */
export const BODY_CODES = ['MALFORMED_JSON', 'MISSING_BODY', 'BODY_NOT_OBJECT', 'BODY_TOO_LARGE', 'UNSUPPORTED_CONTENT_TYPE'] as const;
/** In a blame list: any field of the operation. */
export const ANY_FIELD = '*';
/** Refusals only a dependency can decide (the handler has to look the id up in DynamoDB). */
export const DEPENDENCY_CODES: readonly string[] = ['SUBSCRIPTION_NOT_FOUND', 'SUBSCRIPTION_LIMIT_REACHED', 'ENDPOINT_REFUSED', 'IDEMPOTENCY_KEY_REUSED'];

/** The subscriptions of the caller's portal when a request is sent. */
export interface Ids {
  /** The one valid requests of this operation may change or delete. */
  readonly scratch?: string;
  /** Ones no request may touch. */
  readonly seeds: readonly string[];
}

export interface Target {
  /** The request-target, raw: sent as is, never normalized. */
  readonly path: string;
  readonly outcome: Outcome;
  /** For refusals: the answer must name one of these (a field of the body, or an error code). */
  readonly blame: readonly string[];
  /**
   * A refusal that only a dependency can decide (nothing else is wrong with the request): it
   * passes validation and reaches DynamoDB, so an overload 503 is a fair answer to it.
   */
  readonly dependencyRefusal?: boolean;
  /**
   * For refusals of invalid fields (INVALID_REQUEST): each surely invalid part of the body, by
   * the fields that may be blamed for it. The refusal's `errors` must name one of each group:
   * every problem at once, not only the first.
   */
  readonly mustName?: readonly (readonly string[])[];
}

export interface HostileRequest {
  readonly operation: OperationName;
  readonly label: string;
  readonly method: HttpMethod;
  /** Besides authorization and Idempotency-Key. */
  readonly headers: Readonly<Record<string, string>>;
  /** The Idempotency-Key header, if sent; `unique`: with a random suffix added when sent. */
  readonly idempotencyKey?: { readonly value: string; readonly unique: boolean };
  readonly bodyLength: number;
  /** The body's bytes, made when sent (some are megabytes). */
  body(): Buffer | undefined;
  readonly chunked: boolean;
  target(ids: Ids): Target;
  /** If accepted: the normalized values the service must store (or list). */
  readonly expected: Readonly<Record<string, unknown>>;
}

/** What the generators may use: the ids that exist when the suite starts. */
export interface GeneratorIds {
  /** This portal's scratch subscription (update, activate, rename); delete's changes, so it resolves late. */
  readonly scratch?: string;
  /** This portal's seeds. */
  readonly seeds: readonly string[];
  /** Subscriptions of other portals: existing ids this portal must not reach. */
  readonly foreign: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Body parts: one field (or the addressing pair config_id / configId) each
// ---------------------------------------------------------------------------------------------

type Entry = readonly [key: string, raw: string];

interface Part {
  readonly entries: readonly Entry[];
  readonly verdict: Verdict;
  readonly blame: readonly string[];
  readonly expected: Readonly<Record<string, unknown>>;
  readonly why: string;
}

interface FieldParts {
  readonly ok: fc.Arbitrary<Part>;
  readonly maybe?: fc.Arbitrary<Part>;
  readonly bad: fc.Arbitrary<Part>;
}

function preview(text: string, max = 48): string {
  const shown = JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
  return text.length > max ? `${shown}(${text.length} chars)` : shown;
}

/** A valid value: [raw JSON text, the value the service must store]. */
type Valid = readonly [raw: string, value: unknown];
/** A surely invalid value: [raw JSON text, what is wrong]. */
type Invalid = readonly [raw: string, why: string];

function fieldParts(key: string, valid: fc.Arbitrary<Valid>, invalid: fc.Arbitrary<Invalid>, maybe?: fc.Arbitrary<Valid>): FieldParts {
  return {
    ok: fc.oneof(
      { weight: 9, arbitrary: valid.map(([raw, value]): Part => ({ entries: [[key, raw]], verdict: 'ok', blame: [], expected: { [key]: value }, why: `${key}=${preview(raw)}` })) },
      {
        // JSON.parse keeps the last of duplicate keys
        weight: 1,
        arbitrary: fc.tuple(invalid, valid).map(([[badRaw], [raw, value]]): Part => ({
          entries: [[key, badRaw], [key, raw]],
          verdict: 'ok',
          blame: [],
          expected: { [key]: value },
          why: `${key}=${preview(badRaw, 16)} then ${key}=${preview(raw)}`,
        })),
      },
    ),
    maybe: maybe?.map(([raw, value]): Part => ({ entries: [[key, raw]], verdict: 'maybe', blame: [key], expected: { [key]: value }, why: `${key}=${preview(raw)}?` })),
    bad: fc.oneof(
      { weight: 2, arbitrary: fc.constant<Part>({ entries: [], verdict: 'bad', blame: [key], expected: {}, why: `no ${key}` }) },
      { weight: 8, arbitrary: invalid.map(([raw, why]): Part => ({ entries: [[key, raw]], verdict: 'bad', blame: [key], expected: {}, why: `${key}=${preview(raw)} (${why})` })) },
      {
        weight: 1,
        arbitrary: fc.tuple(valid, invalid).map(([[raw], [badRaw, why]]): Part => ({
          entries: [[key, raw], [key, badRaw]],
          verdict: 'bad',
          blame: [key],
          expected: {},
          why: `${key}=${preview(raw, 16)} then ${key}=${preview(badRaw)} (${why})`,
        })),
      },
    ),
  };
}

// --- name -------------------------------------------------------------------------------------

const NAME_CORES = [
  'Media updates',
  'a',
  'a'.repeat(255),
  '😀'.repeat(255),
  `${'x'.repeat(254)}𝄞`,
  ...UNICODE_TEXTS,
  ...TRICKY_TEXTS,
];
const padding = fc.constantFrom('', '', '', ...TRIMMED_WHITESPACE);

const validName: fc.Arbitrary<Valid> = fc
  .tuple(padding, fc.oneof(fc.constantFrom(...NAME_CORES), fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,40}[A-Za-z0-9]$/)), padding)
  .chain(([before, core, after]) => jsonStringText(before + core + after).map((raw): Valid => [raw, core]));

const invalidName: fc.Arbitrary<Invalid> = fc.oneof(
  fc.array(fc.constantFrom(...TRIMMED_WHITESPACE), { maxLength: 4 }).map((spaces): Invalid => [json(spaces.join('')), 'empty once trimmed']),
  fc.tuple(fc.constantFrom(...CONTROL_CHARACTERS), fc.constantFrom('a', 'Hooks ', '😀')).map(([control, text]): Invalid => [json(`${text}${control}b`), 'control character']),
  fc.tuple(fc.constantFrom(...LONE_SURROGATES), fc.constantFrom('', 'a', 'Hooks ')).map(([surrogate, text]): Invalid => [json(`${text}${surrogate}`), 'lone surrogate']),
  fc.tuple(fc.constantFrom(...LONE_SURROGATES), fc.constantFrom('a', 'Hooks')).map(([surrogate, text]): Invalid => [json(`${surrogate}${text}`), 'lone surrogate']),
  fc.integer({ min: 256, max: 3_000 }).map((length): Invalid => [json('n'.repeat(length)), 'over 255 characters']),
  fc.integer({ min: 256, max: 600 }).map((length): Invalid => [json('😀'.repeat(length)), 'over 255 characters']),
  notAStringText.map((raw): Invalid => [raw, 'not a string']),
);

const maybeName: fc.Arbitrary<Valid> = hostileString.chain((text) => jsonStringText(text).map((raw): Valid => [raw, text.trim()]));

const nameParts = fieldParts('name', validName, invalidName, maybeName);

// --- events -----------------------------------------------------------------------------------

const kind = fc.constantFrom(...EVENT_KINDS);
const eventsText = (kinds: readonly string[]) => fc.tuple(...kinds.map((k) => jsonStringText(k))).map((texts) => `[${texts.join(',')}]`);

const validEvents: fc.Arbitrary<Valid> = fc
  .oneof({ weight: 8, arbitrary: fc.array(kind, { minLength: 1, maxLength: 12 }) }, { weight: 1, arbitrary: fc.array(kind, { minLength: 50, maxLength: 50 }) })
  .chain((kinds) => eventsText(kinds).map((raw): Valid => [raw, [...new Set(kinds)]]));

const NEAR_MISS_KINDS = [
  'Asset_bank.media.create',
  'asset_bank.media.create ',
  ' asset_bank.media.create',
  'asset_bank.media.*',
  'asset_bank.media',
  'asset_bank.media.create\u0000',
  'asset_bank.media.creat\u0435',
  'ａsset_bank.media.create',
  'asset_bank.media.create,workflow.job.create',
  '*',
  '',
];
const unknownKind = fc.oneof(fc.constantFrom(...NEAR_MISS_KINDS), hostileString.filter((text) => !EVENT_KINDS.includes(text)));

const invalidEvents: fc.Arbitrary<Invalid> = fc.oneof(
  fc.constant<Invalid>(['[]', 'empty']),
  fc.array(kind, { minLength: 51, maxLength: 70 }).map((kinds): Invalid => [json(kinds), `${kinds.length} entries`]),
  fc
    .tuple(fc.array(kind, { maxLength: 5 }), unknownKind, fc.array(kind, { maxLength: 5 }))
    .map(([before, unknown, after]): Invalid => [json([...before, unknown, ...after]), 'unknown kind']),
  fc
    .tuple(fc.array(kind, { maxLength: 5 }), fc.oneof(notAStringText, deepJson), fc.array(kind, { maxLength: 5 }))
    .map(([before, element, after]): Invalid => [`[${[...before.map(json), element, ...after.map(json)].join(',')}]`, 'an entry is not a string']),
  fc.constantFrom<Invalid>(
    [json(EVENT_KINDS[0]), 'a string, not an array'],
    ['{"0":"asset_bank.media.create","length":1}', 'an array-like object'],
    ['null', 'null'],
  ),
  notAStringText.filter((raw) => !isArrayOfKinds(raw)).map((raw): Invalid => [raw, 'not an array of strings']),
);

function isArrayOfKinds(raw: string): boolean {
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) && value.length > 0 && value.length <= 50 && value.every((entry) => EVENT_KINDS.includes(entry as string));
  } catch {
    return false;
  }
}

const eventsParts = fieldParts('events', validEvents, invalidEvents);

// --- protocol and endpoint (create) ----------------------------------------------------------

const VALID_DELIVERIES: readonly (readonly [protocol: string, endpoint: string])[] = [
  ['email', 'ops@example.com'],
  ['email', 'first.last+tag@sub.example.co.uk'],
  ['email', 'ünïcødé@例え.jp'],
  ['email-json', 'hooks@example.org'],
  ['sqs', 'arn:aws:sqs:us-east-1:123456789012:queue-1'],
  ['lambda', 'arn:aws:lambda:us-east-1:123456789012:function:hook'],
  ['lambda', 'arn:aws:lambda:eu-central-1:123456789012:function:hook-2:prod'],
];

/** For each class of protocol, an endpoint that is valid for it and for no other class. */
const ENDPOINT_BY_CLASS = {
  email: 'ops@example.com',
  sqs: 'arn:aws:sqs:us-east-1:123456789012:queue-1',
  lambda: 'arn:aws:lambda:us-east-1:123456789012:function:hook',
  http: 'http://127.0.0.1:9/hook',
  https: 'https://127.0.0.1:9/hook',
} as const;
const classOf = (protocol: string) => (protocol.startsWith('email') ? 'email' : (protocol as keyof typeof ENDPOINT_BY_CLASS));

const protocolText = (protocol: string) => fc.mixedCase(fc.constant(protocol)).chain((cased) => jsonStringText(cased));

const validDelivery = fc
  .constantFrom(...VALID_DELIVERIES)
  .chain(([protocol, endpoint]) =>
    fc.tuple(protocolText(protocol), jsonStringText(endpoint)).map(([protocolRaw, endpointRaw]): Part => ({
      entries: [
        ['endpoint', endpointRaw],
        ['protocol', protocolRaw],
      ],
      verdict: 'ok',
      blame: [],
      expected: { protocol, endpoint },
      why: `protocol=${preview(protocolRaw)} endpoint=${preview(endpointRaw)}`,
    })),
  );

const delivery = (protocolRaw: string, endpointRaw: string, verdict: Verdict, blame: string[], why: string, expected: Record<string, unknown> = {}): Part => ({
  entries: ([['endpoint', endpointRaw], ['protocol', protocolRaw]] as const).filter(([, raw]) => raw !== ''),
  verdict,
  blame,
  expected,
  why: `${why}: protocol=${preview(protocolRaw)} endpoint=${preview(endpointRaw)}`,
});

const UNKNOWN_PROTOCOLS = ['smtp', 'sms', 'application', 'firehose', 'HTTPS ', ' https', 'http s', 'https\u0000', 'e-mail', 'email_json', 'SQS:', 'https://', ''];

const badDelivery: fc.Arbitrary<Part> = fc.oneof(
  // the protocol is not one of the six
  fc
    .tuple(fc.oneof(fc.constantFrom(...UNKNOWN_PROTOCOLS), hostileString.filter((text) => !(PROTOCOLS as readonly string[]).includes(text.toLowerCase()))), fc.constantFrom(...Object.values(ENDPOINT_BY_CLASS)))
    .map(([protocol, endpoint]) => delivery(json(protocol), json(endpoint), 'bad', ['protocol', 'endpoint'], 'unknown protocol')),
  fc.tuple(notAStringText, fc.constantFrom(...Object.values(ENDPOINT_BY_CLASS))).map(([raw, endpoint]) => delivery(raw, json(endpoint), 'bad', ['protocol', 'endpoint'], 'protocol not a string')),
  fc.constantFrom(...VALID_DELIVERIES).map(([, endpoint]) => delivery('', json(endpoint), 'bad', ['protocol', 'endpoint'], 'no protocol')),
  // the endpoint is not a string, missing, or fits no protocol
  fc.tuple(fc.constantFrom(...PROTOCOLS), notAStringText).map(([protocol, raw]) => delivery(json(protocol), raw, 'bad', ['endpoint'], 'endpoint not a string')),
  fc.constantFrom(...PROTOCOLS).map((protocol) => delivery(json(protocol), '', 'bad', ['endpoint'], 'no endpoint')),
  fc
    .tuple(fc.constantFrom(...PROTOCOLS), hostileString)
    .map(([protocol, text]) => delivery(json(protocol), json(`x${text.replaceAll('@', '')}`), 'bad', ['endpoint'], 'endpoint fits no protocol')),
  // an endpoint of another kind of protocol
  fc
    .tuple(fc.constantFrom(...PROTOCOLS), fc.constantFrom(...(Object.keys(ENDPOINT_BY_CLASS) as (keyof typeof ENDPOINT_BY_CLASS)[])))
    .filter(([protocol, endpointClass]) => classOf(protocol) !== endpointClass)
    .map(([protocol, endpointClass]) => delivery(json(protocol), json(ENDPOINT_BY_CLASS[endpointClass]), 'bad', ['endpoint'], 'endpoint of another protocol')),
  fc.constantFrom(
    delivery(json('https'), json(`https://127.0.0.1:9/${'a'.repeat(2048)}`), 'bad', ['endpoint'], 'URL over 2048 characters'),
    delivery(json('https'), json('https://'), 'bad', ['endpoint'], 'URL without host'),
    delivery(json('http'), json('http://'), 'bad', ['endpoint'], 'URL without host'),
    delivery(json('email'), json(`${'a'.repeat(250)}@example.com`), 'bad', ['endpoint'], 'address over 254 characters'),
    delivery(json('email'), json('ops@example'), 'bad', ['endpoint'], 'address without a dot in the domain'),
    // SNS standard topics cannot deliver to FIFO queues (docs/api.md: FIFO queues are not supported).
    delivery(json('sqs'), json('arn:aws:sqs:eu-west-1:123456789012:orders.fifo'), 'bad', ['endpoint'], 'FIFO queue'),
    delivery(json('lambda'), json('arn:aws:lambda:US-EAST-1:123456789012:function:x'), 'bad', ['endpoint'], 'ARN with a bad region'),
    delivery(json('sqs'), json('arn:aws:sqs:us-east-1:12345678901:queue'), 'bad', ['endpoint'], 'ARN with an 11-digit account'),
    delivery(json('sqs'), json('arn:aws:sqs:us-east-1:123456789012:queue/../x'), 'bad', ['endpoint'], 'ARN with a path'),
  ),
);

/** Text to put inside an otherwise valid endpoint: lone surrogates and controls often. */
const endpointText = fc.oneof(
  fc.tuple(fc.constantFrom(...LONE_SURROGATES), fc.constantFrom('', 'ops', 'a.b')).map(([surrogate, text]) => `${text}${surrogate}`),
  fc.tuple(fc.constantFrom(...CONTROL_CHARACTERS), fc.constantFrom('', 'ops', 'a.b')).map(([control, text]) => `${text}${control}x`),
  fc.constantFrom(...UNICODE_TEXTS),
  hostileString,
);

/** Valid-looking deliveries with hostile text inside: the service may take or refuse them. */
const maybeDelivery: fc.Arbitrary<Part> = fc.oneof(
  fc
    .tuple(fc.constantFrom('email', 'email-json'), endpointText, fc.constantFrom('example.com', 'ex😀mple.com', 'example.com\u202e'))
    .map(([protocol, local, domain]) => delivery(json(protocol), json(`${local}@${domain}`), 'maybe', ['endpoint'], 'hostile address', { protocol, endpoint: `${local}@${domain}` })),
  fc
    .tuple(fc.constantFrom('http', 'https'), endpointText)
    .map(([protocol, text]) => [protocol, `${protocol}://127.0.0.1:9/${text}`] as const)
    .map(([protocol, endpoint]) => delivery(json(protocol), json(endpoint), 'maybe', ['endpoint'], 'hostile URL', { protocol, endpoint })),
  // case tricks: fullwidth letters, dotted capital I, long s
  fc
    .constantFrom('ＥＭＡＩＬ', 'EMAİL', 'emaıl', 'ſqs', 'email\u200b', 'e\u0301mail')
    .map((protocol) => delivery(json(protocol), json('ops@example.com'), 'maybe', ['protocol', 'endpoint'], 'Unicode case trick', { protocol: protocol.toLowerCase(), endpoint: 'ops@example.com' })),
);

const deliveryParts: FieldParts = { ok: validDelivery, maybe: maybeDelivery, bad: badDelivery };

// --- config_id / configId (update, activate, rename) -----------------------------------------

/** Strings that look like `id` and are not a UUID. */
function brokenIds(id: string): fc.Arbitrary<string> {
  return fc.constantFrom(
    `${id} `,
    ` ${id}`,
    `${id}\u0000`,
    `${id}x`,
    `${id}/`,
    `${id}/..`,
    id.slice(0, 35),
    id.slice(1),
    id.replaceAll('-', ''),
    id.replaceAll('-', '\u2010'),
    id.replaceAll('-', '_'),
    id.replaceAll('-', '%2D'),
    `{${id}}`,
    `urn:uuid:${id}`,
    id.replace(/[0-9]/, (digit) => String.fromCharCode(0xff10 + Number(digit))),
    id.replace(/[0-9a-f]/, 'g'),
    `${id}${id}`,
    `${id}\n`,
  );
}

function addressingParts(ids: GeneratorIds): FieldParts {
  const scratch = ids.scratch!;
  const sameId = fc.oneof(fc.constant(scratch), fc.constant(scratch.toUpperCase()), fc.mixedCase(fc.constant(scratch)));
  const text = (id: string) => jsonStringText(id);
  const notFound = fc.oneof(fc.constantFrom(...ids.foreign, '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'), fc.uuid(), fc.uuid({ version: 7 }));
  const notAUuid = fc.oneof(
    brokenIds(scratch),
    ids.seeds.length > 0 ? fc.constantFrom(...ids.seeds).chain(brokenIds) : brokenIds(scratch),
    hostileString.filter((value) => !UUID.test(value)),
  );
  const key = fc.constantFrom('config_id', 'configId');
  const entry = (k: string, raw: string): Entry => [k, raw];

  const ok = fc.oneof(
    fc.tuple(key, sameId).chain(([k, id]) => text(id).map((raw): Part => ({ entries: [entry(k, raw)], verdict: 'ok', blame: [], expected: { configId: scratch }, why: `${k}=${preview(raw)}` }))),
    fc.tuple(sameId, sameId).chain(([a, b]) =>
      fc.tuple(text(a), text(b)).map(([rawA, rawB]): Part => ({
        entries: [entry('config_id', rawA), entry('configId', rawB)],
        verdict: 'ok',
        blame: [],
        expected: { configId: scratch },
        why: `config_id=${preview(rawA)} configId=${preview(rawB)}`,
      })),
    ),
  );
  const bad = fc.oneof(
    fc.constant<Part>({ entries: [], verdict: 'bad', blame: ['config_id'], expected: {}, why: 'no config_id' }),
    fc.tuple(key, notAStringText).map(([k, raw]): Part => ({ entries: [entry(k, raw)], verdict: 'bad', blame: [k], expected: {}, why: `${k}=${preview(raw)} (not a string)` })),
    fc.tuple(key, notAUuid).map(([k, value]): Part => ({ entries: [entry(k, json(value))], verdict: 'bad', blame: [k], expected: {}, why: `${k}=${preview(json(value))} (not a UUID)` })),
    // valid under one key, not under the other
    fc.tuple(sameId, notAUuid, fc.boolean()).map(([id, value, aliasBad]): Part => ({
      entries: aliasBad ? [entry('config_id', json(id)), entry('configId', json(value))] : [entry('config_id', json(value)), entry('configId', json(id))],
      verdict: 'bad',
      blame: [aliasBad ? 'configId' : 'config_id'],
      expected: {},
      why: `${aliasBad ? 'configId' : 'config_id'}=${preview(json(value))} (not a UUID) beside a valid one`,
    })),
    // two valid UUIDs that differ
    fc.tuple(sameId, notFound).map(([id, other]): Part => ({
      entries: [entry('config_id', json(id)), entry('configId', json(other))],
      verdict: 'bad',
      blame: ['config_id', 'configId'],
      expected: {},
      why: `config_id and configId differ (${other})`,
    })),
    // a UUID this portal does not have: another portal's, or none at all
    fc.tuple(key, notFound).chain(([k, id]) =>
      text(id).map((raw): Part => ({ entries: [entry(k, raw)], verdict: 'bad', blame: ['SUBSCRIPTION_NOT_FOUND'], expected: {}, why: `${k}=${preview(raw)} (not this portal's)` })),
    ),
  );
  return { ok, bad };
}

// --- status (activate) ------------------------------------------------------------------------

const validStatus: fc.Arbitrary<Valid> = fc.constantFrom<Valid>(['0', 0], ['1', 1]);
const maybeStatus: fc.Arbitrary<Valid> = fc
  .constantFrom('-0', '1.0', '1e0', '0.0', '1e-400', '10e-1', '0.99999999999999999', '1.00000000000000001', '0E+5')
  .map((raw): Valid => [raw, Number(JSON.parse(raw)) + 0]);
const invalidStatus: fc.Arbitrary<Invalid> = fc.oneof(
  fc.constantFrom<Invalid>(
    ['"1"', 'a string'],
    ['"0"', 'a string'],
    ['"true"', 'a string'],
    ['true', 'a boolean'],
    ['false', 'a boolean'],
    ['null', 'null'],
    ['[1]', 'an array'],
    ['[0]', 'an array'],
    ['{}', 'an object'],
    ['{"valueOf":1}', 'an object'],
    ['2', 'out of range'],
    ['-1', 'out of range'],
    ['0.5', 'not 0 or 1'],
    ['1e400', 'Infinity'],
    ['-1e400', '-Infinity'],
    ['9007199254740993', 'out of range'],
  ),
  fc.integer().filter((value) => value !== 0 && value !== 1).map((value): Invalid => [json(value), 'out of range']),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => value !== 0 && value !== 1).map((value): Invalid => [json(value), 'not 0 or 1']),
  hostileString.map((text): Invalid => [json(text), 'a string']),
  deepJson.map((raw): Invalid => [raw, 'nested']),
);
const statusParts = fieldParts('status', validStatus, invalidStatus, maybeStatus);

// ---------------------------------------------------------------------------------------------
// Whole bodies
// ---------------------------------------------------------------------------------------------

interface BodyPlan {
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
function objectBodies(fields: readonly FieldParts[], reservedKeys: readonly string[], weights: { ok: number; maybe: number; bad: number }): fc.Arbitrary<BodyPlan> {
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
function nonObjectBodies(validBody: fc.Arbitrary<BodyPlan>): fc.Arbitrary<BodyPlan> {
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
const ignoredBodies: fc.Arbitrary<BodyPlan | undefined> = fc.oneof(
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

interface ContentType {
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

const contentTypes: fc.Arbitrary<ContentType> = fc.oneof(
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
const sizes: fc.Arbitrary<number | undefined> = fc.oneof(
  { weight: 880, arbitrary: fc.constant(undefined) },
  { weight: 30, arbitrary: fc.constantFrom(MAX_BODY_BYTES - 1, MAX_BODY_BYTES, MAX_BODY_BYTES + 1) },
  { weight: 60, arbitrary: fc.integer({ min: MAX_BODY_BYTES + 1, max: 300_000 }) },
  { weight: 25, arbitrary: fc.integer({ min: 1_000_001, max: 2_500_000 }) },
  { weight: 5, arbitrary: fc.integer({ min: GATEWAY_MAX_BYTES + 1, max: GATEWAY_MAX_BYTES + 300_000 }) },
);

/** Chunked transfer encoding for about one body in six. */
const chunkedOrNot = fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

const queries: fc.Arbitrary<string> = fc.oneof(
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
function bodyBytes(plan: BodyPlan, contentType: ContentType, size: number | undefined): Buffer {
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

function lengthOf(plan: BodyPlan, contentType: ContentType, size: number | undefined): number {
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
function routesTo(path: string, subPath: string): boolean {
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

function pathsOf(subPath: string): fc.Arbitrary<PathChoice> {
  return fc.oneof(
    { weight: 46, arbitrary: fc.constantFrom(...API_PREFIXES).map((prefix): PathChoice => ({ path: prefix + subPath, route: true })) },
    // Mostly no route; a percent-encoded letter of the path is the route, decoded.
    { weight: 4, arbitrary: mangledPaths(subPath).map((path): PathChoice => ({ path, route: routesTo(path, subPath) })) },
  );
}

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

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
const idempotencyKeys: fc.Arbitrary<KeyHeader> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<KeyHeader>({ value: undefined, verdict: 'ok' }) },
  { weight: 3, arbitrary: printableAscii.map((text): KeyHeader => ({ value: text, verdict: 'ok', unique: true })) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_KEYS).map((value): KeyHeader => ({ value, verdict: 'bad' })) },
);

/** For the operations that do not read the header: any value is ignored. */
const ignoredKeys: fc.Arbitrary<KeyHeader> = idempotencyKeys.map((key) => ({ ...key, verdict: 'ok' }));

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
function bodyRequests(
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

export function createRequests(): fc.Arbitrary<HostileRequest> {
  const fields = [nameParts, deliveryParts, eventsParts];
  const objects = objectBodies(fields, ['name', 'endpoint', 'protocol', 'events'], { ok: 12, maybe: 10, bad: 40 });
  const valid = objectBodies(fields, ['name', 'endpoint', 'protocol', 'events'], { ok: 1, maybe: 0, bad: 0 });
  const bodies = fc.oneof({ weight: 4, arbitrary: objects }, { weight: 1, arbitrary: nonObjectBodies(valid) });
  return bodyRequests('create', 'POST', '', bodies, idempotencyKeys);
}

function changeRequests(operation: 'update' | 'activate' | 'rename', subPath: string, field: FieldParts, fieldKey: string, ids: GeneratorIds) {
  const fields = [addressingParts(ids), field];
  const reserved = ['config_id', 'configId', fieldKey];
  const objects = objectBodies(fields, reserved, { ok: 8, maybe: 4, bad: 40 });
  const valid = objectBodies(fields, reserved, { ok: 1, maybe: 0, bad: 0 });
  const bodies = fc.oneof({ weight: 4, arbitrary: objects }, { weight: 1, arbitrary: nonObjectBodies(valid) });
  return bodyRequests(operation, 'PUT', subPath, bodies, ignoredKeys);
}

export const updateRequests = (ids: GeneratorIds) => changeRequests('update', '', eventsParts, 'events', ids);
export const activateRequests = (ids: GeneratorIds) => changeRequests('activate', '/activate', statusParts, 'status', ids);
export const renameRequests = (ids: GeneratorIds) => changeRequests('rename', '/rename', nameParts, 'name', ids);

/** Requests of an operation that ignores any body: the content type and size do not matter, up to API Gateway's limit. */
function ignoredBodyRequests(
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

// --- list ---------------------------------------------------------------------------------------

export function listRequests(): fc.Arbitrary<HostileRequest> {
  const paths = pathsOf('/list').map((choice) => ({ path: () => choice.path, why: choice.path }));
  return ignoredBodyRequests('list', 'GET', paths, (fullPath) => {
    const routed = routesTo(fullPath.split('?', 1)[0]!, '/list');
    return { path: fullPath, outcome: routed ? 'accept' : 'no-route', blame: [] };
  });
}

// --- delete -------------------------------------------------------------------------------------

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

