/**
 * Compiles each request body's JSON Schema (schemas.ts) into the validator its function runs:
 * ajv's standalone code, written to generated/<body>.js (with a .d.ts), so that no function
 * compiles a schema, or carries a schema compiler, at cold start. Beside the validator, each
 * module holds the body's fields in reporting order and the refusal sentences of its `x-error`s.
 *
 * The generated files are not committed. `npm install`/`npm ci` (`prepare`), `npm test`, jest's
 * global setup, `npm start`, `npm run bench` and every CDK synth call writeValidators() first;
 * it compiles only when the schemas, this file or ajv changed since the last write (FINGERPRINT),
 * and rewrites only files whose text changed, so running it again is cheap.
 *
 *   npm run validators
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import ucs2lengthModule from 'ajv/dist/runtime/ucs2length.js';
import { REQUEST_SCHEMAS } from './schemas';

// ajv is CommonJS: loaded from ESM (jest's, tsx's) its default export may arrive as the module object.
const interop = <T>(module: T): T => ((module as { default?: T }).default ?? module) as T;
const Ajv2020 = interop(Ajv2020Module);
const standaloneCode = interop(standaloneModule);
const ucs2length = interop(ucs2lengthModule);

export const GENERATED_DIRECTORY = fileURLToPath(new URL('./generated/', import.meta.url));

type Json = unknown;
type Node = Record<string, Json>;

/** Keywords that only describe: the compiled validator does without them. */
const ANNOTATIONS = new Set(['description', 'examples', 'title', '$comment', 'x-error']);
/** Keywords that hold one subschema, and those that hold a list or a map of them. */
const SUBSCHEMA = new Set(['not', 'if', 'then', 'else', 'items', 'contains', 'propertyNames', 'additionalProperties']);
const SUBSCHEMA_LISTS = new Set(['allOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs']);
/** What the body reader knows how to report: a failing `if` is explained by its `then`, a failing `not` by its own `x-error`. */
const UNSUPPORTED = new Set(['$ref', '$dynamicRef', 'anyOf', 'oneOf', 'else', 'unevaluatedProperties', 'unevaluatedItems']);
/** Keywords that decide nothing by themselves (their subschemas' keywords do), so need no sentence of their own. */
const STRUCTURAL = new Set(['$schema', '$id', 'properties', 'allOf', 'items', 'if', 'then', 'required', ...ANNOTATIONS]);

const isNode = (value: Json): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Calls `visit` on every subschema with its JSON Pointer as ajv's `schemaPath` writes it ("#/properties/name"). */
function walk(node: Node, visit: (node: Node, at: string) => void, at = '#'): void {
  visit(node, at);
  for (const [keyword, value] of Object.entries(node)) {
    if (SUBSCHEMA.has(keyword) && isNode(value)) walk(value, visit, `${at}/${keyword}`);
    if (SUBSCHEMA_LISTS.has(keyword) && Array.isArray(value)) value.forEach((item, index) => isNode(item) && walk(item, visit, `${at}/${keyword}/${index}`));
    if (SUBSCHEMA_MAPS.has(keyword) && isNode(value)) {
      for (const [name, item] of Object.entries(value)) if (isNode(item)) walk(item, visit, `${at}/${keyword}/${name}`);
    }
  }
}

/**
 * The refusal sentences of a body's schema, by where ajv reports a failure: `x-error` as a
 * string answers for every keyword of its subschema (and of subschemas without their own), as a
 * map for the keyword it names. Throws when a keyword that can fail would have no sentence.
 */
export function refusalsOf(schema: Node, name: string): Record<string, string> {
  const refusals: Record<string, string> = {};
  walk(schema, (node, at) => {
    const found = Object.keys(node).filter((keyword) => UNSUPPORTED.has(keyword));
    if (found.length > 0) throw new Error(`${name} ${at}: ${found.join(', ')} is not supported in a request body's schema (write-validators.ts).`);
    const sentence = node['x-error'];
    if (typeof sentence === 'string') refusals[at] = sentence;
    else if (isNode(sentence)) for (const [keyword, text] of Object.entries(sentence)) refusals[`${at}/${keyword}`] = String(text);
  });
  // Nothing inside an `if` or a `not` is reported, nor the body's own type (the reader refuses a
  // body that is not an object before it validates); every other deciding keyword needs a sentence.
  walk(schema, (node, at) => {
    if (/\/(if|not)(\/|$)/.test(at)) return;
    for (const keyword of Object.keys(node).filter((candidate) => !STRUCTURAL.has(candidate) && !(at === '#' && candidate === 'type'))) {
      const place = `${at}/${keyword}`;
      let found = false;
      for (let path = place; path.includes('/') && !found; path = path.slice(0, path.lastIndexOf('/'))) found = path in refusals;
      if (!found) throw new Error(`${name} ${place}: no x-error says what a refusal by this keyword tells the caller.`);
    }
  });
  return refusals;
}

