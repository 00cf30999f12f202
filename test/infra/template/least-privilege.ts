/**
 * The synthesized template read as an attacker holding one function's credentials would use
 * them (test/support/iam-policy.ts evaluates its statements as IAM does): no role may write an
 * item outside the partitions it owns, or an attribute its operation does not write. Rename's
 * role cannot rewrite a record's topicArn, nor any role but create's the idempotency records that
 * hold create's answers, nor any but the dispatcher's the delivery records. The topics the roles
 * reach are those of a prefix unique to the stack.
 */
import { stackTopicPrefix } from '../../../infra/aws/deployment-settings';
import { DYNAMODB_WRITES } from '../../../infra/aws/operation-permissions';
import { ATTEMPTS_RECORDER, DEAD_LETTER_RECORDER, DISPATCHER, OPERATIONS, RECONCILER, RETRY_SWEEPER } from '../../../shared/operations';
import { idempotencyPartitionOf, retryDuePartitionOf } from '../../../shared/data/table';
import { deliveryPartitionOf } from '../../../shared/data/delivery-progress';
import { logicalIdOf, REQUIRED_CONTEXT, serviceApp } from '../../support/cdk-app';
import { resources, stack } from '../../support/synthesized-stack';
import { evaluate, type Request, type Statement } from '../../support/iam-policy';


const tableArn = () => ({ 'Fn::GetAtt': [logicalIdOf(stack, stack.table), 'Arn'] });

/** Every function's name and role statements. */
function roles(): [string, Statement[]][] {
  const functions = [
    ...OPERATIONS.map((op) => [op.handler, stack.functions.get(op.id)!] as const),
    [DISPATCHER.handler, stack.delivery.dispatcher] as const,
    [DEAD_LETTER_RECORDER.handler, stack.delivery.recorder] as const,
    [ATTEMPTS_RECORDER.handler, stack.attempts.consumer] as const,
    [RECONCILER.handler, stack.reconciliation.reconciler] as const,
    [RETRY_SWEEPER.handler, stack.retries.sweeper] as const,
  ];
  return functions.map(([name, fn]) => {
    const roleId = logicalIdOf(stack, fn.role);
    const statements = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::IAM::Policy' && resource.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
    return [name, statements];
  });
}

/** A write to the table, naming the item's partition and the attributes of the request. */
const write = (action: string, partition: string, attributes: string[]): Request => ({
  action,
  resource: tableArn(),
  context: { 'dynamodb:LeadingKeys': [partition], 'dynamodb:Attributes': ['portalId', 'sk', ...attributes] },
});

const writesOf = (statements: Statement[]) =>
  [...new Set(statements.flatMap((statement) => [statement.Action].flat()).filter((action) => DYNAMODB_WRITES.includes(action)))];

