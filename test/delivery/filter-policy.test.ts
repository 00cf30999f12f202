/**
 * SNS's filter-policy language, as a table of AWS's own examples: every message-body example of
 * the SNS Developer Guide's filter-policy pages with the verdict the page states, run against the
 * service's evaluator (shared/filters/filter-policy.ts, what the dispatcher and POST /test-filter
 * apply) and against the SNS emulator's filter policies with FilterPolicyScope MessageBody
 * (infra/local/sns/filter-policy.ts, as a Publish applies them), which must agree on every case.
 * Then the policies SNS refuses, refused by both with the part and the reason.
 */
import { filterMatches, filterMiss, filterPolicyProblem, placeOf, type FilterPolicy } from '../../shared/filters/filter-policy';
import { parseFilterPolicy, passesFilter, snsWordsOf } from '../../infra/local/sns/filter-policy';

const GUIDE = 'https://docs.aws.amazon.com/sns/latest/dg';
const STRING = `${GUIDE}/string-value-matching.html`;
const NUMERIC = `${GUIDE}/numeric-value-matching.html`;
const KEYS = `${GUIDE}/attribute-key-matching.html`;
const AND_OR = `${GUIDE}/and-or-logic.html`;
const EXAMPLES = `${GUIDE}/example-filter-policies.html`;
const CONSTRAINTS = `${GUIDE}/subscription-filter-policy-constraints.html`;

type Case = [page: string, policy: FilterPolicy, body: Record<string, unknown>, matches: boolean];

const interests = (value: unknown) => ({ customer_interests: value });
/** The example message of "Amazon SNS example filter policies", as a message body. */
const TRANSACTION = { customer_interests: ['soccer', 'rugby', 'hockey'], store: 'example_corp', event: 'order_placed', price_usd: 210.75 };
const CLOUDWATCH_OR = {
  source: ['aws.cloudwatch'],
  $or: [{ metricName: ['CPUUtilization', 'ReadLatency'] }, { namespace: ['AWS/EC2', 'AWS/ES'] }],
};

