/**
 * How the hostile-input suite judges a 5xx: the service's overload answer (503
 * `SERVICE_UNAVAILABLE` envelope with Retry-After) to a request that reached a dependency is
 * counted as overload; every other 5xx, and a 503 for a request refused before any dependency,
 * is a fault that fails the suite. The answers are built here, as the harness reads them off
 * the wire, so that each kind is judged without having to overload a machine.
 */
import { checkAnswer, ServiceFault, Tally } from './checks';
import type { RawAnswer } from './raw-http';
import type { HostileRequest, Target } from './requests';

const PATH = '/v7/webhooks/public/api/subscriptions/01a20971-b748-7613-8b2c-03eb21fd8705';

const request: HostileRequest = {
  operation: 'delete',
  label: `DELETE ${PATH}`,
  method: 'DELETE',
  headers: {},
  bodyLength: 0,
  body: () => undefined,
  chunked: false,
  target: () => ({ path: PATH, outcome: 'accept', blame: [] }),
  expected: {},
};

const targets: Record<string, Target> = {
  'a valid delete (accept)': { path: PATH, outcome: 'accept', blame: ['configId'] },
  'an id of no subscription of the portal (refused after a look-up)': { path: PATH, outcome: 'refuse', blame: ['SUBSCRIPTION_NOT_FOUND'], dependencyRefusal: true },
};
const refusedAtValidation: Target = { path: `${PATH.slice(0, -36)}not-a-uuid`, outcome: 'refuse', blame: ['configId'] };
const noRoute: Target = { path: `${PATH}/x`, outcome: 'no-route', blame: [] };

function answer(status: number, body: unknown, headers: Record<string, string> = {}): RawAnswer {
  const text = JSON.stringify(body);
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, text, json: body };
}

const overload = answer(
  503,
  { success: false, message: 'A backend service is temporarily unavailable; retry the request shortly.', code: 'SERVICE_UNAVAILABLE' },
  { 'retry-after': '2' },
);

describe('the hostile-input suite on a 5xx', () => {
  it.each(Object.entries(targets))('counts the overload answer to %s as overload', (_what, target) => {
    const tally = new Tally();
    const kind = checkAnswer(request, target, overload);
    tally.add('delete', kind, overload);

    expect(kind).toBe('overload');
    expect(tally.overloads('delete')).toBe(1);
    expect(tally.faults('delete')).toBe(0);
    expect(tally.format()).toContain('overload 1, faults 0');
  });

  it.each([
    ['a 503 for a request refused at validation', refusedAtValidation, overload],
    ["a 503 where API Gateway's 404 belongs", noRoute, overload],
    ['a 503 without Retry-After', targets['a valid delete (accept)']!, answer(503, overload.json, {})],
    ['a 503 with another code', targets['a valid delete (accept)']!, answer(503, { success: false, message: 'Try again later.', code: 'INTERNAL_ERROR' }, { 'retry-after': '2' })],
    ['a 500 of the handler', targets['a valid delete (accept)']!, answer(500, { success: false, message: 'The service failed to handle the request; retry it shortly.', code: 'INTERNAL_ERROR' })],
    ["API Gateway's 500", targets['a valid delete (accept)']!, answer(500, { message: 'Internal Server Error' })],
    ['a 502', targets['a valid delete (accept)']!, answer(502, { message: 'Bad Gateway' })],
    [
      'a 503 naming internals',
      targets['a valid delete (accept)']!,
      answer(503, { success: false, message: 'DynamoDB: ProvisionedThroughputExceededException', code: 'SERVICE_UNAVAILABLE' }, { 'retry-after': '2' }),
    ],
  ] as const)('fails on %s, as a fault', (_what, target, served) => {
    expect(() => checkAnswer(request, target, served)).toThrow(ServiceFault);
  });
});
