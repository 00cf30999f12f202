/**
 * The request contract is its JSON Schemas (shared/contract/schemas.ts): the OpenAPI document
 * shows them, and each function runs the validator compiled from them. Bodies generated from the
 * document's own schemas (support/schema-arbitrary.ts), valid and invalid alike, are accepted by
 * the service exactly when the document accepts them, with what the document says in words
 * (`protocol` in any letter case; `config_id` and `configId` naming the same subscription). An
 * accepted body reaches the operation normalized; a refused one is answered with every problem,
 * each naming a field of the body.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { BodyReader } from '../../shared/contract/body-reader';
import { writtenComponentSchemas } from '../../shared/contract/openapi-document';
import * as bodies from '../../shared/contract/request-bodies';
import { GENERATED_DIRECTORY, refusalsOf, validatorFiles } from '../../shared/contract/write-validators';
import { config } from '../../shared/environment';
import { filterPolicyProblem } from '../../shared/filters/filter-policy';
import { objectArbitrary } from '../support/schema-arbitrary';

// ajv is CommonJS: under jest's native ESM its default export arrives as the module object.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: typeof Ajv2020Module }).default ?? Ajv2020Module) as typeof Ajv2020Module;

// The request schemas as written (the compiled validators' source), not as the OpenAPI document
// presents them to client generators (stricter: shared/contract/openapi-presentation.ts).
const document = { components: { schemas: writtenComponentSchemas(config.eventKinds) } };
// `x-error` and the other annotations are no keywords of ajv's: strict mode off.
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(document, 'openapi.json');

const READERS: readonly (readonly [string, BodyReader<unknown>])[] = [
  ['CreateSubscriptionRequest', bodies.createSubscriptionRequest],
  ['UpdateSubscriptionRequest', bodies.updateSubscriptionRequest],
  ['ActivateSubscriptionRequest', bodies.activateSubscriptionRequest],
  ['RenameSubscriptionRequest', bodies.renameSubscriptionRequest],
  ['TestSubscriptionRequest', bodies.testSubscriptionRequest],
  ['ConfirmSubscriptionRequest', bodies.confirmSubscriptionRequest],
  ['TestFilterRequest', bodies.testFilterRequest],
];

type Body = Record<string, unknown>;
const schemaOf = (name: string) => document.components.schemas[name];

/** The document's verdict: its schema, and the three rules its descriptions state in words. */
function documentAccepts(name: string, body: Body): boolean {
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;
  const asChecked = typeof body.protocol === 'string' ? { ...body, protocol: body.protocol.toLowerCase() } : body;
  const { config_id, configId } = body;
  const addressed = 'config_id' in schemaOf(name).properties;
  const aliasesAgree = !addressed || typeof config_id !== 'string' || typeof configId !== 'string' || config_id.toLowerCase() === configId.toLowerCase();
  // A filter object in SNS's filter-policy language, within its limits (shared/filters/filter-policy.ts).
  const { filter } = body;
  const filterInLanguage = typeof filter !== 'object' || filter === null || Array.isArray(filter) || filterPolicyProblem(filter) === undefined;
  return validate(asChecked) === true && aliasesAgree && filterInLanguage;
}

/** What the operation receives for an accepted body: its fields normalized, unknown ones dropped. */
function normalized(name: string, body: Body): Body {
  const fields = Object.keys(schemaOf(name).properties);
  const value: Body = {};
  for (const field of fields.filter((candidate) => candidate in body)) {
    const input = body[field];
    if (field === 'name') value.name = (input as string).trim();
    else if (field === 'protocol') value.protocol = (input as string).toLowerCase();
    else if (field === 'events') value.events = [...new Set(input as string[])];
    else if (field !== 'config_id' && field !== 'configId') value[field] = input;
  }
  if (fields.includes('config_id')) value.configId = String(body.config_id ?? body.configId).toLowerCase();
  return value;
}

describe.each(READERS)('%s', (name, reader) => {
  const fields = Object.keys(schemaOf(name).properties);

  it('is accepted by the service exactly when the document accepts it, across generated bodies', () => {
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(objectArbitrary(schemaOf(name), document), (body) => {
        const reading = reader.read(body);
        const expected = documentAccepts(name, body);
        expect({ body, serviceAccepts: reading.problems === undefined, problems: reading.problems }).toEqual({
          body,
          serviceAccepts: expected,
          problems: expected ? undefined : expect.any(Array),
        });
        if (reading.problems) {
          seen.refused++;
          expect(reading.problems.length).toBeGreaterThan(0);
          for (const { field, message } of reading.problems) {
            expect(fields).toContain(field.split(/[.[]/, 1)[0]);
            expect(message.startsWith(`${field} `)).toBe(true);
            expect(message).toMatch(/\.$/);
          }
        } else {
          seen.accepted++;
          expect(reading.value).toEqual(normalized(name, body));
        }
      }),
      { numRuns: 1500 },
    );
    // Both sides of the rules were reached, not only one.
    expect({ name, acceptedEnough: seen.accepted >= 300, refusedEnough: seen.refused >= 300 }).toEqual({ name, acceptedEnough: true, refusedEnough: true });
  });

  it('refuses a body that is not a JSON object', () => {
    expect(reader.read([])).toEqual({ problems: [{ field: '', message: 'The request body must be a JSON object.' }] });
  });
});

describe('the compiled validators', () => {
  it('are the ones the schemas compile to now', () => {
    for (const [file, text] of validatorFiles()) expect({ file, text: readFileSync(join(GENERATED_DIRECTORY, file), 'utf8') }).toEqual({ file, text });
  });

  it('import nothing and carry none of the schemas\' descriptions, examples or sentences beyond their refusals', () => {
    for (const [file, text] of validatorFiles()) {
      if (!file.endsWith('.js')) continue;
      expect({ file, imports: /\bimport\b|\brequire\(/.test(text) }).toEqual({ file, imports: false });
      expect({ file, annotations: /"description"|"examples"|"x-error"|\$schema/.test(text) }).toEqual({ file, annotations: false });
    }
  });

  it('cannot be generated from a schema with a rule that has no sentence for its refusal', () => {
    // The field's own x-error answers for its type and maxLength, the pattern's for the pattern.
    const code = { type: 'string', maxLength: 3, 'x-error': 'must be a string of at most 3 characters.', allOf: [{ pattern: '^a', 'x-error': 'must start with a.' }] };
    expect(refusalsOf({ type: 'object', properties: { code } }, 'sample')).toEqual({
      '#/properties/code': 'must be a string of at most 3 characters.',
      '#/properties/code/allOf/0': 'must start with a.',
    });
    expect(() => refusalsOf({ type: 'object', properties: { code: { type: 'string', maxLength: 3 } } }, 'sample')).toThrow(/no x-error/);
    expect(() => refusalsOf({ type: 'object', anyOf: [{ required: ['a'] }] }, 'sample')).toThrow(/anyOf is not supported/);
  });
});