/** The schema without its annotations: the same validation, less code and text in the bundle. */
function withoutAnnotations(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutAnnotations);
  if (!isNode(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([keyword]) => !ANNOTATIONS.has(keyword)).map(([keyword, item]) => [keyword, withoutAnnotations(item)]));
}

/**
 * ajv's standalone code keeps the whole schema as a constant for the few values its errors
 * quote (an enum's allowed values): those values are written in place instead, and the constant
 * (a third of create's validator) goes.
 */
function withSchemaValuesInlined(code: string, schema: Node, name: string): string {
  const declaration = /const (schema\d+) = /.exec(code);
  if (!declaration) return code;
  const constant = declaration[1]!;
  const text = `${declaration[0]}${JSON.stringify(schema)};`;
  if (!code.includes(text)) throw new Error(`${name}: ajv's schema constant is not the schema compiled.`);
  const inlined = code.replace(text, '').replace(new RegExp(`\\b${constant}((?:\\.[A-Za-z_$][\\w$]*|\\[\\d+\\])+)`, 'g'), (_reference, path: string) => {
    const keys = [...path.matchAll(/\.([A-Za-z_$][\w$]*)|\[(\d+)\]/g)].map((match) => match[1] ?? Number(match[2]));
    const value = keys.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key], schema);
    return JSON.stringify(value);
  });
  if (new RegExp(`\\b${constant}\\b`).test(inlined)) throw new Error(`${name}: ajv's code uses its schema constant in a way write-validators.ts cannot inline.`);
  return inlined;
}

// A string literal of ajv's code, and an object literal of its errors (at most one level of nesting: `params:{...}`).
const STRING = '"(?:[^"\\\\]|\\\\.)*"';
const ERROR_OBJECT = `\\{(?:[^{}";]|${STRING}|\\{(?:[^{}";]|${STRING})*\\})*\\}`;
/** ajv's way of recording one error: the object declared, then pushed onto vErrors, which may still be null. */
const ERROR_PUSH = new RegExp(`const (err\\d+) = (${ERROR_OBJECT});if\\(vErrors === null\\)\\{vErrors = \\[\\1\\];\\}else \\{vErrors\\.push\\(\\1\\);\\}errors\\+\\+;`, 'g');
/** An error whose keyword is its schema path's last step and whose params are empty: all but `required`'s. */
const PLAIN_ERROR = new RegExp(`^\\{instancePath(?::((?:[^,"]|${STRING})+))?,schemaPath:(${STRING}),keyword:(${STRING}),params:\\{\\}\\}$`);
/** What PLAIN_ERROR's errors are written with instead: the same object, built from its two varying fields. */
const FAILURE_HELPER = 'const failure = (instancePath, schemaPath) => ({instancePath, schemaPath, keyword: schemaPath.slice(schemaPath.lastIndexOf("/") + 1), params: {}});';
/** A `required` error of ajv's: the property missing is its only param. */
const MISSING_ERROR = new RegExp(`^\\{instancePath,schemaPath:(${STRING}),keyword:"required",params:\\{missingProperty: (${STRING})\\}\\}$`);
const MISSING_HELPER = 'const missing = (instancePath, schemaPath, missingProperty) => ({instancePath, schemaPath, keyword: "required", params: {missingProperty}});';
/** The options of ajv's validating functions that only `$ref`s and `$dynamicRef`s use: a body's schema has none (UNSUPPORTED). */
const REFERENCE_OPTIONS = ', parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}';

/**
 * ajv writes each of a validator's errors out in full, seven statements apiece; create's body has
 * sixty of them. Written as one push of an object that `failure()` (FAILURE_HELPER, declared once
 * per module) builds where it can, the same errors in the same order take a third less code:
 * bytes every cold start of create reads and compiles
 * (docs/decisions/validators-compiled-at-build-time.md).
 */
