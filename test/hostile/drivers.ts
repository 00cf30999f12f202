/**
 * Per operation, for the hostile-input suite, whose portals start with the subscriptions of
 * seeding.ts: how to check an accepted request: the answer, exactly the change it asks for in
 * the table and SNS, nothing else, and the clean-up that keeps the portal under its limit.
 */
import { HostileFailure, type OperationDriver, expectState } from './checks';
import type { HostileHarness } from './harness';
import type { RawAnswer } from './raw-http';
import { createThrough, type PortalSeeds, SCRATCH_BODY, type Seeding } from './seeding';
import { canonical, itemKey, numberAttribute, type Snapshot, subscriptionSk } from './snapshot';
import type { HostileRequest, Ids, OperationName } from './requests';

function failAccepted(request: HostileRequest, answer: RawAnswer, why: string): never {
  throw new HostileFailure(`${why}\n  request: ${request.label}\n  answer: ${answer.status} ${answer.text.slice(0, 600)}`);
}

function expectKeys(request: HostileRequest, answer: RawAnswer, value: unknown, keys: readonly string[], what: string): asserts value is Record<string, unknown> {
  const actual = typeof value === 'object' && value !== null ? Object.keys(value).sort().join(',') : String(value);
  if (actual !== [...keys].sort().join(',')) failAccepted(request, answer, `${what} must have exactly ${keys.join(', ')}; it has ${actual}`);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A stored name: trimmed, 1-255 characters, no control characters, valid Unicode (docs/api.md). */
function nameFollowsRules(name: unknown): boolean {
  return (
    typeof name === 'string' &&
    name === name.trim() &&
    [...name].length >= 1 &&
    [...name].length <= 255 &&
    !/[\u0000-\u001f\u007f-\u009f]/.test(name) &&
    name.isWellFormed()
  );
}

/** `before` with one item's attributes replaced. */
function patched(before: Snapshot, key: string, changes: Record<string, unknown>): Snapshot {
  const item = before.items[key];
  if (item === undefined) throw new HostileFailure(`no item ${key} to change`);
  return { ...before, items: { ...before.items, [key]: JSON.stringify(canonical({ ...JSON.parse(item), ...changes })) } };
}

/** `base` with some items of `from` added, in the snapshot's order. */
function withItems(base: Snapshot, from: Snapshot, keys: readonly string[]): Snapshot {
  const items = { ...base.items };
  for (const key of keys) items[key] = from.items[key]!;
  const sorted = Object.fromEntries(Object.entries(items).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { ...base, items: sorted };
}

/** What the drivers share. */
interface DriverBase {
  readonly harness: HostileHarness;
  readonly seeding: Seeding;
  readonly protectedItems: Readonly<Record<string, string>>;
}

function checkStartOf({ protectedItems: items }: DriverBase) {
  return (state: Snapshot) => {
    for (const [key, item] of Object.entries(items)) {
      if (state.items[key] !== item) throw new HostileFailure(`item ${key} changed:\n  was ${item}\n  is  ${state.items[key]}`);
    }
  };
}

const idsOf = (portal: PortalSeeds): Ids => ({ scratch: portal.scratch?.configId, seeds: portal.seeds.map((seed) => seed.configId) });

export function createDriver(base: DriverBase): OperationDriver {
  const { harness, seeding } = base;
  const portalId = seeding.create.portalId;
  return {
    operation: 'create',
    token: harness.token('create'),
    readOnly: false,
    ids: () => idsOf(seeding.create),
    checkStart: checkStartOf(base),
    accepted: async (request, answer, before) => {
      const body = answer.json;
      expectKeys(request, answer, body, ['success', 'message', 'record'], 'the answer');
      const record = body.record;
      if (typeof record !== 'object' || record === null) failAccepted(request, answer, 'record must be an object');
      const r = record as Record<string, unknown>;
      const { name, endpoint, protocol, events } = request.expected;
      const configId = String(r.configId);
      const checks: [boolean, string][] = [
        [r.name === name, `name must be ${JSON.stringify(name)}`],
        [nameFollowsRules(r.name), 'the name must follow the rules'],
        [r.endpoint === endpoint, `endpoint must be ${JSON.stringify(endpoint)}`],
        [r.protocol === protocol, `protocol must be ${JSON.stringify(protocol)}`],
        [same(r.events, events), `events must be ${JSON.stringify(events)}`],
        [r.portalId === portalId, `portalId must be the token's (${portalId})`],
        [r.status === 1, 'a new subscription starts activated (1)'],
        [/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(configId), 'configId must be a UUIDv7'],
        [typeof r.topicArn === 'string' && r.topicArn.endsWith(configId), 'topicArn must name the topic of the record'],
        [typeof r.subscriptionArn === 'string' && r.subscriptionArn.startsWith(`${String(r.topicArn)}:`), 'subscriptionArn must be of its topic'],
      ];
      for (const [ok, why] of checks) if (!ok) failAccepted(request, answer, why);

      // Exactly one new record (and the portal's counter), one new topic, one new SNS subscription.
      const after = await harness.snapshot();
      const key = itemKey(portalId, subscriptionSk(configId));
      const stored = after.items[key] === undefined ? undefined : (JSON.parse(after.items[key]!) as Record<string, unknown>);
      if (!stored) failAccepted(request, answer, 'the record was not stored');
      const storedChecks: [boolean, string][] = [
        [stored.name === name && stored.endpoint === endpoint && stored.protocol === protocol, 'the stored record differs from the answer'],
        [same(stored.events, events), 'the stored events differ'],
        [same(stored.status, numberAttribute(1)), 'the stored status must be 1'],
        [stored.topicArn === r.topicArn && stored.subscriptionArn === r.subscriptionArn, 'the stored ARNs differ from the answer'],
      ];
      for (const [ok, why] of storedChecks) if (!ok) failAccepted(request, answer, `${why}: ${after.items[key]}`);
      // With an Idempotency-Key, the answer is remembered: one new record outside every portal.
      const keyed = request.idempotencyKey !== undefined;
      const remembered: string[] = [];
      for (const other of new Set([...Object.keys(before.items), ...Object.keys(after.items)])) {
        if (other === key || before.items[other] === after.items[other]) continue;
        const [otherPortal, sk] = other.split(' ');
        if (keyed && otherPortal!.startsWith('idempotency#') && before.items[other] === undefined) {
          remembered.push(other);
          continue;
        }
        if (otherPortal !== portalId || sk!.startsWith('subscription#')) failAccepted(request, answer, `create changed item ${other}`);
      }
      if (remembered.length !== (keyed ? 1 : 0)) failAccepted(request, answer, `${remembered.length} idempotency records for ${keyed ? 'one key' : 'no key'}`);
      const newTopics = after.topics.filter((arn) => !before.topics.includes(arn));
      const goneTopics = before.topics.filter((arn) => !after.topics.includes(arn));
      if (!same(newTopics, [r.topicArn]) || goneTopics.length > 0) failAccepted(request, answer, `topics changed by ${JSON.stringify({ newTopics, goneTopics })}`);
      const newSubscriptions = after.subscriptions.filter((entry) => !before.subscriptions.includes(entry)).map((entry) => JSON.parse(entry) as Record<string, unknown>);
      const goneSubscriptions = before.subscriptions.filter((entry) => !after.subscriptions.includes(entry));
      if (
        goneSubscriptions.length > 0 ||
        newSubscriptions.length !== 1 ||
        newSubscriptions[0]!.TopicArn !== r.topicArn ||
        newSubscriptions[0]!.Endpoint !== endpoint ||
        newSubscriptions[0]!.Protocol !== protocol
      ) {
        failAccepted(request, answer, `SNS subscriptions changed by ${JSON.stringify({ newSubscriptions, goneSubscriptions })}`);
      }

      // Clean up through the API: afterwards everything is as before.
      const deleted = await harness.api('create', 'DELETE', `/${configId}`);
      if (deleted.status !== 200) failAccepted(request, deleted, `deleting the created subscription failed`);
      const final = await harness.snapshot();
      expectState(final, withItems(before, after, remembered), `create, then delete, did not put everything back (after ${request.label})`);
      return final;
    },
  };
}

/** update, activate, rename: an accepted request changes exactly one attribute of the scratch record. */
export function changeDriver(base: DriverBase, operation: 'update' | 'activate' | 'rename'): OperationDriver {
  const { harness, seeding } = base;
  const portal = seeding[operation];
  const scratch = portal.scratch!;
  const key = itemKey(portal.portalId, subscriptionSk(scratch.configId));
  return {
    operation,
    token: harness.token(operation),
    readOnly: false,
    ids: () => idsOf(portal),
    checkStart: checkStartOf(base),
    accepted: async (request, answer, before) => {
      const body = answer.json;
      let changes: Record<string, unknown>;
      if (operation === 'update') {
        expectKeys(request, answer, body, ['success', 'message', 'record'], 'the answer');
        const expected = { configId: scratch.configId, events: request.expected.events, portalId: portal.portalId };
        if (!same(canonical(body.record), canonical(expected))) failAccepted(request, answer, `record must be ${JSON.stringify(expected)}`);
        changes = { events: request.expected.events };
      } else {
        expectKeys(request, answer, body, ['success', 'message'], 'the answer');
        if (operation === 'rename') {
          if (!nameFollowsRules(request.expected.name)) failAccepted(request, answer, `accepted a name that breaks the rules: ${JSON.stringify(request.expected.name)}`);
          changes = { name: request.expected.name };
        } else {
          const status = request.expected.status as number;
          if (status !== 0 && status !== 1) failAccepted(request, answer, `accepted status ${status}`);
          if (!(status === 1 ? /\bactivated\b/i : /\bdeactivated\b/i).test(String(body.message))) failAccepted(request, answer, 'the message must say what was done');
          changes = { status: numberAttribute(status) };
        }
      }
      const after = await harness.snapshot();
      expectState(after, patched(before, key, changes), `${operation} must change ${Object.keys(changes).join(', ')} of ${scratch.configId} and nothing else (${request.label})`);
      return after;
    },
  };
}

/** delete: an accepted request removes the scratch subscription, its topic and SNS subscription; it is made again. */
export function deleteDriver(base: DriverBase): OperationDriver {
  const { harness, seeding } = base;
  const portal = seeding.delete;
  return {
    operation: 'delete',
    token: harness.token('delete'),
    readOnly: false,
    ids: () => idsOf(portal),
    checkStart: checkStartOf(base),
    accepted: async (request, answer, before) => {
      expectKeys(request, answer, answer.json, ['success', 'message'], 'the answer');
      const scratch = portal.scratch!;
      const key = itemKey(portal.portalId, subscriptionSk(scratch.configId));
      const after = await harness.snapshot();
      if (after.items[key] !== undefined) failAccepted(request, answer, 'the record is still there');
      for (const other of new Set([...Object.keys(before.items), ...Object.keys(after.items)])) {
        if (other === key || before.items[other] === after.items[other]) continue;
        const [otherPortal, sk] = other.split(' ');
        if (otherPortal !== portal.portalId || sk!.startsWith('subscription#')) failAccepted(request, answer, `delete changed item ${other}`);
      }
      const expectedTopics = before.topics.filter((arn) => arn !== scratch.topicArn);
      const expectedSubscriptions = before.subscriptions.filter((entry) => (JSON.parse(entry) as { TopicArn?: string }).TopicArn !== scratch.topicArn);
      if (!same(after.topics, expectedTopics)) failAccepted(request, answer, 'delete must remove the topic and no other');
      if (!same(after.subscriptions, expectedSubscriptions)) failAccepted(request, answer, "delete must remove the topic's SNS subscription and no other");
      portal.scratch = await createThrough(harness, 'delete', SCRATCH_BODY);
      return harness.snapshot();
    },
  };
}

/** list: every answer is the portal's subscriptions, oldest first, whatever the request carries. */
export function listDriver(base: DriverBase): OperationDriver {
  const { harness, seeding } = base;
  const portal = seeding.list;
  return {
    operation: 'list',
    token: harness.token('list'),
    readOnly: true,
    ids: () => idsOf(portal),
    checkStart: checkStartOf(base),
    accepted: async (request, answer, before) => {
      expectKeys(request, answer, answer.json, ['success', 'message', 'configs', 'maxSubscriptions'], 'the answer');
      const expected = Object.entries(before.items)
        .filter(([key]) => key.startsWith(`${portal.portalId} subscription#`))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([, item]) => {
          const { configId, name, endpoint, protocol, events, status } = JSON.parse(item) as Record<string, unknown>;
          // The seeds (an e-mail address, another account's queue) wait for their endpoints to confirm.
          // And nothing was delivered to them, so nothing failed.
          return {
            configId,
            name,
            endpoint,
            protocol,
            events,
            status: Number((status as { $N: string }).$N),
            confirmed: false,
            subscriptionState: 'pending',
            deadLetters: 0,
            deadLettersRetrying: 0,
            lastDeadLetterAt: null,
            deadLettersDropped: 0,
            lastDeliveredAt: null,
            lastFailedAt: null,
            deliveredLast24h: 0,
            failedLast24h: 0,
            disabledReason: null,
            disabledAt: null,
          };
        });
      if (!same(canonical(answer.json.configs), canonical(expected))) failAccepted(request, answer, `configs must be ${JSON.stringify(expected)}`);
      // The local stack's default limit (MAX_SUBSCRIPTIONS_PER_PORTAL unset).
      if (answer.json.maxSubscriptions !== 10) failAccepted(request, answer, 'maxSubscriptions must be 10');
      return before;
    },
  };
}

export function driverFor(operation: OperationName, base: DriverBase): OperationDriver {
  switch (operation) {
    case 'create':
      return createDriver(base);
    case 'update':
    case 'activate':
    case 'rename':
      return changeDriver(base, operation);
    case 'delete':
      return deleteDriver(base);
    case 'list':
      return listDriver(base);
  }
}
