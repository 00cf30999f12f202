/** Every request the contract refuses gets a 400 (or 401) envelope that says what to fix, and changes nothing. */
import { call, freshPortal, newSubscription } from '../support/api';
import { portalItems, portalTopicArns } from '../support/aws-state';
import type { OperationId } from '../../shared/operations';

const ALLOWED_KINDS_HINT = /^events holds an unknown event kind .*; allowed kinds are asset_bank\.media\.create, .*antivirus\.scan\.failed/;

const BODY_CODES = ['MALFORMED_JSON', 'MISSING_BODY', 'BODY_NOT_OBJECT', 'BODY_TOO_LARGE', 'UNSUPPORTED_CONTENT_TYPE'];

/**
 * A refusal envelope. An invalid field (INVALID_REQUEST) also comes as `errors`, one
 * `{field, message}` per problem; here there is one problem, so `message` is its sentence.
 */
function expectRefusal(answer: { statusCode: number; body: any }, status: number, message: RegExp) {
  expect(answer.statusCode).toBe(status);
  if (answer.body.code === 'INVALID_REQUEST') {
    expect(answer.body).toEqual({
      success: false,
      message: expect.stringMatching(message),
      code: 'INVALID_REQUEST',
      errors: [{ field: expect.any(String), message: answer.body.message }],
    });
    expect(answer.body.message.startsWith(answer.body.errors[0].field)).toBe(true);
  } else {
    expect(answer.body).toEqual({ success: false, message: expect.stringMatching(message), code: expect.any(String) });
    if (status === 400) expect([...BODY_CODES, 'INVALID_IDEMPOTENCY_KEY']).toContain(answer.body.code);
  }
}

