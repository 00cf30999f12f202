/**
 * Request bodies generated from a JSON Schema, as the OpenAPI document gives it: values of every
 * field drawn from its own keywords (strings from its patterns, enums, list sizes within their
 * bounds, each `if`/`then` branch's form with its condition), and about as often values that
 * break them (a missing field, another type, a forbidden character put in, whitespace around,
 * lengths and sizes just past a bound, a branch's form under another branch's condition).
 * Whether a body is valid is for the schema to say, not for this generator: it only aims at both
 * sides of every rule.
 *
 * Covers the subset the request schemas use (shared/contract/schemas.ts): objects with
 * `properties`, `required` and `allOf` of `if`/`then`; strings with `pattern`, `maxLength`,
 * `enum`, `const` and `not`; arrays with `items`, `minItems`, `maxItems`; integer enums; `$ref`
 * to a component of the document; objects of free form (a filter, an event's data), drawn from
 * the schema's `examples` and from a few objects of another shape.
 */
import fc from 'fast-check';

/* eslint-disable @typescript-eslint/no-explicit-any -- JSON Schema is plain JSON */
type Schema = Record<string, any>;

const WRONG_TYPES = fc.constantFrom<unknown>(null, 0, 7, -1.5, true, false, [], ['x'], {}, { a: 1 });
const SPACES = fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\ufeff', '\u2028');
/** Characters the request schemas single out: controls, lone surrogates, astral and combining characters. */
const ODD_CHARACTERS = fc.constantFrom('\u0000', '\u0007', '\u001f', '\u007f', '\u0085', '\u009f', '\t', '\n', '\ud800', '\udfff', '😀', '\u0301', '\u202e', '@', '.', ' ', '/', '%', ':');
/** The longest patterns (a URL's path) reach any length: a bounded sample keeps runs fast. */
const SAMPLE_LENGTH = 300;

