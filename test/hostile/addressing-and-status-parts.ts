/** Body parts (field-parts.ts) for the addressing pair config_id / configId and for activate's status. */
import fc from 'fast-check';
import { type Entry, type FieldParts, fieldParts, type Invalid, type Part, preview, type Valid } from './field-parts';
import { type GeneratorIds, UUID } from './hostile-request';
import { deepJson, hostileString, json, jsonStringText, notAStringText } from './values';

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

export function addressingParts(ids: GeneratorIds): FieldParts {
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
export const statusParts = fieldParts('status', validStatus, invalidStatus, maybeStatus);