function withShorterErrors(code: string, name: string): string {
  const shorter = code.replace(ERROR_PUSH, (_whole, _variable: string, error: string) => {
    const parts = PLAIN_ERROR.exec(error);
    const path = parts && (JSON.parse(parts[2]!) as string);
    if (parts && path!.slice(path!.lastIndexOf('/') + 1) === JSON.parse(parts[3]!)) {
      return `(vErrors ||= []).push(failure(${parts[1] ?? 'instancePath'},${parts[2]}));errors++;`;
    }
    const missing = MISSING_ERROR.exec(error);
    if (missing) return `(vErrors ||= []).push(missing(instancePath,${missing[1]},${missing[2]}));errors++;`;
    return `(vErrors ||= []).push(${error});errors++;`;
  });
  if (/vErrors === null\)\{vErrors = \[/.test(shorter)) throw new Error(`${name}: ajv recorded an error in a way write-validators.ts does not shorten.`);
  return shorter;
}

const UCS2LENGTH = 'require("ajv/dist/runtime/ucs2length").default';

/**
 * ajv's code for `not: { type: 'string', pattern }` (a string must not match): the subschema run
 * with its errors counted, kept and discarded again. The same test written directly: one `if`.
 */
const NOT_STRING_PATTERN = new RegExp(
  [
    'const (_errs\\d+) = errors;const (_errs\\d+) = errors;if\\(errors === \\2\\)\\{',
    'if\\(typeof (data\\d*) === "string"\\)\\{if\\(!(pattern\\d+)\\.test\\(\\3\\)\\)\\{\\(vErrors \\|\\|= \\[\\]\\)\\.push\\(\\{\\}\\);errors\\+\\+;\\}\\}',
    'else \\{\\(vErrors \\|\\|= \\[\\]\\)\\.push\\(\\{\\}\\);errors\\+\\+;\\}\\}',
    'var (valid\\d+) = \\2 === errors;',
    `if\\(\\5\\)\\{(\\(vErrors \\|\\|= \\[\\]\\)\\.push\\(failure\\((?:[^()"]|${STRING})*\\)\\);errors\\+\\+;)\\}`,
    'else \\{errors = \\1;if\\(vErrors !== null\\)\\{if\\(\\1\\)\\{vErrors\\.length = \\1;\\}else \\{vErrors = null;\\}\\}\\}',
  ].join(''),
  'g',
);

/** ajv's standalone code for one schema, as an expression whose value is its validating function. */
function compiledExpression(schema: Node, name: string): string {
  const ajv = new Ajv2020({
    allErrors: true,
    // The body reader writes the sentences (from x-error), not ajv.
    messages: false,
    strict: true,
    // A `required` inside `if` names a field its own subschema does not define, by design.
    strictRequired: false,
    code: { source: true, esm: true },
  });
  // Ajv2020 always tracks which properties each subschema evaluated, for unevaluatedProperties
  // and unevaluatedItems, which a request body's schema may not use (UNSUPPORTED): without the
  // tracking, create's validator is 800 bytes smaller and validates alike.
  ajv.opts.unevaluated = false;
  const code = withSchemaValuesInlined(standaloneCode(ajv, ajv.compile(schema)), schema, name);
  const exported = /export const validate = (\w+);export default \w+;/.exec(code);
  if (!exported) throw new Error(`${name}: unexpected standalone code from ajv (no default export found).`);
  const body = withShorterErrors(
    code
      .replace(exported[0], '')
      .replace(/^"use strict";/, '')
      // The body reader reads only a `required` failure's params; the others would repeat each
      // pattern and enum of the schema in the bundle.
      .replace(/params:\{(?!missingProperty)(?:"(?:[^"\\]|\\.)*"|[^{}"])*\}/g, 'params:{}')
      // The runtime helper, declared once per module (validatorExpression).
      .replaceAll(UCS2LENGTH, 'ucs2length')
      .replace(REFERENCE_OPTIONS, '}={}'),
    name,
  ).replace(NOT_STRING_PATTERN, 'if(typeof $3 === "string" && $4.test($3)){$6}');
  if (/\b(parentData|parentDataProperty|rootData|dynamicAnchors)\b/.test(body)) throw new Error(`${name}: the compiled validator reads options write-validators.ts left out.`);
  if (/\brequire\(/.test(body)) throw new Error(`${name}: the compiled validator needs a runtime helper write-validators.ts does not inline.`);
  return `(() => {${body}\nreturn ${exported[1]};})()`;
}

