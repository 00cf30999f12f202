/** Bad configuration fails the function's start with a message naming the variable. */
import { loadConfig, topicManagersOf, topicPublishersOf } from '../../shared/config';

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
        'webhooks.subscription.failing',
        'webhooks.subscription.disabled',
      ],
      portalClaim: 'portal_id',
      reconcileGraceMinutes: 15,
      topicPublisherArns: [],
      topicManagerArns: [],
      allowedEndpointAccounts: [],
      allowLoopbackEndpoints: false,
      deliveryStatusSuccessSampleRate: 100,
      attemptKeepDays: 7,
      deliveryStatusLogRetentionDays: 30,
      maxAttemptsPerSubscription: 1000,
      messageKeepDays: 30,
      recoverySendsPerSecond: 10,
      recoveryQueueUrl: undefined,
      portalSendLimit: { burst: 25, ratePerMinute: 20 },
      portalChangeLimit: { burst: 20, ratePerMinute: 30 },
      portalReadLimit: { burst: 100, ratePerMinute: 300 },
      confirmationRequestsPerDay: 5,
      confirmationRequestIntervalMs: 300_000,
      deliveryRetryScheduleMs: [300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      disableFailingAfterMs: 5 * 86_400_000,
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
        TOPIC_PUBLISHER_ARNS: 'arn:aws:iam::123456789012:role/Dispatcher-1A, arn:aws:iam::123456789012:role/service/Test-2B',
        ALLOWED_ENDPOINT_ACCOUNTS: '123456789012',
        ALLOW_LOOPBACK_ENDPOINTS: 'TRUE',
        DELIVERY_STATUS_ROLE_ARN: 'arn:aws:iam::123456789012:role/SnsDeliveryStatus-3C',
        DELIVERY_STATUS_SUCCESS_SAMPLE_RATE: '25',
        ATTEMPT_KEEP_DAYS: '3',
        MAX_ATTEMPTS_PER_SUBSCRIPTION: '500',
        MESSAGE_KEEP_DAYS: '45',
        RECOVERY_SENDS_PER_SECOND: '25',
        RECOVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks-recoveries',
        PORTAL_SEND_BURST: '5',
        PORTAL_SEND_RATE_PER_MINUTE: '2',
        CONFIRMATION_REQUESTS_PER_DAY: '3',
        CONFIRMATION_REQUEST_INTERVAL_SECONDS: '600',
        DELIVERY_RETRY_SCHEDULE: '30s, 1m,1m,2h,1d',
        DISABLE_FAILING_AFTER: '36h',
      }),
    ).toEqual({
      tableName: 't',
      topicPrefix: 'hooks_prod',
      maxSubscriptionsPerPortal: 25,
      eventKinds: ['a.b', 'c.d'],
      portalClaim: 'custom:portal',
      reconcileGraceMinutes: 30,
      topicPublisherArns: ['arn:aws:iam::123456789012:role/Dispatcher-1A', 'arn:aws:iam::123456789012:role/service/Test-2B'],
      topicManagerArns: [],
      allowedEndpointAccounts: ['123456789012'],
      allowLoopbackEndpoints: true,
      deliveryStatusRoleArn: 'arn:aws:iam::123456789012:role/SnsDeliveryStatus-3C',
      deliveryStatusSuccessSampleRate: 25,
      attemptKeepDays: 3,
      deliveryStatusLogRetentionDays: 30,
      maxAttemptsPerSubscription: 500,
      messageKeepDays: 45,
      recoverySendsPerSecond: 25,
      recoveryQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks-recoveries',
      portalSendLimit: { burst: 5, ratePerMinute: 2 },
      portalChangeLimit: { burst: 20, ratePerMinute: 30 },
      portalReadLimit: { burst: 100, ratePerMinute: 300 },
      confirmationRequestsPerDay: 3,
      confirmationRequestIntervalMs: 600_000,
      deliveryRetryScheduleMs: [30_000, 60_000, 60_000, 7_200_000, 86_400_000],
      disableFailingAfterMs: 36 * 3_600_000,
    });
  });

  it.each([
    ['DELIVERY_RETRY_SCHEDULE', '5m,soon', /DELIVERY_RETRY_SCHEDULE must be a comma-separated list of 1 to 20 durations such as 5m,30m,2h/],
    ['DELIVERY_RETRY_SCHEDULE', '0s', /DELIVERY_RETRY_SCHEDULE must be a comma-separated list/],
    ['DELIVERY_RETRY_SCHEDULE', '10d,10d', /DELIVERY_RETRY_SCHEDULE must add up to at most 14d/],
    ['DISABLE_FAILING_AFTER', '5 days', /DISABLE_FAILING_AFTER must be a duration from 1s to 90d/],
    ['DISABLE_FAILING_AFTER', '91d', /DISABLE_FAILING_AFTER must be a duration from 1s to 90d/],
  ])('refuses %s=%s at start, naming the variable', (name, value, message) => {
    expect(() => loadConfig({ TABLE_NAME: 't', [name]: value })).toThrow(message);
  });

  it('leaves the functions that create topics unable to start without publishers', () => {
    expect(() => topicPublishersOf(loadConfig({ TABLE_NAME: 't' }))).toThrow(/TOPIC_PUBLISHER_ARNS is required by the functions that create topics/);
    expect(topicPublishersOf(loadConfig({ TABLE_NAME: 't', TOPIC_PUBLISHER_ARNS: 'arn:aws:iam::123456789012:role/x' }))).toEqual([
      'arn:aws:iam::123456789012:role/x',
    ]);
  });

  it('leaves the functions that create topics unable to start without topic managers', () => {
    expect(() => topicManagersOf(loadConfig({ TABLE_NAME: 't' }))).toThrow(/TOPIC_MANAGER_ARNS is required by the functions that create topics/);
    expect(topicManagersOf(loadConfig({ TABLE_NAME: 't', TOPIC_MANAGER_ARNS: 'arn:aws:iam::123456789012:role/x' }))).toEqual([
      'arn:aws:iam::123456789012:role/x',
    ]);
    expect(() => loadConfig({ TABLE_NAME: 't', TOPIC_MANAGER_ARNS: 'not-an-arn' })).toThrow(/TOPIC_MANAGER_ARNS must be a comma-separated list of IAM role or user ARNs/);
  });

  it.each([
    [{}, /TABLE_NAME is required/],
    [{ TABLE_NAME: 't', TOPIC_PREFIX: 'has spaces' }, /TOPIC_PREFIX must be/],
    [{ TABLE_NAME: 't', DELIVERY_STATUS_ROLE_ARN: 'arn:aws:iam::123456789012:user/x' }, /DELIVERY_STATUS_ROLE_ARN must be the ARN of an IAM role/],
    [{ TABLE_NAME: 't', DELIVERY_STATUS_SUCCESS_SAMPLE_RATE: '101' }, /DELIVERY_STATUS_SUCCESS_SAMPLE_RATE must be a whole percentage/],
    [{ TABLE_NAME: 't', ATTEMPT_KEEP_DAYS: '0' }, /ATTEMPT_KEEP_DAYS must be a whole number of days/],
    [{ TABLE_NAME: 't', MESSAGE_KEEP_DAYS: '91' }, /MESSAGE_KEEP_DAYS must be a whole number of days from 1 to 90/],
    [{ TABLE_NAME: 't', MAX_ATTEMPTS_PER_SUBSCRIPTION: '5' }, /MAX_ATTEMPTS_PER_SUBSCRIPTION must be a whole number/],
    [{ TABLE_NAME: 't', TOPIC_PREFIX: 'x'.repeat(220) }, /TOPIC_PREFIX must be/],
    [{ TABLE_NAME: 't', MAX_SUBSCRIPTIONS_PER_PORTAL: 'ten' }, /MAX_SUBSCRIPTIONS_PER_PORTAL must be a whole number/],
    [{ TABLE_NAME: 't', MAX_SUBSCRIPTIONS_PER_PORTAL: '0' }, /MAX_SUBSCRIPTIONS_PER_PORTAL must be a whole number/],
    [{ TABLE_NAME: 't', EVENT_KINDS: ' , ' }, /EVENT_KINDS must be/],
    [{ TABLE_NAME: 't', EVENT_KINDS: 'ok,not ok' }, /EVENT_KINDS .*invalid: not ok/],
    [{ TABLE_NAME: 't', PORTAL_CLAIM: 'a b' }, /PORTAL_CLAIM must be/],
    [{ TABLE_NAME: 't', RECONCILE_GRACE_MINUTES: '0' }, /RECONCILE_GRACE_MINUTES must be a whole number of minutes from 1 to 1440 \(got "0"\)/],
    [{ TABLE_NAME: 't', RECONCILE_GRACE_MINUTES: '1441' }, /RECONCILE_GRACE_MINUTES must be/],
    [{ TABLE_NAME: 't', TOPIC_PUBLISHER_ARNS: 'arn:aws:sts::123456789012:assumed-role/x/y' }, /TOPIC_PUBLISHER_ARNS must be a comma-separated list of IAM role or user ARNs/],
    [{ TABLE_NAME: 't', TOPIC_PUBLISHER_ARNS: 'role/x' }, /TOPIC_PUBLISHER_ARNS must be/],
    [{ TABLE_NAME: 't', ALLOWED_ENDPOINT_ACCOUNTS: '123' }, /ALLOWED_ENDPOINT_ACCOUNTS must be a comma-separated list of 12-digit AWS account ids \(invalid: 123\)/],
    [{ TABLE_NAME: 't', ALLOW_LOOPBACK_ENDPOINTS: 'yes' }, /ALLOW_LOOPBACK_ENDPOINTS must be true or false \(got "yes"\)/],
    [{ TABLE_NAME: 't', PORTAL_SEND_BURST: '0' }, /PORTAL_SEND_BURST must be a whole number from 1 to 100000 \(got "0"\)/],
    [{ TABLE_NAME: 't', PORTAL_SEND_RATE_PER_MINUTE: '1.5' }, /PORTAL_SEND_RATE_PER_MINUTE must be a whole number/],
    [{ TABLE_NAME: 't', CONFIRMATION_REQUESTS_PER_DAY: 'five' }, /CONFIRMATION_REQUESTS_PER_DAY must be a whole number/],
    [{ TABLE_NAME: 't', CONFIRMATION_REQUEST_INTERVAL_SECONDS: '-1' }, /CONFIRMATION_REQUEST_INTERVAL_SECONDS must be a whole number from 0 to 86400/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
