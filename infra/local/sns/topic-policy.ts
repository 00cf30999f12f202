/**
 * A topic's access policy (its `Policy` attribute), as far as the emulator enforces it: checked
 * when set as SNS checks it (JSON, statements, only the actions a topic policy may name), then the Deny
 * statements, for Publish (and PublishBatch, which SNS authorizes as Publish) and Subscribe. The emulator models no IAM: a request's principal is the role its
 * SigV4 access key id names (localPrincipalArn, infra/aws/local-account.ts), and whatever no
 * Deny refuses is allowed, as for a principal of the topic's account whose IAM policies allow
 * it. So a policy that denies Publish to every principal but some is enforced as on AWS, and
 * an Allow statement grants nothing beyond that (docs/local.md, "How local differs from AWS").
 *
 * Conditions are evaluated for the operators String(Not)Equals, String(Not)Like, Arn(Not)Equals
 * and Arn(Not)Like on the keys aws:PrincipalArn and aws:PrincipalAccount, and Bool on
 * aws:SecureTransport, which is taken as true: the local API is plain HTTP on loopback by design
 * (the SDK and CLI are pointed at http://127.0.0.1), so a policy's deny of requests not made
 * over TLS is treated as not applicable locally rather than refusing every request. A Deny
 * statement with any other condition counts as matching: the emulator denies rather than allows
 * what it cannot judge.
 */
import { SnsError } from './errors';

interface Statement {
  Effect?: unknown;
  Principal?: unknown;
  Action?: unknown;
  Resource?: unknown;
  Condition?: unknown;
}

/** What a request is judged by: who sends it, what it does, on which topic. */
export interface PolicyRequest {
  principalArn: string;
  principalAccount: string;
  /** As IAM writes it, `sns:Publish`, `sns:Subscribe`. */
  action: string;
  resource: string;
}

/** The statements of a policy document, or InvalidParameter as SNS answers an unusable one. */
export function policyStatements(text: string): Statement[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new SnsError('InvalidParameter', 'Invalid parameter: Policy Error: failed to parse the policy JSON');
  }
  const statements = (document as { Statement?: unknown } | null)?.Statement;
  const list = Array.isArray(statements) ? statements : statements && typeof statements === 'object' ? [statements] : undefined;
  if (!list || list.some((statement) => typeof statement !== 'object' || statement === null)) {
    throw new SnsError('InvalidParameter', 'Invalid parameter: Policy Error: the policy has no Statement');
  }
  const outOfScope = (list as Statement[]).some((statement) => values(statement.Action).some((action) => !TOPIC_POLICY_ACTIONS.has(action.toLowerCase())));
  if (outOfScope) throw new SnsError('InvalidParameter', 'Invalid parameter: Policy statement action out of service scope!');
  return list as Statement[];
}

/**
 * The actions a topic policy may name ("Valid Amazon SNS policy actions", SNS Developer Guide,
 * https://docs.aws.amazon.com/sns/latest/dg/sns-access-policy-language-api-permissions-reference.html).
 * SNS refuses a policy naming any other, `sns:*` and the subscription and tag actions
 * (Unsubscribe, SetSubscriptionAttributes, TagResource, UntagResource) included, with
 * "Policy statement action out of service scope!" (the answer recorded in public issue threads,
 * e.g. hashicorp/terraform#12740); so a topic policy cannot deny those, and neither can it here.
 */
const TOPIC_POLICY_ACTIONS: ReadonlySet<string> = new Set(
  [
    'AddPermission',
    'DeleteTopic',
    'GetDataProtectionPolicy',
    'GetTopicAttributes',
    'ListSubscriptionsByTopic',
    'ListTagsForResource',
    'Publish',
    'PutDataProtectionPolicy',
    'RemovePermission',
    'SetTopicAttributes',
    'Subscribe',
  ].map((action) => `sns:${action}`.toLowerCase()),
);

const values = (value: unknown): string[] => [value].flat().filter((item): item is string => typeof item === 'string');

/** IAM's wildcards: `*` any run of characters, `?` one. */
function matchesPattern(pattern: string, text: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 'i').test(text);
}

function principalMatches(principal: unknown, request: PolicyRequest): boolean {
  if (principal === '*') return true;
  const aws = values((principal as { AWS?: unknown } | undefined)?.AWS);
  return aws.some(
    (entry) => entry === '*' || entry === request.principalArn || entry === request.principalAccount || entry === `arn:aws:iam::${request.principalAccount}:root`,
  );
}

const CONDITION_KEYS: Record<string, (request: PolicyRequest) => string> = {
  'aws:principalarn': (request) => request.principalArn,
  'aws:principalaccount': (request) => request.principalAccount,
  'aws:securetransport': () => 'true',
};

/** Whether every condition holds; undefined when one cannot be judged here. */
function conditionsHold(condition: unknown, request: PolicyRequest): boolean | undefined {
  if (condition === undefined) return true;
  if (typeof condition !== 'object' || condition === null) return undefined;
  for (const [operator, keys] of Object.entries(condition)) {
    const negated = /^(String|Arn)Not/.test(operator);
    const like = /Like$/.test(operator);
    const bool = operator === 'Bool';
    if (!(bool || /^(String|Arn)(Not)?(Equals|Like)$/.test(operator)) || typeof keys !== 'object' || keys === null) return undefined;
    for (const [key, expected] of Object.entries(keys)) {
      const read = CONDITION_KEYS[key.toLowerCase()];
      if (!read) return undefined;
      const actual = read(request);
      // Bool compares true/false whatever their case, and a policy may write them unquoted.
      const expectedValues = bool ? [expected].flat().map((value) => String(value).toLowerCase()) : values(expected);
      const anyMatches = expectedValues.some((value) => (like ? matchesPattern(value, actual) : value === actual));
      if (negated ? anyMatches : !anyMatches) return false;
    }
  }
  return true;
}

/** Whether a Deny statement of the topic's policy refuses the request. */
export function explicitlyDenied(policy: string, request: PolicyRequest): boolean {
  return policyStatements(policy).some(
    (statement) =>
      statement.Effect === 'Deny' &&
      principalMatches(statement.Principal, request) &&
      values(statement.Action).some((action) => matchesPattern(action, request.action)) &&
      values(statement.Resource ?? '*').some((resource) => matchesPattern(resource, request.resource)) &&
      conditionsHold(statement.Condition, request) !== false,
  );
}

/** SNS's answer to a request a topic policy denies. */
export function authorizationError(request: PolicyRequest): SnsError {
  const action = request.action.replace(/^sns:/i, 'SNS:');
  return new SnsError(
    'AuthorizationError',
    `User: ${request.principalArn} is not authorized to perform: ${action} on resource: ${request.resource} with an explicit deny`,
    403,
  );
}
