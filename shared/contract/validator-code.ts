/**
 * ajv's standalone code for one request body's schema, rewritten smaller for the bundles that
 * carry it (write-validators.ts): the schema constant inlined, each error recorded in one push
 * (built by a helper declared once per module), the options only `$ref`s use left out, and a
 * string's `not`-pattern tested in one `if`. Each rewrite checks that it found what it expects
 * and throws otherwise, so an ajv upgrade that writes its code differently fails the build.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import ucs2lengthModule from 'ajv/dist/runtime/ucs2length.js';
import type { Json, Node } from './validator-refusals';

// ajv is CommonJS: loaded from ESM (jest's, tsx's) its default export may arrive as the module object.
const interop = <T>(module: T): T => ((module as { default?: T }).default ?? module) as T;
const Ajv2020 = interop(Ajv2020Module);
const standaloneCode = interop(standaloneModule);
const ucs2length = interop(ucs2lengthModule);

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
export function compiledExpression(schema: Node, name: string): string {
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
      // The runtime helper, declared once per module (runtimeHelpersOf).
      .replaceAll(UCS2LENGTH, 'ucs2length')
      .replace(REFERENCE_OPTIONS, '}={}'),
    name,
  ).replace(NOT_STRING_PATTERN, 'if(typeof $3 === "string" && $4.test($3)){$6}');
  if (/\b(parentData|parentDataProperty|rootData|dynamicAnchors)\b/.test(body)) throw new Error(`${name}: the compiled validator reads options write-validators.ts left out.`);
  if (/\brequire\(/.test(body)) throw new Error(`${name}: the compiled validator needs a runtime helper write-validators.ts does not inline.`);
  return `(() => {${body}\nreturn ${exported[1]};})()`;
}

/**
 * The runtime helpers `code` calls, each declared once per module so that the module imports
 * nothing: ajv's ucs2length (a string's length in code points), and failure() and missing(),
 * which withShorterErrors writes the errors with.
 */
export function runtimeHelpersOf(code: string): string[] {
  return [
    ...(/\bucs2length\b/.test(code) ? [`const ucs2length = (${ucs2length.toString()});`] : []),
    ...(/\bfailure\(/.test(code) ? [FAILURE_HELPER] : []),
    ...(/\bmissing\(/.test(code) ? [MISSING_HELPER] : []),
  ];
}