/** Resolves a `$ref` of the document (`#/components/schemas/X`). */
function resolved(schema: Schema, document: Schema): Schema {
  if (typeof schema.$ref !== 'string') return schema;
  const path = schema.$ref.replace(/^#\//, '').split('/');
  return resolved(path.reduce((node: Schema, key: string) => node[key], document), document);
}

/** Every schema a value must meet: these, and their `allOf` parts. */
function flattened(schemas: readonly Schema[], document: Schema): Schema[] {
  return schemas.flatMap((schema) => {
    const own = resolved(schema, document);
    return [own, ...flattened((own.allOf as Schema[] | undefined) ?? [], document)];
  });
}

function insertAt(text: string, insert: string, position: number): string {
  const characters = [...text];
  const at = Math.min(position, characters.length);
  return [...characters.slice(0, at), insert, ...characters.slice(at)].join('');
}

function stringArbitraries(all: readonly Schema[]): { meeting: fc.Arbitrary<unknown>; breaking: fc.Arbitrary<unknown> } {
  const enums = all.flatMap((part) => (Array.isArray(part.enum) ? part.enum : part.const !== undefined ? [part.const] : [])) as string[];
  const patterns = all.flatMap((part) => (typeof part.pattern === 'string' ? [new RegExp(part.pattern, 'u')] : []));
  const forbidden = all.flatMap((part) => (typeof part.not?.pattern === 'string' ? [new RegExp(part.not.pattern, 'u')] : []));
  const maxLength = Math.min(...all.map((part) => part.maxLength ?? Infinity));
  const meets = (text: string) => patterns.every((pattern) => pattern.test(text)) && !forbidden.some((pattern) => pattern.test(text)) && [...text].length <= maxLength;
  // Drawn from one pattern, kept when it meets the others too (most do).
  const meeting =
    enums.length > 0
      ? fc.constantFrom(...enums)
      : patterns.length > 0
        ? fc.oneof(...patterns.map((pattern) => fc.stringMatching(pattern, { maxLength: SAMPLE_LENGTH }).filter(meets)))
        : fc.string({ maxLength: 20 });
  const breaking = fc.oneof(
    fc.string({ maxLength: 20 }),
    ...(enums.length > 0 ? [fc.mixedCase(fc.constantFrom(...enums))] : []),
    ...forbidden.map((pattern) => fc.stringMatching(pattern, { maxLength: 100 })),
    // A forbidden or unusual character put in.
    fc.tuple(meeting, ODD_CHARACTERS, fc.nat(SAMPLE_LENGTH)).map(([text, odd, at]) => insertAt(String(text), odd, at)),
    // Whitespace around it, or only whitespace.
    fc.tuple(SPACES, meeting, SPACES).map(([before, text, after]) => before + String(text) + after),
    fc.array(SPACES, { maxLength: 3 }).map((spaces) => spaces.join('')),
    // Lengths at and just past the bound, in characters of one and of two code units.
    fc
      .tuple(meeting, fc.constantFrom('x', 'é', '😀'), fc.integer({ min: 0, max: 1 }), fc.constant(Number.isFinite(maxLength) ? maxLength : 255))
      .map(([text, filler, over, bound]) => {
        const length = [...String(text)].length;
        return length >= bound + over ? text : String(text) + filler.repeat(bound + over - length);
      }),
  );
  return { meeting, breaking };
}

function arrayArbitraries(all: readonly Schema[], document: Schema): { meeting: fc.Arbitrary<unknown>; breaking: fc.Arbitrary<unknown> } {
  const schema = all.find((part) => part.items !== undefined) ?? {};
  const items = valueArbitraries([schema.items ?? {}], document);
  const min: number = Math.max(...all.map((part) => part.minItems ?? 0));
  const max: number = Math.min(...all.map((part) => part.maxItems ?? min + 10));
  const sized = (length: number, item: fc.Arbitrary<unknown>) => fc.array(item, { minLength: length, maxLength: length });
  return {
    meeting: fc.oneof(fc.integer({ min, max: Math.min(max, min + 8) }), fc.constantFrom(min, max)).chain((length) => sized(length, items.meeting)),
    breaking: fc.oneof(
      fc.constantFrom(...new Set([Math.max(0, min - 1), max + 1])).chain((length) => sized(length, items.meeting)),
      fc.integer({ min: Math.max(1, min), max: Math.min(max, min + 5) }).chain((length) => sized(length, fc.oneof({ arbitrary: items.meeting, weight: 3 }, { arbitrary: items.breaking, weight: 1 }))),
    ),
  };
}

/** Values that meet all of these schemas, and values that break one of their rules. */
export function valueArbitraries(schemas: readonly Schema[], document: Schema): { meeting: fc.Arbitrary<unknown>; breaking: fc.Arbitrary<unknown> } {
  const all = flattened(schemas, document);
  // A type list such as ['integer', 'null'] is its first type, with null meeting it too.
  const typed = all.find((part) => part.type !== undefined)?.type as string | string[] | undefined;
  const nullable = Array.isArray(typed) && typed.includes('null');
  const type = Array.isArray(typed) ? typed.find((name) => name !== 'null') : typed;
  let own: { meeting: fc.Arbitrary<unknown>; breaking: fc.Arbitrary<unknown> };
  switch (type) {
    case 'string':
      own = stringArbitraries(all);
      break;
    case 'array':
      own = arrayArbitraries(all, document);
      break;
    case 'integer':
    case 'number': {
      const values = all.flatMap((part) => part.enum ?? []);
      const minimum = all.find((part) => typeof part.minimum === 'number')?.minimum as number | undefined;
      const maximum = all.find((part) => typeof part.maximum === 'number')?.maximum as number | undefined;
      const low = minimum ?? 0;
      const high = maximum ?? low + 1_000;
      const inRange = fc.oneof(fc.integer({ min: low, max: Math.min(high, low + 1_000) }), fc.constantFrom(low, high));
      const outOfRange = [...(minimum !== undefined ? [minimum - 1] : []), ...(maximum !== undefined ? [maximum + 1] : [])];
      own = {
        meeting: values.length > 0 ? fc.constantFrom(...values) : inRange,
        breaking: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constantFrom(1.5, '1', '0', ...outOfRange)),
      };
      break;
    }
    case 'object': {
      const examples = all.flatMap((part) => (Array.isArray(part.examples) ? part.examples : [])) as unknown[];
      own = {
        meeting: examples.length > 0 ? fc.constantFrom(...examples) : fc.constant({}),
        breaking: fc.constantFrom<unknown>({ a: 1 }, { a: [] }, { a: [{ regex: 'x' }] }, { a: 'x' }, 'x', [{}]),
      };
      break;
    }
    default:
      own = { meeting: fc.oneof(fc.string(), fc.integer()), breaking: fc.oneof(fc.string(), fc.integer()) };
  }
  const meeting = nullable ? fc.oneof({ arbitrary: own.meeting, weight: 3 }, { arbitrary: fc.constant(null), weight: 1 }) : own.meeting;
  return { meeting, breaking: fc.oneof({ arbitrary: own.breaking, weight: 4 }, { arbitrary: WRONG_TYPES, weight: 1 }) };
}

