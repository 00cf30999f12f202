/**
 * Endpoints that cannot be public, as a tenant would aim the service at its own network: an http
 * or https endpoint on the instance metadata address, a link-local, private, unspecified or
 * reserved IP literal (in any form a URL parser reads) is refused with 400 ENDPOINT_NOT_PUBLIC,
 * before anything is made, by create and by confirm. Here with the local stack's setting
 * (ALLOW_LOOPBACK_ENDPOINTS=true, as global setup and `npm start` set it): loopback hosts are
 * accepted for receivers on this machine; link-local ones never. Without the setting (AWS):
 * endpoint-hosts.aws-defaults.test.ts.
 */
import { UnsubscribeCommand } from '@aws-sdk/client-sns';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { call, freshPortal, newSubscription } from '../support/api';
import { inspectDb, inspectSns, portalTopicArns, subscriptionItems } from '../support/aws-state';
import { TEST_ENV } from '../support/test-env';

/** Each host, with what the refusal calls it. */
const NOT_PUBLIC: readonly (readonly [host: string, kind: RegExp])[] = [
  ['169.254.169.254', /link-local address \(such as the instance metadata service's\)/],
  ['169.254.170.2', /link-local/],
  ['[fe80::1]', /link-local/],
  ['[::ffff:169.254.169.254]', /link-local/],
  ['2852039166', /link-local/], // 169.254.169.254 as one number
  ['0xa9.0xfe.0xa9.0xfe', /link-local/],
  ['10.0.0.1', /private address/],
  ['172.16.5.4', /private address/],
  ['192.168.1.1', /private address/],
  ['[fd00::1]', /private address/],
  ['0.0.0.0', /unspecified address/],
  ['0', /unspecified address/],
  ['[::]', /unspecified address/],
  ['100.64.0.1', /reserved address/],
  ['198.18.0.1', /reserved address/],
  ['224.0.0.1', /reserved address/],
  ['255.255.255.255', /reserved address/],
  ['[2001:db8::1]', /reserved address/],
  ['[ff02::1]', /reserved address/],
  ['[64:ff9b::a00:1]', /reserved address/],
];

describe('create', () => {
  // One portal per host: 40 creates from one portal would meet its rate limit (rate-limits.test.ts).
  const refusedPortals: string[] = [];

  it.each(NOT_PUBLIC)('refuses an endpoint on %s with ENDPOINT_NOT_PUBLIC', async (host, kind) => {
    const portalId = freshPortal('hosts');
    refusedPortals.push(portalId);
    for (const protocol of ['https', 'http']) {
      const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription({ protocol, endpoint: `${protocol}://${host}/latest/meta-data/` }) });

      expect(answer.statusCode).toBe(400);
      expect(answer.body).toEqual({ success: false, code: 'ENDPOINT_NOT_PUBLIC', message: expect.stringMatching(kind) });
      expect(answer.body.message).toMatch(/^The endpoint's host \S+ is .*, which cannot receive webhooks; use a public host name or address\.$/);
    }
  });

  it('made nothing for any of them', async () => {
    expect(refusedPortals).toHaveLength(NOT_PUBLIC.length);
    for (const refused of refusedPortals) {
      expect(await subscriptionItems(refused)).toEqual([]);
      expect(await portalTopicArns(refused)).toEqual([]);
    }
  });

  it.each(['https://127.0.0.1:9/hooks', 'https://127.8.9.10:9/hooks', 'https://localhost:9/hooks', 'https://[::1]:9/hooks', 'http://2130706433:9/hooks', 'https://hooks.example.com/hooks'])(
    'accepts %s (loopback, allowed under npm start; or a public name)',
    async (endpoint) => {
      const answer = await call('createSubscriptionRoute', {
        portalId: freshPortal('hosts-ok'),
        body: newSubscription({ protocol: endpoint.split(':')[0], endpoint }),
      });

      expect(answer.statusCode).toBe(200);
    },
  );
});

describe('confirm', () => {
  it('refuses a stored endpoint that cannot be public (a record made before the check) and subscribes nothing', async () => {
    const portalId = freshPortal('hosts-confirm');
    const { record } = (await call('createSubscriptionRoute', { portalId, body: newSubscription({ endpoint: 'https://hooks.example.com/hooks' }) })).body;
    await inspectSns.send(new UnsubscribeCommand({ SubscriptionArn: record.subscriptionArn }));
    await inspectDb.send(
      new UpdateCommand({
        TableName: TEST_ENV.TABLE_NAME,
        Key: { portalId, sk: `subscription#${record.configId}` },
        UpdateExpression: 'SET endpoint = :metadata',
        ExpressionAttributeValues: { ':metadata': 'https://169.254.169.254/latest/meta-data/' },
      }),
    );

    const answer = await call('confirmSubscriptionRoute', { portalId, body: { config_id: record.configId } });

    expect(answer.statusCode).toBe(400);
    expect(answer.body.code).toBe('ENDPOINT_NOT_PUBLIC');
    expect(await subscriptionItems(portalId)).toEqual([expect.objectContaining({ subscriptionArn: record.subscriptionArn })]);
  });
});