/**
 * A branch of `allOf` that ties one field's form to another field's value:
 * `{ if: { properties: { P: { const: V } }, required: [P] }, then: { properties: { F: S } } }`
 * (create's endpoint by protocol).
 */
interface ValueBranch {
  property: string;
  value: string | number | boolean | null;
  field: string;
  schema: Node;
}

const hasKeys = (node: Node, keys: readonly string[]) => Object.keys(node).sort().join() === [...keys].sort().join();
const isPlainName = (name: string) => /^[A-Za-z0-9_-]+$/.test(name);

/** The body's `allOf` as value branches, or undefined unless every entry is one. */
function valueBranchesOf(schema: Node): ValueBranch[] | undefined {
  const { allOf } = schema;
  if (!Array.isArray(allOf) || allOf.length === 0) return undefined;
  const branches: ValueBranch[] = [];
  for (const branch of allOf) {
    if (!isNode(branch) || !hasKeys(branch, ['if', 'then'])) return undefined;
    const { if: condition, then } = branch;
    if (!isNode(condition) || !hasKeys(condition, ['properties', 'required']) || !isNode(then) || !hasKeys(then, ['properties'])) return undefined;
    const tested = Object.entries(condition.properties as Node);
    const checked = Object.entries(then.properties as Node);
    if (tested.length !== 1 || checked.length !== 1) return undefined;
    const [[property, test]] = tested as [[string, Json]];
    const [[field, form]] = checked as [[string, Json]];
    const value = isNode(test) && hasKeys(test, ['const']) ? test.const : undefined;
    const required = condition.required;
    if (value === undefined || (typeof value === 'object' && value !== null) || !isNode(form)) return undefined;
    if (!Array.isArray(required) || required.length !== 1 || required[0] !== property || !isPlainName(field)) return undefined;
    branches.push({ property, value: value as ValueBranch['value'], field, schema: form });
  }
  return branches;
}

/**
 * What a module of value branches validates with: the fields compiled without the branches,
 * then the form of the field each applying branch names, compiled alone; its failures placed
 * where ajv places them in the whole schema (`#/allOf/<i>/then/properties/<field>/...`). ajv
 * compiles every branch's `if` and `then` into the body's validator in full, and tests each
 * `if` with every error bookkept: for create, six protocols, half of its validator. Equal to
 * ajv's whole-schema validation (test/service/contract.schema.test.ts holds the two equal over
 * generated bodies) but for the `if` failure ajv adds beside a failing `then`, which the body
 * reader skips.
 */
const BRANCHES_VALIDATOR = `function validate(data) {
  const failures = validateFields(data) ? [] : [...validateFields.errors];
  if (data && typeof data == "object" && !Array.isArray(data)) {
    branches.forEach(([property, value, field, validateField], index) => {
      if (data[property] !== value || data[field] === undefined || validateField(data[field])) return;
      const at = "#/allOf/" + index + "/then/properties/" + field;
      for (const failure of validateField.errors) failures.push({ ...failure, instancePath: "/" + field + failure.instancePath, schemaPath: at + failure.schemaPath.slice(1) });
    });
  }
  validate.errors = failures.length > 0 ? failures : null;
  return failures.length === 0;
}`;

/**
 * A body's validator as an expression: ajv's standalone code (with value branches compiled apart,
 * BRANCHES_VALIDATOR), the runtime helpers it would `require` declared once (so the module
 * imports nothing), everything inside one function call marked pure, so a bundler drops it from
 * the bundles that do not use it.
 */
