/**
 * Creates with an Idempotency-Key header: a repeated key answers the first record again and
 * creates nothing more, for 24 hours, per portal; the same key with another body is refused;
 * without the header nothing changes. Only successes are remembered, and a failing idempotency
 * store: idempotency.failures.test.ts.
 */
import { snsClient } from '../../shared/aws/sns';
import { IDEMPOTENCY_WINDOW_SECONDS } from '../../shared/http/idempotency';
import { EXPIRY_ATTRIBUTE, TABLE_KEYS } from '../../shared/data/table';
import { call, freshPortal, newSubscription } from '../support/api';
import { portalItems, portalTopicArns, subscriptionItems } from '../support/aws-state';
import { holdCommands } from '../support/hold-commands';
import { create, expectOneSubscription, freshKey, idempotencyRecordCount, idempotencyRecordOf, PARTITION } from '../support/idempotency';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

describe('a create with an Idempotency-Key', () => {
  it('answers a repeated key with the first answer byte for byte, and creates one subscription and one topic', async () => {
    const portalId = freshPortal('idem');
    const key = freshKey();

    const first = await create(portalId, key);
    const second = await create(portalId, key);
    const third = await create(portalId, key);

    expect(first.statusCode).toBe(200);
    expect(first.body).toMatchObject({ success: true, record: { configId: expect.any(String), topicArn: expect.any(String) } });
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    // Field order included: what docs/api.md ("Idempotent creates") promises is exactly the first answer.
    expect(second.text).toBe(first.text);
    expect(third.text).toBe(first.text);
    await expectOneSubscription(portalId, first);
  });

  it('keeps the record in its own partition, for at least 24 hours, out of the portal and its list', async () => {
    const portalId = freshPortal('idem');
    const key = freshKey();
    const before = Math.floor(Date.now() / 1000);

    const answer = await create(portalId, key);

    expect(answer.statusCode).toBe(200);
    const record = await idempotencyRecordOf(portalId, key);
    expect(record).toMatchObject({ [TABLE_KEYS.partitionKey]: PARTITION, status: 'COMPLETED' });
    expect(IDEMPOTENCY_WINDOW_SECONDS).toBeGreaterThanOrEqual(86_400);
    expect(record![EXPIRY_ATTRIBUTE]).toBeGreaterThanOrEqual(before + 86_400);
    expect(record![EXPIRY_ATTRIBUTE]).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 86_400);
    // The portal's partition holds its subscription, its counter and its rate limit on create, nothing else.
    expect((await portalItems(portalId)).map((item) => item.sk).sort()).toEqual(
      ['portal', 'ratelimit#createSubscriptionRoute', `subscription#${answer.body.record.configId}`].sort(),
    );
    const list = await call('listSubscriptionsRoute', { portalId });
    expect(list.body.configs.map((config: { configId: string }) => config.configId)).toEqual([answer.body.record.configId]);
  });

  it('refuses the same key with a different body with a 400, and still answers the first body with its record', async () => {
    const portalId = freshPortal('idem');
    const key = freshKey();
    const first = await create(portalId, key, newSubscription({ name: 'First' }));

    const other = await create(portalId, key, newSubscription({ name: 'Second' }));
    const again = await create(portalId, key, newSubscription({ name: 'First' }));

    expect(other.statusCode).toBe(400);
    expect(other.body).toEqual({
      success: false,
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: expect.stringMatching(/^This Idempotency-Key was already used with a different request body/),
    });
    expect(again).toEqual(first);
    await expectOneSubscription(portalId, first);
  });

  it('compares bodies as validated, not as formatted: key order, spacing and letter case of the protocol do not matter', async () => {
    const portalId = freshPortal('idem');
    const key = freshKey();
    const first = await create(portalId, key, newSubscription());

    const { name, endpoint, events } = newSubscription();
    const reformatted = JSON.stringify({ events, protocol: 'HTTPS', endpoint, name: `  ${name} ` }, null, 2);
    const again = await create(portalId, key, reformatted);

    expect(again).toEqual(first);
    await expectOneSubscription(portalId, first);
  });

  it('keeps keys of different portals apart: the same key in two portals makes two records', async () => {
    const [portalA, portalB] = [freshPortal('idem-a'), freshPortal('idem-b')];
    const key = freshKey();

    const a = await create(portalA, key);
    const b = await create(portalB, key);

    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(b.body.record.configId).not.toBe(a.body.record.configId);
    expect(b.body.record.portalId).toBe(portalB);
    await expectOneSubscription(portalA, a);
    await expectOneSubscription(portalB, b);
    expect(await create(portalA, key)).toEqual(a);
    expect(await create(portalB, key)).toEqual(b);
    const [recordA, recordB] = [await idempotencyRecordOf(portalA, key), await idempotencyRecordOf(portalB, key)];
    expect(recordA?.sk).toBeDefined();
    expect(recordB?.sk).toBeDefined();
    expect(recordA!.sk).not.toBe(recordB!.sk);
  });

  it('answers 409 IDEMPOTENCY_IN_PROGRESS to a repeat while the first is still running, then the record', async () => {
    const portalId = freshPortal('idem');
    const key = freshKey();
    const hold = holdCommands(snsClient, /^CreateTopic/, (cleanup) => cleanups.push(cleanup));

    const firstAnswer = create(portalId, key);
    await hold.reached;
    const whileRunning = await create(portalId, key);
    hold.release();
    const first = await firstAnswer;
    const after = await create(portalId, key);

    expect(whileRunning.statusCode).toBe(409);
    expect(whileRunning.body).toEqual({
      success: false,
      code: 'IDEMPOTENCY_IN_PROGRESS',
      message: expect.stringMatching(/still being processed; retry shortly/),
    });
    expect(first.statusCode).toBe(200);
    expect(after).toEqual(first);
    await expectOneSubscription(portalId, first);
  });

  it('creates exactly one subscription for simultaneous requests with the same key; the others get it or 409', async () => {
    const portalId = freshPortal('idem');
    const key = freshKey();

    const answers = await Promise.all(Array.from({ length: 6 }, () => create(portalId, key)));

    const created = answers.filter((answer) => answer.statusCode === 200);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const answer of created) expect(answer).toEqual(created[0]);
    for (const answer of answers.filter((candidate) => candidate.statusCode !== 200)) {
      expect(answer.statusCode).toBe(409);
      expect(answer.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    }
    await expectOneSubscription(portalId, created[0]!);
    expect(await create(portalId, key)).toEqual(created[0]);
  });
});

