/**
 * A request body's validator as one expression (write-validators.ts writes it into the body's
 * module): ajv's code for the body (validator-code.ts), with the `allOf` branches that tie one
 * field's form to another field's value compiled apart, one small validator per form.
 */
import { compiledExpression, runtimeHelpersOf } from './validator-code';
import { isNode, type Json, type Node, withoutAnnotations } from './validator-refusals';

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
export function validatorExpression(schema: Node, name: string): string {
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
  return `/* @__PURE__ */ (() => {${[...runtimeHelpersOf(code), code].join('\n')}})()`;
}
