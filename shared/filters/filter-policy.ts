/**
 * SNS's filter-policy language, as it applies to a message body (FilterPolicyScope MessageBody):
 * the one validator and evaluator of the service (a subscription's `filter`, applied by the
 * dispatcher to an event's `data`; POST /test-filter) and of the local SNS emulator's
 * FilterPolicy. Pure: no AWS call, no dependency, small (it is bundled into create, update,
 * test-filter and the dispatcher).
 *
 * What it follows (SNS Developer Guide): "Amazon SNS message filtering", "Key matching" (exists),
 * "String value matching" (exact, prefix, suffix, equals-ignore-case, anything-but with a list or
 * a prefix), "Numeric value matching" (=, <, <=, >, >= and one range), "AND/OR logic" ($or), and
 * "Filter policy constraints" (at most 5 keys, at most 150 combinations, nested keys counted by
 * depth): https://docs.aws.amazon.com/sns/latest/dg/message-filtering.html,
 * https://docs.aws.amazon.com/sns/latest/dg/subscription-filter-policy-constraints.html. Where a
 * refusal has SNS's wording, it is the wording SNS answers (recorded by LocalStack's
 * AWS-validated snapshots) in the emulator, by the refusal's code, so that it answers as SNS does.
 *
 * Ours, tighter than SNS and stated in docs/delivery.md: a policy of at most FILTER_MAX_BYTES
 * (SNS: 256 KB); `cidr` is refused (no event of the platform carries an address).
 */

export type FilterPolicy = { [key: string]: unknown };

/** SNS: "A filter policy can have a maximum of five keys" (top-level keys, `$or` one of them). */
export const FILTER_MAX_KEYS = 5;
/** SNS: "The total combination of values in a filter policy must not exceed 150". */
export const FILTER_MAX_COMBINATIONS = 150;
/** Ours: the policy's JSON text at most this many bytes (SNS allows 256 KB); every record the dispatcher reads carries it. */
export const FILTER_MAX_BYTES = 16_384;

/**
 * Why SNS refuses a policy, as a short code (and the name SNS's wording quotes): the SNS emulator
 * says it in SNS's words (infra/local/sns/filter-policy.ts), which the functions' bundles need not carry.
 */
export type FilterRefusal =
  | 'notObject' | 'tooLarge' | 'tooManyKeys' | 'tooComplex' | 'emptyList' | 'notList' | 'matchValue' | 'oneOperator' | 'notString'
  | 'notBoolean' | 'anythingBut' | 'unknownOperator' | 'numericEmpty' | 'numericOperator' | 'numericValue' | 'numericTooMany'
  | 'numericUpper' | 'numericBottom' | 'numericTerms';

/** One reason a policy is refused: where (keys and positions from the policy's root), our sentence, SNS's reason. */
export interface FilterProblem {
  at: (string | number)[];
  problem: string;
  refusal: FilterRefusal;
  /** What SNS's wording names: the key, operator or term at fault. */
  name?: string;
}

const OPERATORS = ['prefix', 'suffix', 'equals-ignore-case', 'anything-but', 'numeric', 'exists'];
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isLiteral = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * SNS reads `$or` as the OR operator only when it holds an array of at least two objects;
 * otherwise it is a key like any other ("AND/OR logic", OR operator).
 */
const isOr = (key: string, value: unknown): value is FilterPolicy[] =>
  key === '$or' && Array.isArray(value) && value.length > 1 && value.every(isObject);

class Refusal extends Error {
  constructor(readonly found: FilterProblem) {
    super(found.problem);
  }
}
const refuse = (at: (string | number)[], problem: string, refusal: FilterRefusal, name?: unknown): never => {
  throw new Refusal({ at, problem, refusal, ...(name !== undefined && { name: String(name) }) });
};

/** The first reason SNS would refuse this policy, or undefined when it is a valid one. */
export function filterPolicyProblem(policy: unknown): FilterProblem | undefined {
  try {
    if (!isObject(policy)) refuse([], 'must be a JSON object of keys and their conditions.', 'notObject');
    const bytes = new TextEncoder().encode(JSON.stringify(policy)).length;
    if (bytes > FILTER_MAX_BYTES) refuse([], `is ${bytes} bytes long; a filter may have at most ${FILTER_MAX_BYTES}.`, 'tooLarge');
    const keys = Object.keys(policy as FilterPolicy).length;
    if (keys > FILTER_MAX_KEYS) {
      refuse([], `has ${keys} keys; a filter may have at most ${FILTER_MAX_KEYS} (SNS's limit).`, 'tooManyKeys');
    }
    const combinations = checkedObject(policy as FilterPolicy, [], 1);
    if (combinations > FILTER_MAX_COMBINATIONS) {
      refuse(
        [],
        `is too complex: ${combinations} combinations of values, over SNS's limit of ${FILTER_MAX_COMBINATIONS} (each key's number of values times its depth, multiplied across keys, added across $or).`,
        'tooComplex',
      );
    }
    return undefined;
  } catch (error) {
    if (error instanceof Refusal) return error.found;
    throw error;
  }
}

