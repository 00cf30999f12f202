/**
 * Subscription filter policies: the common subset of SNS's matching rules, checked when a
 * policy is set and applied to each publication.
 */
import { invalidParameter } from './errors';
import type { Publication, SubscriptionRecord } from './types';

const FILTER_OPERATORS = new Set(['prefix', 'suffix', 'equals-ignore-case', 'anything-but', 'exists', 'numeric']);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a FilterPolicy when it is set, so a policy the emulator cannot apply is refused up front. */
export function parseFilterPolicy(text: string): Record<string, unknown> {
  let policy: unknown;
  try {
    policy = JSON.parse(text);
  } catch {
    throw invalidParameter('FilterPolicy: failed to parse JSON');
  }
  if (!isPlainObject(policy)) throw invalidParameter('FilterPolicy: must be a JSON object');
  const check = (node: Record<string, unknown>, depth: number): void => {
    if (depth > 5) throw invalidParameter('FilterPolicy: too deeply nested');
    for (const rule of Object.values(node)) {
      if (isPlainObject(rule)) {
        check(rule, depth + 1);
      } else if (Array.isArray(rule)) {
        for (const condition of rule) {
          if (!isPlainObject(condition)) continue;
          const operator = Object.keys(condition)[0] ?? '';
          if (!FILTER_OPERATORS.has(operator)) throw invalidParameter(`FilterPolicy: Unrecognized match type ${operator}`);
        }
      } else {
        throw invalidParameter('FilterPolicy: match values must be in an array');
      }
    }
  };
  check(policy, 1);
  return policy;
}

function matchesPolicy(policy: Record<string, unknown>, data: unknown): boolean {
  return Object.entries(policy).every(([key, rule]) => {
    const value = isPlainObject(data) && Object.hasOwn(data, key) ? data[key] : undefined;
    if (isPlainObject(rule)) return matchesPolicy(rule, value);
    return Array.isArray(rule) && rule.some((condition) => matchesCondition(condition, value));
  });
}

function matchesCondition(condition: unknown, value: unknown): boolean {
  if (isPlainObject(condition) && 'exists' in condition) return condition.exists === (value !== undefined);
  if (value === undefined) return false;
  // An array value (String.Array attribute, JSON array in the body) matches when any element does.
  const candidates = Array.isArray(value) ? value : [value];
  return candidates.some((candidate) =>
    isPlainObject(condition) ? matchesOperator(condition, candidate) : candidate === condition,
  );
}

function matchesOperator(condition: Record<string, unknown>, value: unknown): boolean {
  const [operator, argument] = Object.entries(condition)[0] ?? [];
  const text = typeof value === 'string' ? value : undefined;
  switch (operator) {
    case 'prefix':
      return text !== undefined && text.startsWith(String(argument));
    case 'suffix':
      return text !== undefined && text.endsWith(String(argument));
    case 'equals-ignore-case':
      return text !== undefined && text.toLowerCase() === String(argument).toLowerCase();
    case 'anything-but':
      if (isPlainObject(argument)) return !matchesOperator(argument, value);
      return !(Array.isArray(argument) ? argument : [argument]).includes(value);
    case 'numeric':
      return typeof value === 'number' && matchesNumeric(Array.isArray(argument) ? argument : [], value);
    default:
      return false;
  }
}

/** `["=", 5]`, `[">", 0, "<=", 10]`: every comparison must hold. */
function matchesNumeric(comparisons: unknown[], value: number): boolean {
  for (let i = 0; i + 1 < comparisons.length; i += 2) {
    const bound = Number(comparisons[i + 1]);
    const holds = {
      '=': value === bound,
      '<': value < bound,
      '<=': value <= bound,
      '>': value > bound,
      '>=': value >= bound,
    }[String(comparisons[i])];
    if (!holds) return false;
  }
  return comparisons.length >= 2;
}

/** The values a filter policy sees: message attributes by default, the JSON body with FilterPolicyScope=MessageBody. */
function filterData(subscription: SubscriptionRecord, publication: Publication): unknown {
  if (subscription.attributes.FilterPolicyScope === 'MessageBody') {
    try {
      return JSON.parse(publication.messageFor(subscription.protocol));
    } catch {
      return undefined;
    }
  }
  return Object.fromEntries(
    publication.attributes.map((attribute) => {
      const value = attribute.stringValue;
      if (attribute.dataType.startsWith('Number')) return [attribute.name, Number(value)];
      if (attribute.dataType === 'String.Array') {
        try {
          return [attribute.name, JSON.parse(value ?? '')];
        } catch {
          return [attribute.name, value];
        }
      }
      return [attribute.name, value];
    }),
  );
}

export function passesFilter(subscription: SubscriptionRecord, publication: Publication): boolean {
  const policy = subscription.attributes.FilterPolicy;
  if (!policy) return true;
  return matchesPolicy(parseFilterPolicy(policy), filterData(subscription, publication));
}
