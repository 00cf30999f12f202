/**
 * Body parts of the generated requests (requests.ts), one field each: name, events, and create's
 * protocol with its endpoint; each valid, surely invalid ("bad") or of uncertain validity ("maybe").
 */
import fc from 'fast-check';
import { PROTOCOLS, type Verdict } from './hostile-request';
import { CONTROL_CHARACTERS, deepJson, EVENT_KINDS, hostileString, json, jsonStringText, LONE_SURROGATES, notAStringText, TRICKY_TEXTS, TRIMMED_WHITESPACE, UNICODE_TEXTS } from './values';

export type Entry = readonly [key: string, raw: string];

export interface Part {
  readonly entries: readonly Entry[];
  readonly verdict: Verdict;
  readonly blame: readonly string[];
  readonly expected: Readonly<Record<string, unknown>>;
  readonly why: string;
}

export interface FieldParts {
  readonly ok: fc.Arbitrary<Part>;
  readonly maybe?: fc.Arbitrary<Part>;
  readonly bad: fc.Arbitrary<Part>;
}

export function preview(text: string, max = 48): string {
  const shown = JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
  return text.length > max ? `${shown}(${text.length} chars)` : shown;
}

/** A valid value: [raw JSON text, the value the service must store]. */
export type Valid = readonly [raw: string, value: unknown];
/** A surely invalid value: [raw JSON text, what is wrong]. */
export type Invalid = readonly [raw: string, why: string];

export function fieldParts(key: string, valid: fc.Arbitrary<Valid>, invalid: fc.Arbitrary<Invalid>, maybe?: fc.Arbitrary<Valid>): FieldParts {
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

export const nameParts = fieldParts('name', validName, invalidName, maybeName);

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

export const eventsParts = fieldParts('events', validEvents, invalidEvents);

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

export const deliveryParts: FieldParts = { ok: validDelivery, maybe: maybeDelivery, bad: badDelivery };
