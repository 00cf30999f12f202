/**
 * Reads a request body with its compiled validator (generated/, from schemas.ts) and turns every
 * failure the validator found into a problem a person can act on: the field it concerns
 * (`events[0]`) and a sentence that starts with it, from the schema's `x-error`. Problems are
 * reported in the order of the body's fields, then those of the checks across fields (an
 * endpoint that does not suit its protocol, say), which are left out for a field already refused
 * on its own. Checks the schema cannot express run after it (request-bodies.ts).
 *
 * Kept apart from the schemas and from ajv: a function's bundle carries this, its own compiled
 * validator, and nothing that compiles schemas.
 */
import type { FieldProblem } from './invalid-request';

/** One failure as ajv's standalone validators report it (`messages: false`). */
export interface SchemaFailure {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** A generated module: a body's compiled validator and what its refusals say. */
export interface CompiledBodySchema {
  readonly validate: ((body: unknown) => boolean) & { errors?: readonly SchemaFailure[] | null };
  /** The body's fields, in the order their problems are reported. */
  readonly fields: readonly string[];
  /** The end of a refusal's sentence, by the path of the failing keyword or of a subschema around it. */
  readonly refusals: Readonly<Record<string, string>>;
}

/** A problem the schema cannot find, found by a check that runs after it. */
export interface FoundProblem {
  /** The body field, as the answer names it. */
  readonly field: string;
  /** What follows the field's name: "holds an unknown event kind ...". */
  readonly problem: string;
}

export interface BodyCheck<Input> {
  /** The fields it reads: it runs only when the schema refused none of them. */
  readonly reads: readonly string[];
  /** `field`: reported with its field's own problems; `across`: after every field's. */
  readonly reported: 'field' | 'across';
  check(body: Input): FoundProblem | undefined;
}

export interface BodySpec<Input, T> {
  /** What the service accepts beyond the schema, made what the schema takes (lower-case `protocol`). */
  readonly prepare?: (body: Record<string, unknown>) => Record<string, unknown>;
  readonly checks?: readonly BodyCheck<Input>[];
  /** What the operation receives: the normalized value, unknown fields dropped. */
  readonly output: (body: Input) => T;
}

export type BodyReading<T> = { value: T; problems?: undefined } | { problems: FieldProblem[] };

export interface BodyReader<T> {
  /** The body's normalized value, or every problem with it. */
  read(body: unknown): BodyReading<T>;
}

/** What an operation receives from a body reader. */
export type BodyOf<Reader> = Reader extends BodyReader<infer T> ? T : never;

interface Ranked extends FieldProblem {
  /** The top-level field the problem is about ('' for the body itself). */
  readonly top: string;
  readonly across: boolean;
}

const unescapePointer = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

/** `events[0]`, `name`: a place in the body as a person would write it. */
function fieldOf(path: readonly string[]): string {
  return path.map((key, index) => (index > 0 && /^\d+$/.test(key) ? `[${key}]` : `${index === 0 ? '' : '.'}${key}`)).join('');
}

/** The sentence of the nearest `x-error` at or around the failing keyword. */
function refusalAt(refusals: Readonly<Record<string, string>>, schemaPath: string): string {
  for (let at = schemaPath; at.includes('/'); at = at.slice(0, at.lastIndexOf('/'))) {
    const sentence = refusals[at];
    if (sentence !== undefined) return sentence;
  }
  // write-validators.ts refuses to generate a validator with a keyword left without a sentence.
  return 'is invalid.';
}

function rankedOf(schema: CompiledBodySchema, failure: SchemaFailure): Ranked | undefined {
  // A failing `if` only says that its `then` failed; the `then`'s own failures say why.
  if (failure.keyword === 'if') return undefined;
  const path = failure.instancePath.split('/').slice(1).map(unescapePointer);
  if (failure.keyword === 'required') path.push(String(failure.params.missingProperty));
  const sentence = failure.keyword === 'required' ? 'is required.' : refusalAt(schema.refusals, failure.schemaPath);
  const field = fieldOf(path);
  // The body's own fields are under `properties` (and `required`); the checks across them in `allOf`.
  return { field, message: field ? `${field} ${sentence}` : sentence, top: path[0] ?? '', across: failure.schemaPath.startsWith('#/allOf/') };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The reader of one operation's body. */
export function bodyReader<Input, T>(schema: CompiledBodySchema, spec: BodySpec<Input, T>): BodyReader<T> {
  const rank = (problem: Ranked) => {
    const index = schema.fields.indexOf(problem.top);
    return (problem.across ? schema.fields.length + 1 : 0) + (index === -1 ? schema.fields.length : index);
  };
  return {
    read(body) {
      if (!isObject(body)) return { problems: [{ field: '', message: 'The request body must be a JSON object.' }] };
      const input = spec.prepare ? spec.prepare(body) : body;
      const found: Ranked[] = [];
      if (!schema.validate(input)) {
        for (const failure of schema.validate.errors ?? []) {
          const ranked = rankedOf(schema, failure);
          if (ranked) found.push(ranked);
        }
      }
      const refused = new Set(found.filter((problem) => !problem.across).map((problem) => problem.top));
      for (const { reads, reported, check } of spec.checks ?? []) {
        if (reads.some((field) => refused.has(field))) continue;
        const problem = check(input as Input);
        if (problem) {
          const top = problem.field.split(/[.[]/, 1)[0]!;
          found.push({ field: problem.field, message: `${problem.field} ${problem.problem}`, top, across: reported === 'across' });
        }
      }
      // A check across fields says nothing new of a field already refused on its own.
      const kept = found.filter((problem) => !problem.across || !refused.has(problem.top));
      if (kept.length === 0) return { value: spec.output(input as Input) };
      const seen = new Set<string>();
      const problems = kept
        .map((problem, order) => ({ problem, order }))
        .sort((a, b) => rank(a.problem) - rank(b.problem) || a.order - b.order)
        .flatMap(({ problem: { field, message } }) => {
          const key = `${field}\n${message}`;
          if (seen.has(key)) return [];
          seen.add(key);
          return [{ field, message }];
        });
      return { problems };
    },
  };
}