/** Mostly values that meet the schemas, now and then one that breaks them. */
const mostlyMeeting = ({ meeting, breaking }: { meeting: fc.Arbitrary<unknown>; breaking: fc.Arbitrary<unknown> }) =>
  fc.oneof({ arbitrary: meeting, weight: 5 }, { arbitrary: breaking, weight: 1 });

/** `if: {properties: {P: {const}}}, then: {properties: {Q: S}}`: with P's value, Q must meet S too. */
interface Branch {
  readonly when: string;
  readonly value: unknown;
  readonly field: string;
  readonly form: fc.Arbitrary<unknown>;
}

function branchesOf(schema: Schema, document: Schema): Branch[] {
  return ((schema.allOf as Schema[] | undefined) ?? []).flatMap((part) => {
    const condition = Object.entries((part.if?.properties ?? {}) as Record<string, Schema>).find(([, rule]) => rule.const !== undefined);
    const consequence = Object.entries((part.then?.properties ?? {}) as Record<string, Schema>);
    if (!condition || consequence.length !== 1) return [];
    const [when, { const: value }] = condition;
    const [field, branchSchema] = consequence[0]!;
    const form = mostlyMeeting(valueArbitraries([schema.properties?.[field] ?? {}, branchSchema], document));
    return [{ when, value, field, form }];
  });
}

/**
 * Bodies for an object schema: each property present or not, and its value; for properties tied
 * by a branch, mostly a branch's condition with that branch's form (sometimes another's); for
 * properties with the same schema (aliases), sometimes the same value; sometimes a field the
 * schema does not know.
 */
export function objectArbitrary(schema: Schema, document: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const required = new Set<string>(schema.required ?? []);
  // Required only when another field is absent (an `if`/`then` of `allOf`): mostly present too.
  const mostlyRequired = new Set<string>(
    ((schema.allOf ?? []) as Schema[]).flatMap((branch) => ((branch.then as Schema | undefined)?.required as string[] | undefined) ?? []),
  );
  const record = fc.record(
    Object.fromEntries(
      properties.map(([name, property]) => [
        name,
        fc.option(mostlyMeeting(valueArbitraries([property], document)), { freq: required.has(name) || mostlyRequired.has(name) ? 12 : 2, nil: undefined }),
      ]),
    ),
  );
  const branches = branchesOf(schema, document);
  const branchChoice =
    branches.length === 0
      ? fc.constant(undefined)
      : fc.option(
          fc.tuple(fc.nat(branches.length - 1), fc.nat(branches.length - 1), fc.nat(5)).chain(([conditionIndex, otherIndex, sameUnlessZero]) => {
            const condition = branches[conditionIndex]!;
            const form = branches[sameUnlessZero === 0 ? otherIndex : conditionIndex]!;
            const value = fc.oneof({ arbitrary: fc.constant(condition.value), weight: 4 }, { arbitrary: fc.mixedCase(fc.constant(String(condition.value))), weight: 1 });
            return fc.tuple(value, form.form).map(([whenValue, formValue]) => ({ [condition.when]: whenValue, [form.field]: formValue }));
          }),
          { freq: 8, nil: undefined },
        );
  const twins = properties.flatMap(([name, property], index) =>
    properties.slice(index + 1).filter(([, other]) => JSON.stringify(other) === JSON.stringify(property)).map(([other]) => [name, other] as const),
  );
  const twinChoice = twins.length === 0 ? fc.constant(undefined) : fc.option(fc.tuple(fc.constantFrom(...twins), fc.boolean()), { freq: 2 });
  const extra = fc.option(fc.tuple(fc.constantFrom('other', 'pad', 'Name', 'config-id'), fc.jsonValue({ maxDepth: 1 })), { freq: 4 });
  return fc.tuple(record, branchChoice, twinChoice, extra).map(([values, branch, twin, unknown]) => {
    const body: Record<string, unknown> = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
    if (unknown) body[unknown[0]] = unknown[1];
    if (branch) {
      for (const [field, value] of Object.entries(branch)) if (field in body || required.has(field)) body[field] = value;
    }
    if (twin) {
      const [[first, second], sameCase] = twin;
      if (typeof body[first] === 'string') body[second] = sameCase ? body[first] : (body[first] as string).toUpperCase();
    }
    return body;
  });
}
