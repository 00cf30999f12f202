/**
 * Subscription filter policies: checked when a policy is set and applied to each publication,
 * by the service's own validator and evaluator of SNS's filter-policy language
 * (shared/filters/filter-policy.ts), so the emulator and the dispatcher give the same verdicts
 * (test/delivery/filter-policy.test.ts runs AWS's examples through both).
 */
import { type FilterPolicy, filterMatches, filterPolicyProblem } from '../../../shared/filters/filter-policy';
import { invalidParameter } from './errors';
import type { Publication, SubscriptionRecord } from './types';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a FilterPolicy when it is set, refused in SNS's words ("FilterPolicy: ..."). */
export function parseFilterPolicy(text: string): FilterPolicy {
  let policy: unknown;
  try {
    policy = JSON.parse(text);
  } catch {
    throw invalidParameter('FilterPolicy: failed to parse JSON');
  }
  const problem = filterPolicyProblem(policy);
  if (problem) throw invalidParameter(problem.sns);
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