/** Checks an object of keys at `at`, `depth` deep; answers its combinations ("Filter policy constraints"). */
function checkedObject(policy: FilterPolicy, at: (string | number)[], depth: number): number {
  let combinations = 1;
  for (const [key, value] of Object.entries(policy)) {
    const here = [...at, key];
    if (isOr(key, value)) {
      combinations *= value.reduce((sum: number, branch, index) => sum + checkedObject(branch, [...here, index], depth), 0);
    } else if (isObject(value)) {
      combinations *= checkedObject(value, here, depth + 1);
    } else if (Array.isArray(value)) {
      if (value.length === 0) refuse(here, 'is an empty list; list at least one value or condition.', 'emptyList');
      value.forEach((condition, index) => checkedCondition(condition, [...here, index]));
      combinations *= value.length * depth;
    } else {
      refuse(here, `must be a list of values or conditions (["${typeof value === 'string' ? value : 'value'}"]) or an object of nested keys.`, 'notList', key);
    }
  }
  return combinations;
}

function checkedCondition(condition: unknown, at: (string | number)[]): void {
  if (isLiteral(condition)) return;
  if (!isObject(condition)) {
    refuse(at, 'must be a string, a number, true, false, null or one operator object such as {"prefix": "a"}.', 'matchValue');
  }
  const entries = Object.entries(condition as Record<string, unknown>);
  if (entries.length !== 1) refuse(at, 'must hold exactly one operator.', 'oneOperator');
  const [[operator, argument]] = entries as [[string, unknown]];
  const here = [...at, operator];
  switch (operator) {
    case 'prefix':
    case 'suffix':
    case 'equals-ignore-case':
      if (typeof argument !== 'string') refuse(here, 'must be a string.', 'notString', operator);
      return;
    case 'exists':
      if (typeof argument !== 'boolean') refuse(here, 'must be true or false.', 'notBoolean');
      return;
    case 'anything-but':
      if (isObject(argument)) {
        const inner = Object.keys(argument);
        if (inner.length !== 1 || inner[0] !== 'prefix') {
          refuse(here, 'may hold values or {"prefix": "..."}, nothing else.', 'anythingBut', inner.join(', '));
        }
        if (typeof argument.prefix !== 'string') refuse([...here, 'prefix'], 'must be a string.', 'notString', 'prefix');
        return;
      }
      for (const [index, value] of (Array.isArray(argument) ? argument : [argument]).entries()) {
        if (!isLiteral(value)) refuse(Array.isArray(argument) ? [...here, index] : here, 'must be a string, a number, true, false or null.', 'matchValue');
      }
      return;
    case 'numeric':
      checkedNumeric(argument, here);
      return;
    default:
      refuse(here, `is not an operator of SNS filter policies here; use one of ${OPERATORS.join(', ')}.`, 'unknownOperator', operator);
  }
}

/** `["=", 5]`, `["<", 5]`, `[">", 0, "<=", 10]`: one comparison, or a lower bound then an upper one ("Numeric value matching"). */
function checkedNumeric(argument: unknown, at: (string | number)[]): void {
  const terms = Array.isArray(argument) ? argument : [];
  const [first, low, second, high, ...more] = terms;
  const numberAfter = (operator: unknown, value: unknown, index: number) => {
    if (typeof value !== 'number') refuse([...at, index], `must be a number after "${String(operator)}".`, 'numericValue', operator);
  };
  if (terms.length === 0) refuse(at, 'must list a comparison such as [">", 1000].', 'numericEmpty');
  if (!['<', '<=', '=', '>', '>='].includes(first as string)) {
    refuse([...at, 0], 'must be one of "=", "<", "<=", ">", ">=".', 'numericOperator', first);
  }
  numberAfter(first, low, 1);
  if (terms.length <= 2) return;
  if (first !== '>' && first !== '>=') refuse(at, 'may add an upper bound only after ">" or ">=".', 'numericTooMany');
  if (second !== '<' && second !== '<=') refuse([...at, 2], 'must be "<" or "<=" (the upper bound).', 'numericUpper', second);
  numberAfter(second, high, 3);
  if ((high as number) <= (low as number)) refuse(at, 'must have its lower bound below its upper bound.', 'numericBottom');
  if (more.length > 0) refuse(at, 'may hold one range at most.', 'numericTerms');
}

