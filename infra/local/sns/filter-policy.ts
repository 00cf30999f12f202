/**
 * Subscription filter policies: checked when a policy is set and applied to each publication,
 * by the service's own validator and evaluator of SNS's filter-policy language
 * (shared/filters/filter-policy.ts), so the emulator and the dispatcher give the same verdicts
 * (test/delivery/filter-policy.test.ts runs AWS's examples through both).
 */
import { type FilterPolicy, type FilterProblem, type FilterRefusal, filterMatches, filterPolicyProblem } from '../../../shared/filters/filter-policy';
import { invalidParameter } from './errors';
import type { Publication, SubscriptionRecord } from './types';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * SNS's words for each refusal, as SNS answers them (recorded against AWS in LocalStack's
 * snapshots, tests/aws/services/sns/test_sns_filter_policy.snapshot.json of localstack/localstack).
 */
const SNS_WORDS: Record<FilterRefusal, (name: string) => string> = {
  notObject: () => 'must be a JSON object',
  tooLarge: () => 'too large',
  tooManyKeys: () => 'Filter policy can not have more than 5 keys',
  tooComplex: () => 'Filter policy is too complex',
  emptyList: () => 'Empty arrays are not allowed',
  notList: (key) => `"${key}" must be an object or an array`,
  matchValue: () => 'Match value must be String, number, true, false, or null',
  oneOperator: () => 'Only one key allowed in match expression',
  notString: (operator) => `${operator} match pattern must be a string`,
  notBoolean: () => 'exists match pattern must be either true or false.',
  anythingBut: (inner) => `Unsupported anything-but pattern: ${inner}`,
  unknownOperator: (operator) => `Unrecognized match type ${operator}`,
  numericEmpty: () => 'Invalid member in numeric match: ]',
  numericOperator: (operator) => `Unrecognized numeric range operator: ${operator}`,
  numericValue: (operator) => `Value of ${operator === '=' ? 'equals' : operator} must be numeric`,
  numericTooMany: () => 'Too many elements in numeric expression',
  numericUpper: (operator) => `Bad numeric range operator: ${operator}`,
  numericBottom: () => 'Bottom must be less than top',
  numericTerms: () => 'Too many terms in numeric range expression',
};

/** A refusal as SNS words it: "FilterPolicy: Unrecognized match type regex". */
export const snsWordsOf = ({ refusal, name = '' }: FilterProblem) => `FilterPolicy: ${SNS_WORDS[refusal](name)}`;

/** Checks a FilterPolicy when it is set, refused in SNS's words ("FilterPolicy: ..."). */
export function parseFilterPolicy(text: string): FilterPolicy {
  let policy: unknown;
  try {
    policy = JSON.parse(text);
  } catch {
    throw invalidParameter('FilterPolicy: failed to parse JSON');
  }
  const problem = filterPolicyProblem(policy);
  if (problem) throw invalidParameter(snsWordsOf(problem));
  return policy as FilterPolicy;
}

/** The values a filter policy sees: message attributes by default, the JSON body with FilterPolicyScope=MessageBody. */
export function filterData(subscription: Pick<SubscriptionRecord, 'attributes' | 'protocol'>, publication: Pick<Publication, 'messageFor' | 'attributes'>): unknown {
  if (subscription.attributes.FilterPolicyScope === 'MessageBody') {
    try {
      return JSON.parse(publication.messageFor(subscription.protocol));
    } catch {
      // "Filter policies for the message body assume that the message payload is a well-formed JSON object."
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

/** Parsed policies by their text: a publication to many subscriptions parses each policy once. */
const parsedPolicies = new Map<string, FilterPolicy>();

export function passesFilter(subscription: Pick<SubscriptionRecord, 'attributes' | 'protocol'>, publication: Pick<Publication, 'messageFor' | 'attributes'>): boolean {
  const text = subscription.attributes.FilterPolicy;
  if (!text) return true;
  let policy = parsedPolicies.get(text);
  if (!policy) {
    policy = parseFilterPolicy(text);
    if (parsedPolicies.size > 1000) parsedPolicies.clear();
    parsedPolicies.set(text, policy);
  }
  const data = filterData(subscription, publication);
  return isPlainObject(data) && filterMatches(policy, data);
}