function validatorExpression(schema: Node, name: string): string {
  const compiled = withoutAnnotations(schema) as Node;
  const branches = valueBranchesOf(compiled);
  let code: string;
  if (branches) {
    const { allOf: _branches, ...fields } = compiled;
    // Branches of the same form (create's email and email-json) share one compiled validator.
    const forms: string[] = [];
    const formOf = (form: Node, index: number) => {
      const expression = compiledExpression(form, `${name} #/allOf/${index}`);
      if (!forms.includes(expression)) forms.push(expression);
      return `form${forms.indexOf(expression)}`;
    };
    const entries = branches.map(({ property, value, field, schema: form }, index) => `[${JSON.stringify(property)}, ${JSON.stringify(value)}, ${JSON.stringify(field)}, ${formOf(form, index)}]`);
    code = [
      `const validateFields = ${compiledExpression(fields, name)};`,
      ...forms.map((expression, index) => `const form${index} = ${expression};`),
      `const branches = [${entries.join(',\n')}];`,
      BRANCHES_VALIDATOR,
      'return validate;',
    ].join('\n');
  } else {
    code = `return ${compiledExpression(compiled, name)};`;
  }
  const helpers = [
    ...(/\bucs2length\b/.test(code) ? [`const ucs2length = (${ucs2length.toString()});`] : []),
    ...(/\bfailure\(/.test(code) ? [FAILURE_HELPER] : []),
    ...(/\bmissing\(/.test(code) ? [MISSING_HELPER] : []),
  ];
  return `/* @__PURE__ */ (() => {${[...helpers, code].join('\n')}})()`;
}

const HEADER = '// Generated by shared/contract/write-validators.ts from shared/contract/schemas.ts: do not edit.\n';

function moduleText(name: string, schema: Node): string {
  const fields = Object.keys((schema.properties as Node | undefined) ?? {});
  return [
    HEADER,
    `export const validate = ${validatorExpression(schema, name)};`,
    `export const fields = ${JSON.stringify(fields)};`,
    `export const refusals = ${JSON.stringify(refusalsOf(schema, name), null, 1)};`,
    '',
  ].join('\n');
}

const DECLARATIONS = `${HEADER}import type { CompiledBodySchema } from '../body-reader';

export declare const validate: CompiledBodySchema['validate'];
export declare const fields: CompiledBodySchema['fields'];
export declare const refusals: CompiledBodySchema['refusals'];
`;

/** Each generated file's name and text. */
export function validatorFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, schema] of Object.entries(REQUEST_SCHEMAS)) {
    files.set(`${name}.js`, moduleText(name, schema as unknown as Node));
    files.set(`${name}.d.ts`, DECLARATIONS);
  }
  return files;
}

/**
 * The file beside the generated modules naming what they were made from. Compiling every body
 * costs about a second of CPU, and writeValidators runs at every synth and local stack start
 * (a test run starts dozens): with the fingerprint unchanged and every file there, it compiles nothing.
 */
const FINGERPRINT = '.fingerprint';

/** What the generated text depends on: the schemas, this file's code and ajv's version. */
function sourcesFingerprint(): string {
  const ajvVersion = (createRequire(import.meta.url)('ajv/package.json') as { version: string }).version;
  return createHash('sha256')
    .update(JSON.stringify(REQUEST_SCHEMAS))
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(ajvVersion)
    .digest('hex');
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes the generated modules (only those whose text changed) and removes any other file there; returns the files written. */
export function writeValidators(directory = GENERATED_DIRECTORY): string[] {
  const fingerprint = sourcesFingerprint();
  const expected = Object.keys(REQUEST_SCHEMAS).flatMap((name) => [`${name}.js`, `${name}.d.ts`]);
  const present = new Set(readOrUndefined(join(directory, FINGERPRINT)) === fingerprint ? readdirSync(directory) : []);
  if (expected.every((file) => present.has(file)) && present.size === expected.length + 1) return [];
  const files = validatorFiles();
  mkdirSync(directory, { recursive: true });
  rmSync(join(directory, FINGERPRINT), { force: true });
  for (const existing of readdirSync(directory)) if (!files.has(existing)) rmSync(join(directory, existing), { recursive: true, force: true });
  const written: string[] = [];
  for (const [file, text] of files) {
    const path = join(directory, file);
    if (readOrUndefined(path) !== text) {
      writeFileSync(path, text);
      written.push(file);
    }
  }
  // Last: a write cut short leaves no fingerprint, and the next call compiles again.
  writeFileSync(join(directory, FINGERPRINT), fingerprint);
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written = writeValidators();
  console.log(`Request validators in shared/contract/generated/: ${written.length === 0 ? 'up to date' : `wrote ${written.join(', ')}`}.`);
}