const CASES: Case[] = [
  // String value matching: exact, anything-but (a list, a prefix), prefix, suffix, equals-ignore-case.
  [STRING, interests(['rugby', 'tennis']), interests('rugby'), true],
  [STRING, interests(['rugby', 'tennis']), interests('tennis'), true],
  [STRING, interests(['rugby', 'tennis']), interests('baseball'), false],
  [STRING, interests([{ 'anything-but': ['rugby', 'tennis'] }]), interests('baseball'), true],
  [STRING, interests([{ 'anything-but': ['rugby', 'tennis'] }]), interests('football'), true],
  // "because it contains a value that isn't rugby or tennis" (the String.Array example, as a body array).
  [STRING, interests([{ 'anything-but': ['rugby', 'tennis'] }]), interests(['rugby', 'baseball']), true],
  [STRING, interests([{ 'anything-but': ['rugby', 'tennis'] }]), interests('rugby'), false],
  [STRING, { event: [{ 'anything-but': { prefix: 'order-' } }] }, { event: 'data-entry' }, true],
  [STRING, { event: [{ 'anything-but': { prefix: 'order-' } }] }, { event: 'order_number' }, true],
  [STRING, { event: [{ 'anything-but': { prefix: 'order-' } }] }, { event: 'order-cancelled' }, false],
  [STRING, interests([{ prefix: 'bas' }]), interests('baseball'), true],
  [STRING, interests([{ prefix: 'bas' }]), interests('basketball'), true],
  [STRING, interests([{ prefix: 'bas' }]), interests('rugby'), false],
  [STRING, interests([{ suffix: 'ball' }]), interests('baseball'), true],
  [STRING, interests([{ suffix: 'ball' }]), interests('basketball'), true],
  [STRING, interests([{ suffix: 'ball' }]), interests('rugby'), false],
  [STRING, interests([{ 'equals-ignore-case': 'tennis' }]), interests('TENNIS'), true],
  [STRING, interests([{ 'equals-ignore-case': 'tennis' }]), interests('Tennis'), true],
  [STRING, interests([{ 'equals-ignore-case': 'tennis' }]), interests('baseball'), false],
  // Numeric value matching: exact (301.5 and 3.015e2 are one number in JSON), anything-but, ranges.
  [NUMERIC, { price_usd: [{ numeric: ['=', 301.5] }] }, { price_usd: 301.5 }, true],
  [NUMERIC, { price_usd: [{ numeric: ['=', 301.5] }] }, JSON.parse('{"price_usd": 3.015e2}'), true],
  [NUMERIC, { price: [{ 'anything-but': [100, 500] }] }, { price: 101 }, true],
  [NUMERIC, { price: [{ 'anything-but': [100, 500] }] }, { price: 100.1 }, true],
  [NUMERIC, { price: [{ 'anything-but': [100, 500] }] }, { price: [100, 50] }, true],
  [NUMERIC, { price: [{ 'anything-but': [100, 500] }] }, { price: 100 }, false],
  // "matches any message body property with negative numeric values"
  [NUMERIC, { price_usd: [{ numeric: ['<', 0] }] }, { price_usd: -0.5 }, true],
  [NUMERIC, { price_usd: [{ numeric: ['<', 0] }] }, { price_usd: 0 }, false],
  // "matches ... positive numbers up to and including 150"
  [NUMERIC, { price_usd: [{ numeric: ['>', 0, '<=', 150] }] }, { price_usd: 150 }, true],
  [NUMERIC, { price_usd: [{ numeric: ['>', 0, '<=', 150] }] }, { price_usd: 0 }, false],
  [NUMERIC, { price_usd: [{ numeric: ['>', 0, '<=', 150] }] }, { price_usd: 150.5 }, false],
  // Key matching: exists true and false.
  [KEYS, { store: [{ exists: true }] }, { store: 'fans', customer_interests: ['baseball', 'basketball'] }, true],
  [KEYS, { store: [{ exists: true }] }, { customer_interests: ['baseball', 'basketball'] }, false],
  [KEYS, { store: [{ exists: false }] }, { store: 'fans', customer_interests: ['baseball', 'basketball'] }, false],
  [KEYS, { store: [{ exists: false }] }, { customer_interests: ['baseball', 'basketball'] }, true],
  // AND/OR logic: several keys (AND), several values (OR), the $or operator.
  [AND_OR, { customer_interests: ['rugby'], price_usd: [{ numeric: ['>', 100] }] }, { customer_interests: 'rugby', price_usd: 100.5 }, true],
  [AND_OR, { customer_interests: ['rugby'], price_usd: [{ numeric: ['>', 100] }] }, { customer_interests: 'rugby', price_usd: 100 }, false],
  [AND_OR, { customer_interests: ['rugby'], price_usd: [{ numeric: ['>', 100] }] }, { customer_interests: 'tennis', price_usd: 200 }, false],
  [AND_OR, interests(['rugby', 'football', 'baseball']), interests('football'), true],
  [AND_OR, interests(['rugby', 'football', 'baseball']), interests('tennis'), false],
  // "(source AND metricName) OR (source AND namespace)"
  [AND_OR, CLOUDWATCH_OR, { source: 'aws.cloudwatch', metricName: 'ReadLatency' }, true],
  [AND_OR, CLOUDWATCH_OR, { source: 'aws.cloudwatch', namespace: 'AWS/EC2' }, true],
  [AND_OR, CLOUDWATCH_OR, { source: 'aws.cloudwatch', metricName: 'DiskReadOps', namespace: 'AWS/RDS' }, false],
  [AND_OR, CLOUDWATCH_OR, { source: 'aws.ec2', metricName: 'CPUUtilization' }, false],
  // Example filter policies: the policy that accepts the example message, and the one that rejects it.
  [
    EXAMPLES,
    { store: ['example_corp'], event: [{ 'anything-but': 'order_cancelled' }], customer_interests: ['rugby', 'football', 'baseball'], price_usd: [{ numeric: ['>=', 100] }] },
    TRANSACTION,
    true,
  ],
  [EXAMPLES, { store: ['example_corp'], event: ['order_cancelled'], encrypted: [false], customer_interests: ['basketball', 'baseball'] }, TRANSACTION, false],
  // Filter policy constraints: nested keys (payload-based policies support nesting).
  [CONSTRAINTS, { key_a: { key_b: { key_c: ['value_one', 'value_two'] } } }, { key_a: { key_b: { key_c: 'value_two' } } }, true],
  [CONSTRAINTS, { key_a: { key_b: { key_c: ['value_one', 'value_two'] } } }, { key_a: { key_c: 'value_two' } }, false],
];

/** The emulator's verdict: a MessageBody-scoped subscription with this policy, and a Publish of this body. */
const emulatorPasses = (policy: FilterPolicy, body: unknown) =>
  passesFilter(
    { protocol: 'sqs', attributes: { FilterPolicy: JSON.stringify(policy), FilterPolicyScope: 'MessageBody' } },
    { messageFor: () => JSON.stringify(body), attributes: [] },
  );

describe('AWS\'s filter-policy examples', () => {
  it.each(CASES.map(([page, policy, body, matches]) => [page.slice(GUIDE.length + 1), JSON.stringify(policy), JSON.stringify(body), matches, policy, body] as const))(
    '%s: %s on %s matches: %s',
    (_page, _policyText, _bodyText, matches, policy, body) => {
      expect(filterPolicyProblem(policy)).toBeUndefined();
      expect(filterMatches(policy, body)).toBe(matches);
      expect(emulatorPasses(policy, body)).toBe(matches);
    },
  );

  it('names the key that decided a miss', () => {
    expect(filterMiss({ brand: ['acme'], size: [{ numeric: ['>', 1000] }] }, { brand: 'acme', size: 10 })).toEqual({ key: 'size' });
    expect(filterMiss({ asset: { brand: [{ prefix: 'ac' }] } }, { asset: { brand: 'other' } })).toEqual({ key: 'asset.brand' });
    expect(filterMiss(CLOUDWATCH_OR, { source: 'aws.cloudwatch' })).toEqual({ key: '$or(metricName | namespace)' });
    expect(filterMiss({ brand: ['acme'] }, { brand: 'acme' })).toBeUndefined();
  });
});