describe('create refuses', () => {
  const portalId = freshPortal('refused');

  it.each<[string, unknown, RegExp]>([
    ['a missing name', { name: undefined }, /^name is required/],
    ['a name that is not a string', { name: 42 }, /^name must be a string/],
    ['an empty name', { name: '' }, /^name must not be empty/],
    ['a name of only spaces', { name: '   ' }, /^name must not be empty/],
    ['a name over 255 characters', { name: 'n'.repeat(256) }, /^name must be at most 255 characters/],
    ['a name with a control character', { name: 'bad\u0007name' }, /^name must not contain control characters/],
    ['a name with a lone surrogate', { name: 'bad\ud800' }, /^name must be valid Unicode/],
    ['a missing endpoint', { endpoint: undefined }, /^endpoint is required/],
    ['an endpoint that is not a string', { endpoint: ['https://a.example'] }, /^endpoint must be a string/],
    ['an endpoint with a lone surrogate', { endpoint: 'https://a.example/\ud800' }, /^endpoint must be valid Unicode/],
    ['an e-mail endpoint with a lone surrogate', { protocol: 'email', endpoint: 'a\udfff@example.com' }, /^endpoint must be valid Unicode/],
    ['an endpoint with a control character', { endpoint: 'https://a.example/\u0000' }, /^endpoint must not contain control characters/],
    ['an http URL for https', { endpoint: 'http://hooks.example.com' }, /^endpoint must be an absolute https:\/\/ URL/],
    ['a relative URL', { endpoint: '/hooks' }, /^endpoint must be an absolute https:\/\/ URL/],
    ['a URL without host', { endpoint: 'https://' }, /^endpoint must be an absolute https:\/\/ URL/],
    ['a URL over 2048 characters', { endpoint: `https://a.example/${'x'.repeat(2048)}` }, /^endpoint .*at most 2048/],
    ['an https URL for http', { protocol: 'http', endpoint: 'https://a.example' }, /^endpoint must be an absolute http:\/\//],
    ['a bad e-mail address', { protocol: 'email', endpoint: 'not-an-address' }, /^endpoint must be an e-mail address/],
    ['a URL for email-json', { protocol: 'email-json', endpoint: 'https://a.example' }, /^endpoint must be an e-mail address/],
    ['a non-SQS ARN for sqs', { protocol: 'sqs', endpoint: 'arn:aws:sns:eu-west-1:123456789012:x' }, /^endpoint must be an SQS queue ARN/],
    ['a URL for lambda', { protocol: 'lambda', endpoint: 'https://a.example' }, /^endpoint must be a Lambda function ARN/],
    [
      'an SQS FIFO queue',
      { protocol: 'sqs', endpoint: 'arn:aws:sqs:eu-west-1:123456789012:orders.fifo' },
      /^endpoint names a FIFO queue .*FIFO queues are not supported: subscribe a standard SQS queue\.$/,
    ],
    ['a missing protocol', { protocol: undefined }, /^protocol is required/],
    ['an unknown protocol', { protocol: 'sms' }, /^protocol must be one of https, http, email, email-json, sqs, lambda/],
    ['a protocol that is not a string', { protocol: 1 }, /^protocol must be one of/],
    ['missing events', { events: undefined }, /^events is required/],
    ['events that are not an array', { events: 'asset_bank.media.create' }, /^events must be an array of event kinds/],
    ['an empty event list', { events: [] }, /^events must list at least one event kind/],
    ['more than 50 events', { events: Array(51).fill('asset_bank.media.create') }, /^events must list at most 50/],
    ['an unknown event kind', { events: ['asset_bank.media.create', 'media.exploded'] }, ALLOWED_KINDS_HINT],
    ['an event kind that is not a string', { events: [7] }, /^events\[0\] must be a string\.$/],
  ])('%s', async (_case, overrides, message) => {
    const body = { ...newSubscription(), ...(overrides as object) };
    expectRefusal(await call('createSubscriptionRoute', { portalId, body }), 400, message);
  });

  it.each<[string, { body?: string; headers?: Record<string, string>; isBase64Encoded?: boolean }, RegExp]>([
    ['a missing body', {}, /needs a JSON object body/],
    ['malformed JSON', { body: '{"name": "x",' }, /not valid JSON/],
    ['a JSON array', { body: '[]' }, /must be a JSON object/],
    ['JSON null', { body: 'null' }, /must be a JSON object/],
    ['a body over 64 KiB', { body: JSON.stringify({ ...newSubscription(), pad: 'x'.repeat(64 * 1024) }) }, /larger than 64 KiB/],
    ['a non-JSON content type', { body: JSON.stringify(newSubscription()), headers: { 'content-type': 'text/plain' } }, /content-type application\/json/],
  ])('%s', async (_case, request, message) => {
    expectRefusal(await call('createSubscriptionRoute', { portalId, ...request }), 400, message);
  });

  it('every problem of the body at once, in one sentence and one errors entry each', async () => {
    const answer = await call('createSubscriptionRoute', { portalId, body: {} });

    expect(answer.statusCode).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      code: 'INVALID_REQUEST',
      message:
        'The request has 4 problems: (1) name is required; (2) endpoint is required; (3) protocol is required; (4) events is required.',
      errors: [
        { field: 'name', message: 'name is required.' },
        { field: 'endpoint', message: 'endpoint is required.' },
        { field: 'protocol', message: 'protocol is required.' },
        { field: 'events', message: 'events is required.' },
      ],
    });
  });

  it('a bad endpoint and a bad event kind together, naming both', async () => {
    const body = newSubscription({ endpoint: 'ftp://hooks.example.com', events: ['asset_bank.media.create', 'media.exploded'] });

    const answer = await call('createSubscriptionRoute', { portalId, body });

    expect(answer.statusCode).toBe(400);
    expect(answer.body.errors).toEqual([
      { field: 'events', message: expect.stringMatching(/^events holds an unknown event kind "media\.exploded"; allowed kinds are /) },
      { field: 'endpoint', message: expect.stringMatching(/^endpoint must be an absolute https:\/\/ URL/) },
    ]);
    expect(answer.body.message).toBe(
      `The request has 2 problems: (1) ${answer.body.errors[0].message.replace(/\.$/, '')}; (2) ${answer.body.errors[1].message.replace(/\.$/, '')}.`,
    );
  });

  it('an SQS FIFO queue beside a bad name, naming both', async () => {
    const body = newSubscription({ name: '', protocol: 'sqs', endpoint: 'arn:aws:sqs:eu-west-1:123456789012:orders.fifo' });

    const answer = await call('createSubscriptionRoute', { portalId, body });

    expect(answer.statusCode).toBe(400);
    expect(answer.body.errors.map((error: { field: string }) => error.field)).toEqual(['name', 'endpoint']);
    expect(answer.body.message).toMatch(/^The request has 2 problems: \(1\) name must not be empty; \(2\) endpoint names a FIFO queue/);
  });

  it('and none of the refused creates left a record or a topic', async () => {
    expect(await portalItems(portalId)).toEqual([]);
    expect(await portalTopicArns(portalId)).toEqual([]);
  });
});

describe('accepts', () => {
  it('a body of exactly 64 KiB, a content type with parameters and unknown extra fields', async () => {
    const base = JSON.stringify({ ...newSubscription(), pad: '' });
    const body = base.replace('"pad":""', `"pad":"${'x'.repeat(64 * 1024 - base.length)}"`);
    expect(Buffer.byteLength(body)).toBe(64 * 1024);

    const answer = await call('createSubscriptionRoute', {
      portalId: freshPortal(),
      body,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });

    expect(answer.statusCode).toBe(200);
    expect(answer.body.record).not.toHaveProperty('pad');
  });
});

