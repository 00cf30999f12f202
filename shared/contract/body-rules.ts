/**
 * Rules for a JSON object body: each field's rule reads its value (checking and normalizing
 * it) and carries the JSON Schema the OpenAPI document shows for it (openapi-document.ts), so
 * the document and the validator are written in one place.
 *
 * Plain functions and object literals rather than a schema library: zod builds each schema at
 * module load, about 9 ms of every cold start of the functions that take a body, more than
 * what the rules themselves cost at run time (docs/performance.md).
 */
import type { FieldProblem } from './invalid-request';

export type JsonSchema = Record<string, unknown>;

/** Where in the body a problem is: `['events', 0]` is `events[0]`. */
export type Path = readonly (string | number)[];
export interface Issue {
  path: Path;
  /** What follows the field's name: "is required.", "must be a string.". */
  message: string;
}

/** A field's normalized value, or what is wrong with it. */
export type Reading<T> = { value: T; issues?: undefined } | { issues: Issue[] };

export interface FieldRule<T> {
  /** The field as the OpenAPI document describes it (what a client may send). */
  readonly jsonSchema: JsonSchema;
  /** An optional field may be absent; a required one answers "is required." when it is. */
  readonly optional?: boolean;
  read(input: unknown): Reading<T>;
}

export const valid = <T>(value: T): Reading<T> => ({ value });
export const invalid = (message: string, path: Path = []): Reading<never> => ({ issues: [{ path, message }] });

/** "is required." when the field is absent, otherwise what it must be. */
export const expected = (input: unknown, what: string) => (input === undefined ? 'is required.' : `must be ${what}.`);

export const optional = <T>(rule: FieldRule<T>): FieldRule<T | undefined> => ({ ...rule, optional: true });

type Fields = Record<string, FieldRule<unknown>>;
type ValuesOf<F extends Fields> = { [K in keyof F]: F[K] extends FieldRule<infer T> ? T : never };

/**
 * A check of the whole body. It runs when the fields it reads (`reads`) are valid, also when
 * others are not, so that a refusal names every problem at once.
 */
export interface BodyCheck<Values> {
  readonly reads: readonly (keyof Values & string)[];
  check(values: Values): Issue | undefined;
  /** What JSON Schema can say of the check, added to the body's schema (`anyOf` of required fields, say). */
  readonly jsonSchema?: JsonSchema;
}

export type BodyReading<T> = { value: T; problems?: undefined } | { problems: FieldProblem[] };

/** What a body rule answers the operation. */
export type BodyOf<Rule> = Rule extends BodyRule<infer T> ? T : never;

export interface BodyRule<T> {
  /** The body as the OpenAPI document describes it. */
  readonly jsonSchema: JsonSchema;
  /** The body's normalized value (unknown fields dropped), or every problem with it. */
  read(body: unknown): BodyReading<T>;
}

/** `events[0]`, `name`: where a problem is, as a person would write it. */
function fieldOf(path: Path): string {
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${key}`)).join('');
}

/** One problem as a sentence that starts with its field. */
function problemOf({ path, message }: Issue): FieldProblem {
  const field = fieldOf(path);
  return { field, message: field ? `${field} ${message}` : message };
}

/**
 * The rule of an object body: its fields in the order their problems are reported, the
 * checks across fields, and what the operation receives (`output`).
 */
export function bodyRule<F extends Fields, T = ValuesOf<F>>(
  fields: F,
  checks: readonly BodyCheck<ValuesOf<F>>[] = [],
  output: (values: ValuesOf<F>) => T = (values) => values as unknown as T,
): BodyRule<T> {
  const names = Object.keys(fields);
  const required = names.filter((name) => !fields[name]!.optional);
  return {
    jsonSchema: {
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, fields[name]!.jsonSchema])),
      ...(required.length > 0 && { required }),
      ...Object.assign({}, ...checks.map((check) => check.jsonSchema)),
    },
    read(body) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return { problems: [{ field: '', message: 'The request body must be a JSON object.' }] };
      }
      const values: Record<string, unknown> = {};
      const issues: Issue[] = [];
      const invalidFields = new Set<string>();
      for (const name of names) {
        const rule = fields[name]!;
        const input = Object.hasOwn(body, name) ? (body as Record<string, unknown>)[name] : undefined;
        if (input === undefined && rule.optional) continue;
        const reading = rule.read(input);
        if (reading.issues) {
          invalidFields.add(name);
          // A rule that refuses without saying why still refuses: never a body with this field missing.
          const fieldIssues = reading.issues.length > 0 ? reading.issues : [{ path: [], message: 'is invalid.' }];
          for (const issue of fieldIssues) issues.push({ path: [name, ...issue.path], message: issue.message });
        } else {
          values[name] = reading.value;
        }
      }
      for (const { reads, check } of checks) {
        if (reads.some((name) => invalidFields.has(name))) continue;
        const issue = check(values as ValuesOf<F>);
        if (issue) issues.push(issue);
      }
      return issues.length > 0 ? { problems: issues.map(problemOf) } : { value: output(values as ValuesOf<F>) };
    },
  };
}