describe('policies SNS refuses', () => {
  const sixKeys = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((key) => [key, ['x']]));
  // 4 x 4 x 2 x 5 = 160 combinations: over 150 ("Filter policy constraints").
  const tooComplex = { a: ['1', '2', '3', '4'], b: ['1', '2', '3', '4'], c: ['1', '2'], d: ['1', '2', '3', '4', '5'] };
  it.each([
    ['an unknown operator', { brand: [{ regex: 'a.*' }] }, 'filter.brand[0].regex', /not an operator/, 'FilterPolicy: Unrecognized match type regex'],
    ['more than five keys', sixKeys, 'filter', /has 6 keys; a filter may have at most 5/, 'FilterPolicy: Filter policy can not have more than 5 keys'],
    ['over 150 combinations', tooComplex, 'filter', /160 combinations/, 'FilterPolicy: Filter policy is too complex'],
    ['a value not in a list', { brand: 'acme' }, 'filter.brand', /must be a list/, 'FilterPolicy: "brand" must be an object or an array'],
    ['an empty list', { brand: [] }, 'filter.brand', /empty list/, 'FilterPolicy: Empty arrays are not allowed'],
    ['two operators in one condition', { brand: [{ prefix: 'a', suffix: 'b' }] }, 'filter.brand[0]', /exactly one operator/, 'FilterPolicy: Only one key allowed in match expression'],
    ['a list inside a list', { brand: [['acme']] }, 'filter.brand[0]', /must be a string, a number/, 'FilterPolicy: Match value must be String, number, true, false, or null'],
    ['a prefix that is not a string', { brand: [{ prefix: 1 }] }, 'filter.brand[0].prefix', /must be a string/, 'FilterPolicy: prefix match pattern must be a string'],
    ['exists that is not a boolean', { brand: [{ exists: 'yes' }] }, 'filter.brand[0].exists', /true or false/, 'FilterPolicy: exists match pattern must be either true or false.'],
    ['an unknown numeric operator', { size: [{ numeric: ['!=', 1] }] }, 'filter.size[0].numeric[0]', /must be one of/, 'FilterPolicy: Unrecognized numeric range operator: !='],
    ['a numeric bound that is not a number', { size: [{ numeric: ['>', '1000'] }] }, 'filter.size[0].numeric[1]', /must be a number/, 'FilterPolicy: Value of > must be numeric'],
    ['a range upside down', { size: [{ numeric: ['>', 10, '<', 5] }] }, 'filter.size[0].numeric', /lower bound below/, 'FilterPolicy: Bottom must be less than top'],
    ['anything-but with suffix', { kind: [{ 'anything-but': { suffix: '.tmp' } }] }, 'filter.kind[0].anything-but', /nothing else/, 'FilterPolicy: Unsupported anything-but pattern: suffix'],
  ])('%s, named with its place and reason, and in SNS\'s words by the emulator', (_, policy, place, reason, snsWords) => {
    const problem = filterPolicyProblem(policy)!;
    expect(placeOf('filter', problem.at)).toBe(place);
    expect(problem.problem).toMatch(reason);
    expect(snsWordsOf(problem)).toBe(snsWords);
    expect(() => parseFilterPolicy(JSON.stringify(policy))).toThrow(`Invalid parameter: ${snsWords}`);
  });

  it('counts nested keys by their depth and adds up $or branches, as SNS\'s constraints page does', () => {
    // The page's nested example: 3 x 4 x 2 x 3 = 72.
    const nested = { key_a: { key_b: { key_c: ['v1', 'v2', 'v3', 'v4'] } }, key_d: { key_e: ['v1', 'v2', 'v3'] } };
    expect(filterPolicyProblem(nested)).toBeUndefined();
    // Three levels deep, 51 values: 153 combinations.
    const deep = { a: { b: { c: Array.from({ length: 51 }, (_, index) => `v${index}`) } } };
    expect(filterPolicyProblem(deep)?.problem).toMatch(/153 combinations/);
    // The $or branches add up: 100 + 60 = 160.
    const branches = { $or: [{ a: Array.from({ length: 100 }, (_, index) => index) }, { b: Array.from({ length: 60 }, (_, index) => index) }] };
    expect(filterPolicyProblem(branches)?.problem).toMatch(/160 combinations/);
  });

  it('refuses a filter over our size limit, stated in its reason', () => {
    const large = { brand: Array.from({ length: 100 }, (_, index) => `brand-${index}-${'x'.repeat(200)}`) };
    expect(filterPolicyProblem(large)?.problem).toMatch(/bytes long; a filter may have at most 16384/);
  });
});