describe('every role that may write to the table', () => {
  it('has each of its write grants held to partitions by dynamodb:LeadingKeys', () => {
    const unheld: string[] = [];
    for (const [name, statements] of roles()) {
      for (const statement of statements) {
        const writes = [statement.Action].flat().filter((action) => DYNAMODB_WRITES.includes(action));
        const keys = Object.values(statement.Condition ?? {}).flatMap((condition) => Object.keys(condition));
        if (writes.length > 0 && !keys.includes('dynamodb:LeadingKeys')) unheld.push(`${name}: ${writes.join(' ')}`);
      }
    }
    expect(unheld).toEqual([]);
  });

  it.each(['idempotency', 'delivery'])('cannot write an item of the %s records, unless it is the role that keeps them', (kind) => {
    const reached: string[] = [];
    for (const [name, statements] of roles()) {
      // Create keeps its own idempotency records, the dispatcher the delivery records.
      const owner = kind === 'idempotency' ? 'createSubscription' : 'dispatchPortalEvents';
      const partition = kind === 'idempotency' ? idempotencyPartitionOf(name === 'createSubscription' ? 'renameSubscriptionRoute' : 'createSubscriptionRoute') : deliveryPartitionOf('e-1');
      for (const action of writesOf(statements)) {
        const verdict = evaluate(statements, write(action, partition, ['topicArn', 'record']));
        if (verdict === 'allowed' && name !== owner) reached.push(`${name} ${action} ${partition}`);
      }
    }
    expect(reached).toEqual([]);
  });

  it('cannot write the retry sweep\'s due work, unless it is the recorder (puts it, deletes an evicted one\'s retry), replay (deletes a retry) or the sweep (claims and deletes it, puts a retry\'s settle)', () => {
    const partition = retryDuePartitionOf(3);
    const reached: string[] = [];
    for (const [name, statements] of roles()) {
      for (const action of writesOf(statements)) {
        if (evaluate(statements, write(action, partition, [])) === 'allowed') reached.push(`${name} ${action}`);
      }
    }
    expect(reached.sort()).toEqual([
      'recordDeadLetters dynamodb:DeleteItem',
      'recordDeadLetters dynamodb:PutItem',
      'replayDeadLetters dynamodb:DeleteItem',
      'retryDeadLetters dynamodb:DeleteItem',
      'retryDeadLetters dynamodb:PutItem',
      'retryDeadLetters dynamodb:UpdateItem',
    ]);
    // Nor do the sweep's claims reach beyond their own attributes: due work is never rewritten to another dead letter.
    const sweeper = new Map(roles()).get('retryDeadLetters')!;
    expect(evaluate(sweeper, write('dynamodb:UpdateItem', partition, ['claimedUntil', 'claimedBy']))).toBe('allowed');
    expect(evaluate(sweeper, write('dynamodb:UpdateItem', partition, ['letterSk']))).toBe('not allowed');
  });

  it('may write, in a portal\'s partition, only the attributes its operation writes', () => {
    const byRole = new Map(roles());
    const allowed = (name: string, attributes: string[]) => evaluate(byRole.get(name)!, write('dynamodb:UpdateItem', 'portal-a', attributes));

    // Prepare: what each role writes is allowed (so the refusals below are not of everything).
    expect(allowed('renameSubscription', ['name'])).toBe('allowed');
    expect(allowed('updateSubscription', ['events'])).toBe('allowed');
    expect(allowed('activateSubscription', ['status'])).toBe('allowed');
    expect(allowed('listSubscriptions', ['subscriptionArn', 'subscriptionState', 'subscriptionStateAt'])).toBe('allowed');
    expect(allowed('confirmSubscription', ['subscriptionArn', 'subscriptionState', 'subscriptionStateAt'])).toBe('allowed');

    // Act + Assess: pointing a record at another topic, or reviving a deactivated one.
    expect(allowed('renameSubscription', ['name', 'topicArn'])).toBe('not allowed');
    expect(allowed('updateSubscription', ['events', 'status'])).toBe('not allowed');
    expect(allowed('activateSubscription', ['subscriptionArn'])).toBe('not allowed');
    expect(allowed('listSubscriptions', ['topicArn'])).toBe('not allowed');
    expect(allowed('confirmSubscription', ['endpoint'])).toBe('not allowed');
    expect(allowed('reconcileTopics', ['events'])).toBe('not allowed');
    // The sweep disables a failing subscription and retries its dead letters, but cannot repoint or rename it.
    expect(allowed('retryDeadLetters', ['status', 'disabledReason', 'disabledAt', 'failingSince'])).toBe('allowed');
    // Nor forge a success: the last delivery is the attempts consumer's to write.
    expect(allowed('retryDeadLetters', ['lastDeliveredAt'])).toBe('not allowed');
    expect(allowed('retryDeadLetters', ['topicArn'])).toBe('not allowed');
    expect(allowed('retryDeadLetters', ['events'])).toBe('not allowed');
    expect(allowed('activateSubscription', ['status', 'disabledReason', 'disabledAt', 'failingSince'])).toBe('allowed');
  });
});