describe('a create without an Idempotency-Key', () => {
  it('is not deduplicated and writes no idempotency record', async () => {
    const portalId = freshPortal('idem-none');
    const recordsBefore = await idempotencyRecordCount();

    const first = await create(portalId, undefined);
    const second = await create(portalId, undefined);

    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.body.record.configId).not.toBe(first.body.record.configId);
    expect(await subscriptionItems(portalId)).toHaveLength(2);
    expect(await portalTopicArns(portalId)).toHaveLength(2);
    expect(await idempotencyRecordCount()).toBe(recordsBefore);
  });
});

describe('the Idempotency-Key header', () => {
  it.each([
    ['empty', ''],
    ['only spaces', '   '],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['not ASCII', 'clé-1'],
    ['a control character', 'key\t1'],
  ])('is refused with a 400 when %s, and nothing is created', async (_case, key) => {
    const portalId = freshPortal('idem-bad');

    const answer = await create(portalId, key);

    expect(answer.statusCode).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      code: 'INVALID_IDEMPOTENCY_KEY',
      message: expect.stringMatching(/^The Idempotency-Key header must be 1-255 printable ASCII characters/),
    });
    expect(await subscriptionItems(portalId)).toEqual([]);
  });

  it('may be 255 printable characters, spaces and punctuation included', async () => {
    const portalId = freshPortal('idem');
    const key = `a b!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`.padEnd(255, 'z');

    const first = await create(portalId, key);

    expect(first.statusCode).toBe(200);
    expect(await create(portalId, key)).toEqual(first);
  });

  it('is ignored by the other operations', async () => {
    const portalId = freshPortal('idem');
    const created = await create(portalId, undefined);
    const rename = (name: string) =>
      call('renameSubscriptionRoute', {
        portalId,
        body: { config_id: created.body.record.configId, name },
        headers: { 'idempotency-key': 'same-key' },
      });

    expect((await rename('One')).statusCode).toBe(200);
    expect((await rename('Two')).statusCode).toBe(200);
    expect((await subscriptionItems(portalId))[0]!.name).toBe('Two');
  });
});

describe('the partition of the idempotency records', () => {
  it('can never be a portal: a token naming it as its portal is refused', async () => {
    const answer = await call('listSubscriptionsRoute', { portalId: PARTITION });

    expect(answer.statusCode).toBe(401);
    expect(answer.body.code).toBe('INVALID_PORTAL_CLAIM');
  });
});
