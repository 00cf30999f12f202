/**
 * A request body's schema as the validator generator (write-validators.ts) reads it: the
 * keywords it supports, the refusal sentences of its `x-error`s by where ajv reports a failure,
 * and the schema without its annotations, which is what gets compiled.
 */
export type Json = unknown;
export type Node = Record<string, Json>;

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

export const isNode = (value: Json): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

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
export function withoutAnnotations(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutAnnotations);
  if (!isNode(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([keyword]) => !ANNOTATIONS.has(keyword)).map(([keyword, item]) => [keyword, withoutAnnotations(item)]));
}

