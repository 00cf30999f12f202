/**
 * A small evaluator of IAM policy statements, enough to read the synthesized template the way
 * IAM would for the requests the suites make up: an explicit Deny wins, else an Allow is needed
 * ("Policy evaluation logic", IAM User Guide). It knows the condition operators the stack uses,
 * with IAM's rules for a key the request lacks (a `...Not...` operator matches it, any other does
 * not; `ForAllValues` matches an absent or empty key) and `*`/`?` wildcards in `Like` operators.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- policy JSON */
export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: unknown;
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** A request as IAM sees it: who, what, and the values of its condition keys (multi-valued keys as arrays). */
export interface Request {
  action: string;
  /** The resource, as the statement writes it (an ARN, or the template's reference to one); undefined matches any. */
  resource?: unknown;
  /** `{ AWS: arn }` or `{ Service: 'sns.amazonaws.com' }`, for resource policies. */
  principal?: { AWS?: string; Service?: string };
  context: Record<string, string | string[] | undefined>;
}

const like = (pattern: string, value: string) =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's').test(value);

const OPERATORS: Record<string, (pattern: string, value: string) => boolean> = {
  StringEquals: (pattern, value) => pattern === value,
  StringLike: like,
  ArnEquals: (pattern, value) => pattern === value,
  ArnLike: like,
  Bool: (pattern, value) => pattern.toLowerCase() === value.toLowerCase(),
};

function conditionHolds(operator: string, key: string, patterns: string[], context: Request['context']): boolean {
  const forAll = operator.startsWith('ForAllValues:');
  const forAny = operator.startsWith('ForAnyValue:');
  const bare = operator.replace(/^For(All|Any)Values?:/, '').replace(/IfExists$/, '');
  const negated = /^(String|Arn)Not/.test(bare);
  const base = OPERATORS[bare.replace('Not', '')];
  if (!base) throw new Error(`condition operator ${operator} is unknown to this evaluator`);
  const raw = context[key];
  const values = raw === undefined ? [] : [raw].flat();
  const matches = (value: string) => {
    const any = patterns.some((pattern) => base(pattern, value));
    return negated ? !any : any;
  };
  if (forAll) return values.every(matches);
  if (forAny) return values.some(matches);
  if (values.length === 0) return operator.endsWith('IfExists') || negated;
  return values.some(matches);
}

function statementApplies(statement: Statement, request: Request): boolean {
  const actions = [statement.Action].flat();
  if (!actions.some((action) => like(action, request.action))) return false;
  if (request.resource !== undefined && statement.Resource !== undefined) {
    const resources = [statement.Resource].flat();
    const matches = resources.some((resource) =>
      typeof resource === 'string' && typeof request.resource === 'string' ? like(resource, request.resource) : JSON.stringify(resource) === JSON.stringify(request.resource),
    );
    if (!matches) return false;
  }
  if (statement.Principal !== undefined && statement.Principal !== '*') {
    const principal = statement.Principal as { AWS?: unknown; Service?: unknown };
    const named = [...[principal.AWS ?? []].flat(), ...[principal.Service ?? []].flat()];
    const requester = request.principal?.AWS ?? request.principal?.Service;
    if (named.includes('*') ? false : !named.some((entry) => JSON.stringify(entry) === JSON.stringify(requester) || entry === requester)) return false;
  }
  return Object.entries(statement.Condition ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, patterns]) => conditionHolds(operator, key, [patterns].flat().map(String), request.context)),
  );
}

/** 'allowed', 'denied' (an explicit Deny) or 'not allowed' (no Allow applies). */
export function evaluate(statements: readonly Statement[], request: Request): 'allowed' | 'denied' | 'not allowed' {
  const applying = statements.filter((statement) => statementApplies(statement, request));
  if (applying.some((statement) => statement.Effect === 'Deny')) return 'denied';
  return applying.some((statement) => statement.Effect === 'Allow') ? 'allowed' : 'not allowed';
}
