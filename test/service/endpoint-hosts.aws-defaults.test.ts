/**
 * Loopback endpoints with the functions' defaults, as deployed on AWS (the stack never sets
 * ALLOW_LOOPBACK_ENDPOINTS; test/infra/template/stack.ts): refused with 400 ENDPOINT_NOT_PUBLIC in
 * every form a URL parser reads as loopback, and `localhost`. With the local stack's setting:
 * endpoint-hosts.test.ts.
 */
import type { ApiAnswer } from '../support/api';

delete process.env.ALLOW_LOOPBACK_ENDPOINTS;
// The functions read their environment when imported: after it is set above.
const { call, freshPortal, newSubscription } = await import('../support/api');
const { portalTopicArns, subscriptionItems } = await import('../support/aws-state');

const LOOPBACK = [
  'https://127.0.0.1:9/hooks',
  'https://127.1.2.3/hooks',
  'https://2130706433/hooks',
  'https://0x7f.1/hooks',
  'https://127.0.0.1./hooks',
  'https://localhost/hooks',
  'https://LOCALHOST./hooks',
  'https://api.localhost/hooks',
  'https://[::1]:9/hooks',
  'https://[::ffff:127.0.0.1]/hooks',
  'http://127.0.0.1:3000/v7/webhooks/public/api/subscriptions',
];

describe('with the defaults of a deployed function', () => {
  const portalId = freshPortal('aws-loopback');

  it.each(LOOPBACK)('create refuses %s with ENDPOINT_NOT_PUBLIC', async (endpoint) => {
    const answer: ApiAnswer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol: endpoint.split(':')[0], endpoint }) });

    expect(answer.statusCode).toBe(400);
    expect(answer.body).toEqual({ success: false, code: 'ENDPOINT_NOT_PUBLIC', message: expect.stringMatching(/is a loopback address, which cannot receive webhooks/) });
  });

  it('made nothing for any of them, and still takes a public host', async () => {
    expect(await subscriptionItems(portalId)).toEqual([]);
    expect(await portalTopicArns(portalId)).toEqual([]);
    const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ endpoint: 'https://hooks.example.com/hooks' }) });
    expect(answer.statusCode).toBe(200);
  });
});
