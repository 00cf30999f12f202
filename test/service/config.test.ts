/** Bad configuration fails the function's start with a message naming the variable. */
import { loadConfig } from '../../shared/config';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    expect(loadConfig({ TABLE_NAME: 'subscriptions' })).toEqual({
      tableName: 'subscriptions',
      topicPrefix: 'webhooks',
      maxSubscriptionsPerPortal: 10,
      eventKinds: [
        'asset_bank.media.create',
        'asset_bank.media.updated',
        'asset_bank.media.meta_updated',
        'asset_bank.media.deleted',
        'asset_bank.media.archived',
        'asset_bank.media.pre_archived',
        'workflow.job.create',
        'antivirus.scan.failed',
      ],
      portalClaim: 'portal_id',
      reconcileGraceMinutes: 15,
    });
  });

  it('reads every variable', () => {
    expect(
      loadConfig({
        TABLE_NAME: 't',
        TOPIC_PREFIX: 'hooks_prod',
        MAX_SUBSCRIPTIONS_PER_PORTAL: '25',
        EVENT_KINDS: ' a.b , c.d,a.b ',
        PORTAL_CLAIM: 'custom:portal',
        RECONCILE_GRACE_MINUTES: '30',
      }),
    ).toEqual({
      tableName: 't',
      topicPrefix: 'hooks_prod',
      maxSubscriptionsPerPortal: 25,
      eventKinds: ['a.b', 'c.d'],
      portalClaim: 'custom:portal',
      reconcileGraceMinutes: 30,
    });
  });

  it.each([
    [{}, /TABLE_NAME is required/],
    [{ TABLE_NAME: 't', TOPIC_PREFIX: 'has spaces' }, /TOPIC_PREFIX must be/],
    [{ TABLE_NAME: 't', TOPIC_PREFIX: 'x'.repeat(220) }, /TOPIC_PREFIX must be/],
    [{ TABLE_NAME: 't', MAX_SUBSCRIPTIONS_PER_PORTAL: 'ten' }, /MAX_SUBSCRIPTIONS_PER_PORTAL must be a whole number/],
    [{ TABLE_NAME: 't', MAX_SUBSCRIPTIONS_PER_PORTAL: '0' }, /MAX_SUBSCRIPTIONS_PER_PORTAL must be a whole number/],
    [{ TABLE_NAME: 't', EVENT_KINDS: ' , ' }, /EVENT_KINDS must be/],
    [{ TABLE_NAME: 't', EVENT_KINDS: 'ok,not ok' }, /EVENT_KINDS .*invalid: not ok/],
    [{ TABLE_NAME: 't', PORTAL_CLAIM: 'a b' }, /PORTAL_CLAIM must be/],
    [{ TABLE_NAME: 't', RECONCILE_GRACE_MINUTES: '0' }, /RECONCILE_GRACE_MINUTES must be a whole number of minutes from 1 to 1440 \(got "0"\)/],
    [{ TABLE_NAME: 't', RECONCILE_GRACE_MINUTES: '1441' }, /RECONCILE_GRACE_MINUTES must be/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