describe('operations that address a subscription refuse', () => {
  const portalId = freshPortal();
  const someId = '0192f8a4-7b3c-7d2e-9f01-23456789abcd';

  it.each<[OperationId, string, unknown, RegExp]>([
    ['updateSubscriptionRoute', 'a missing config_id', { events: ['workflow.job.create'] }, /^config_id is required/],
    ['updateSubscriptionRoute', 'a config_id that is not a UUID', { config_id: 'abc', events: ['workflow.job.create'] }, /^config_id must be a UUID/],
    ['updateSubscriptionRoute', 'a numeric config_id', { config_id: 12, events: ['workflow.job.create'] }, /^config_id must be a UUID/],
    ['updateSubscriptionRoute', 'config_id and configId that differ', { config_id: someId, configId: someId.replace('a', 'b'), events: ['workflow.job.create'] }, /^config_id and configId name different subscriptions; send the id in config_id only/],
    ['updateSubscriptionRoute', 'missing events', { config_id: someId }, /^events is required/],
    ['updateSubscriptionRoute', 'an unknown event kind', { config_id: someId, events: ['nope'] }, ALLOWED_KINDS_HINT],
    ['activateSubscriptionRoute', 'a missing status', { config_id: someId }, /^status is required/],
    ['activateSubscriptionRoute', 'status 2', { config_id: someId, status: 2 }, /^status must be 1 \(activated\) or 0 \(deactivated\)/],
    ['activateSubscriptionRoute', 'status "1"', { config_id: someId, status: '1' }, /^status must be 1 \(activated\) or 0/],
    ['activateSubscriptionRoute', 'status true', { config_id: someId, status: true }, /^status must be 1 \(activated\) or 0/],
    ['activateSubscriptionRoute', 'a missing config_id', { status: 1 }, /^config_id is required/],
    ['renameSubscriptionRoute', 'a missing name', { config_id: someId }, /^name is required/],
    ['renameSubscriptionRoute', 'an empty name', { config_id: someId, name: ' ' }, /^name must not be empty/],
    ['renameSubscriptionRoute', 'a missing config_id', { name: 'x' }, /^config_id is required/],
    ['testSubscriptionRoute', 'a missing config_id', {}, /^config_id is required/],
    ['testSubscriptionRoute', 'a config_id that is not a UUID', { config_id: 'abc' }, /^config_id must be a UUID/],
    ['confirmSubscriptionRoute', 'a missing config_id', {}, /^config_id is required/],
    ['confirmSubscriptionRoute', 'a config_id that is not a UUID', { configId: 'abc' }, /^configId must be a UUID/],
    ['confirmSubscriptionRoute', 'config_id and configId naming different subscriptions', { config_id: someId, configId: someId.replace('a', 'b') }, /^config_id and configId name different subscriptions/],
  ])('%s with %s', async (operationId, _case, body, message) => {
    expectRefusal(await call(operationId, { portalId, body }), 400, message);
  });

  it.each<[OperationId, unknown, string[]]>([
    ['updateSubscriptionRoute', { config_id: someId, configId: someId.replace('a', 'b'), events: [1] }, ['events[0]', 'config_id']],
    ['activateSubscriptionRoute', { status: 'on' }, ['status', 'config_id']],
    ['renameSubscriptionRoute', { config_id: 'abc', name: 7 }, ['config_id', 'name']],
  ])('%s with two problems, naming both', async (operationId, body, fields) => {
    const answer = await call(operationId, { portalId, body });

    expect(answer.statusCode).toBe(400);
    expect(answer.body).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
    expect(answer.body.errors.map((error: { field: string }) => error.field)).toEqual(fields);
    for (const [index, error] of (answer.body.errors as { field: string; message: string }[]).entries()) {
      expect(error.message.startsWith(`${error.field} `)).toBe(true);
      expect(answer.body.message).toContain(`(${index + 1}) ${error.message.replace(/\.$/, '')}`);
    }
  });

  it.each<OperationId>(['updateSubscriptionRoute', 'activateSubscriptionRoute', 'renameSubscriptionRoute', 'testSubscriptionRoute', 'confirmSubscriptionRoute'])(
    '%s with malformed JSON',
    async (operationId) => {
      expectRefusal(await call(operationId, { portalId, body: '{' }), 400, /not valid JSON/);
    },
  );

  it('delete with a path id that is not a UUID', async () => {
    expectRefusal(await call('deleteSubscriptionRoute', { portalId, configId: 'not-a-uuid' }), 400, /^configId in the path must be a UUID/);
  });
});

describe('a token without a portal claim', () => {
  it.each<[OperationId, unknown]>([
    ['createSubscriptionRoute', newSubscription()],
    ['updateSubscriptionRoute', { config_id: '0192f8a4-7b3c-7d2e-9f01-23456789abcd', events: ['workflow.job.create'] }],
    ['activateSubscriptionRoute', { config_id: '0192f8a4-7b3c-7d2e-9f01-23456789abcd', status: 1 }],
    ['listSubscriptionsRoute', undefined],
    ['renameSubscriptionRoute', { config_id: '0192f8a4-7b3c-7d2e-9f01-23456789abcd', name: 'x' }],
    ['deleteSubscriptionRoute', undefined],
  ])('gets 401 from %s, never a default portal', async (operationId, body) => {
    const answer = await call(operationId, {
      portalId: null,
      body,
      configId: operationId === 'deleteSubscriptionRoute' ? '0192f8a4-7b3c-7d2e-9f01-23456789abcd' : undefined,
    });
    expectRefusal(answer, 401, /carries no portal_id claim/);
  });

  it('gets 401 when the claim is not a usable portal id', async () => {
    const answer = await call('listSubscriptionsRoute', { portalId: 'has spaces and #' });
    expectRefusal(answer, 401, /not a valid portal id/);
  });
});