describe('the topics IAM reaches', () => {
  const configId = '0190a5b2-6c3d-7e4f-8a9b-0c1d2e3f4a5b';
  /** Whether a grant on `<prefix>-*` (as the stack writes its topic pattern) reaches the topic named `name`. */
  const reaches = (prefix: string, name: string) => evaluate([{ Effect: 'Allow', Action: 'sns:Subscribe', Resource: `arn:aws:sns:eu-west-1:123456789012:${prefix}-*` }], {
    action: 'sns:Subscribe',
    resource: `arn:aws:sns:eu-west-1:123456789012:${name}`,
    context: {},
  }) === 'allowed';

  it('are only those of a prefix unique to the stack, unless the operator sets one', () => {
    const staging = stackTopicPrefix(`${stack.stackName}-staging`);

    // Its own topics, and no other stack's, nor those of a deployment on the old default `webhooks`, nor anyone's.
    expect(stack.topicPrefix).toBe(stackTopicPrefix(stack.stackName));
    expect(reaches(stack.topicPrefix, `${stack.topicPrefix}-${configId}`)).toBe(true);
    expect(reaches(stack.topicPrefix, `${staging}-${configId}`)).toBe(false);
    expect(reaches(staging, `${stack.topicPrefix}-${configId}`)).toBe(false);
    expect(reaches(stack.topicPrefix, `webhooks-${configId}`)).toBe(false);
    expect(reaches(stack.topicPrefix, 'orders')).toBe(false);
    // The pattern every grant on topics is written with.
    const topicGrants = roles().flatMap(([, statements]) => statements).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('sns:')));
    const resourcesGranted = new Set(topicGrants.map((statement) => JSON.stringify(statement.Resource)));
    expect([...resourcesGranted].filter((resource) => resource !== '"*"').map((resource) => resource.includes(`:${stack.topicPrefix}-*`))).toEqual([true]);
  });

  it('keeps a prefix the operator set (-c topicPrefix=...)', () => {
    expect(serviceApp({ bundle: false, context: { ...REQUIRED_CONTEXT, topicPrefix: 'webhooks' } }).stack.topicPrefix).toBe('webhooks');
  });
});

describe("a record's topic", () => {
  const topicWrite = (action: string) => write(action, 'portal-a', ['topicArn']);

  it('may be written (or named in a condition, which IAM cannot tell apart) only by create and the reconciler', () => {
    const reached: string[] = [];
    for (const [name, statements] of roles()) {
      for (const action of writesOf(statements)) {
        if (evaluate(statements, topicWrite(action)) === 'allowed') reached.push(`${name} ${action}`);
      }
    }
    expect([...new Set(reached.map((entry) => entry.split(' ')[0]))].sort()).toEqual(['createSubscription', 'reconcileTopics']);
  });

  it("is out of reach of the attempts consumer, the recorder, replay and delete, which may write only their own kinds' attributes", () => {
    const byRole = new Map(roles());
    const allowed = (name: string, attributes: string[]) => evaluate(byRole.get(name)!, write('dynamodb:UpdateItem', 'portal-a', attributes));

    // Prepare: what each writes is allowed.
    expect(allowed('recordDeliveryAttempts', ['lastDeliveredAt', 'attemptsDelivered@2026-11-28T10'])).toBe('allowed');
    expect(allowed('recordDeadLetters', ['lastDeadLetterAt', 'deadLetters@2026-11-28'])).toBe('allowed');
    expect(allowed('replayDeadLetters', ['replayClaimedUntil', 'replayClaimedBy'])).toBe('allowed');
    expect(allowed('deleteSubscription', ['subscriptionCount'])).toBe('allowed');

    // Act + Assess: none reaches the record's delivery or another kind's attributes.
    for (const name of ['recordDeliveryAttempts', 'recordDeadLetters', 'replayDeadLetters', 'deleteSubscription', 'confirmSubscription', 'retryDeadLetters']) {
      expect([name, allowed(name, ['topicArn'])]).toEqual([name, 'not allowed']);
      expect([name, allowed(name, ['status', 'events'])]).toEqual([name, 'not allowed']);
    }
    expect(allowed('recordDeliveryAttempts', ['failingSince'])).toBe('not allowed');
    expect(allowed('recordDeadLetters', ['lastDeliveredAt'])).toBe('not allowed');
  });
});