/** Where a policy key is in the data, as a path: `asset.size`. */
const pathText = (path: readonly string[]) => path.join('.');

/** Why data does not match: the key (path) that decided it. */
export interface FilterMiss {
  key: string;
}

/**
 * The leaf values at `path` in `data`: arrays on the way are looked into (each element), an
 * object at the end is no value ("Key matching": `exists` is about a property with a value).
 */
function valuesAt(data: unknown, path: readonly string[]): unknown[] {
  let nodes: unknown[] = [data];
  for (const key of path) {
    nodes = nodes.flatMap((node) => (Array.isArray(node) ? node : [node])).flatMap((node) => (isObject(node) && Object.hasOwn(node, key) ? [node[key]] : []));
  }
  return nodes.flatMap((node) => (Array.isArray(node) ? node.flat(Infinity) : [node])).filter((node) => !isObject(node) && !Array.isArray(node));
}

/**
 * Whether `data` matches a valid policy (filterPolicyProblem found none): every key's
 * conditions hold (AND), one of a key's conditions suffices (OR), one branch of an `$or`.
 * Answers undefined for a match, or the key that decided a miss.
 */
export function filterMiss(policy: FilterPolicy, data: unknown, path: readonly string[] = []): FilterMiss | undefined {
  for (const [key, value] of Object.entries(policy)) {
    if (isOr(key, value)) {
      const misses = value.map((branch) => filterMiss(branch, data, path));
      if (misses.every(Boolean)) return { key: pathText([...path, `$or(${misses.map((miss) => miss!.key).join(' | ')})`]) };
    } else if (isObject(value)) {
      const miss = filterMiss(value, data, [...path, key]);
      if (miss) return miss;
    } else {
      const values = valuesAt(data, [...path, key]);
      if (!(value as unknown[]).some((condition) => conditionHolds(condition, values))) return { key: pathText([...path, key]) };
    }
  }
  return undefined;
}

export const filterMatches = (policy: FilterPolicy, data: unknown): boolean => filterMiss(policy, data) === undefined;

/** One condition against a key's values: it holds when one of them satisfies it ("String value matching", arrays). */
function conditionHolds(condition: unknown, values: readonly unknown[]): boolean {
  if (!isObject(condition)) return values.some((value) => value === condition);
  const [operator, argument] = Object.entries(condition)[0]!;
  if (operator === 'exists') return argument === values.length > 0;
  return values.some((value) => operatorHolds(operator, argument, value));
}

function operatorHolds(operator: string, argument: unknown, value: unknown): boolean {
  const text = typeof value === 'string' ? value : undefined;
  switch (operator) {
    case 'prefix':
      return text !== undefined && text.startsWith(argument as string);
    case 'suffix':
      return text !== undefined && text.endsWith(argument as string);
    case 'equals-ignore-case':
      return text !== undefined && text.toLowerCase() === (argument as string).toLowerCase();
    case 'anything-but':
      if (isObject(argument)) return text !== undefined && !text.startsWith(argument.prefix as string);
      return !(Array.isArray(argument) ? argument : [argument]).includes(value);
    case 'numeric':
      return typeof value === 'number' && numericHolds(argument as unknown[], value);
    default:
      return false;
  }
}

function numericHolds(terms: readonly unknown[], value: number): boolean {
  for (let index = 0; index + 1 < terms.length; index += 2) {
    const bound = terms[index + 1] as number;
    const holds = { '=': value === bound, '<': value < bound, '<=': value <= bound, '>': value > bound, '>=': value >= bound }[terms[index] as string];
    if (!holds) return false;
  }
  return true;
}

/** A problem's place as a person writes it, after `root`: `filter.brand[0].prefix`. */
export function placeOf(root: string, at: readonly (string | number)[]): string {
  return at.reduce<string>((place, part) => (typeof part === 'number' ? `${place}[${part}]` : /^[A-Za-z_$][\w$-]*$/.test(part) ? `${place}.${part}` : `${place}[${JSON.stringify(part)}]`), root);
}
