import { durationMs } from './durations';

/**
 * The service configuration: its defaults and the rules each value must follow.
 * Pure: the functions load theirs once per cold start in environment.ts; the CDK app checks
 * its context values with the same rules, so a deployed function never fails to start on a
 * value synth accepted.
 */

export const DEFAULT_EVENT_KINDS = [
  'asset_bank.media.create',
  'asset_bank.media.updated',
  'asset_bank.media.meta_updated',
  'asset_bank.media.deleted',
  'asset_bank.media.archived',
  'asset_bank.media.pre_archived',
  'workflow.job.create',
  'antivirus.scan.failed',
  // The service's own (shared/dead-letters/notices.ts): a subscription of the portal began failing, or was disabled.
  'webhooks.subscription.failing',
  'webhooks.subscription.disabled',
] as const;

export interface ServiceConfig {
  /** DynamoDB table holding subscription records. */
  readonly tableName: string;
  /** Prefix of SNS topic names (`${topicPrefix}-${configId}`); IAM is scoped to it. */
  readonly topicPrefix: string;
  readonly maxSubscriptionsPerPortal: number;
  /** The event kinds a subscription may list. */
  readonly eventKinds: readonly string[];
  /** JWT claim holding the caller's portal id. */
  readonly portalClaim: string;
  /**
   * The SQS queue (ARN) SNS sends each subscription's undeliverable messages to (its redrive
   * policy); unset, new subscriptions get none.
   */
  readonly deliveryDeadLetterQueueArn: string | undefined;
  /**
   * The reconciler's grace period, in minutes: a topic without a record younger than this (by
   * the UUIDv7 in its name) may belong to a create still in flight and is not deleted.
   */
  readonly reconcileGraceMinutes: number;
  /**
   * The IAM principals (role ARNs) that publish to the service's topics: the dispatcher and the
   * operations that publish. Every topic is created with an access policy denying sns:Publish to
   * every other principal; the functions that create topics need it (topicPublishersOf).
   */
  readonly topicPublisherArns: readonly string[];
  /**
   * The IAM principals (role ARNs) that subscribe endpoints to the service's topics and change or
   * delete them: create, confirm, delete and the reconciler. Every topic's access policy denies
   * those actions to every other principal but the account's root user (topicManagersOf).
   */
  readonly topicManagerArns: readonly string[];
  /**
   * Accounts whose sqs and lambda endpoints may be subscribed although they are the service's own
   * (SNS confirms those without their owner's consent); none by default.
   */
  readonly allowedEndpointAccounts: readonly string[];
  /**
   * Whether http/https endpoints on a loopback host (127.0.0.0/8, ::1, localhost) are accepted:
   * for receivers on the machine of `npm start`, which turns it on. Off by default: on AWS no
   * loopback endpoint can be a receiver (shared/subscriptions/endpoint-url.ts).
   */
  readonly allowLoopbackEndpoints: boolean;
  /**
   * The role SNS assumes to write each topic's delivery status logs (DELIVERY_STATUS_ROLE_ARN);
   * unset, topics are made without delivery status logging (shared/subscriptions/delivery-status.ts).
   */
  readonly deliveryStatusRoleArn: string | undefined;
  /** Percentage of successful deliveries SNS logs (DELIVERY_STATUS_SUCCESS_SAMPLE_RATE); failures are always logged. */
  readonly deliveryStatusSuccessSampleRate: number;
  /** Days a delivery attempt is kept for GET /attempts (ATTEMPT_KEEP_DAYS). */
  readonly attemptKeepDays: number;
  /** Delivery attempts kept per subscription; past this the oldest give way (MAX_ATTEMPTS_PER_SUBSCRIPTION). */
  readonly maxAttemptsPerSubscription: number;
  /**
   * The per-portal limit on each route that makes SNS send (create, test, confirm, replay): a
   * portal may send `burst` requests of one route at once, and `ratePerMinute` a minute after
   * that (a token bucket, shared/http/middleware/portal-rate-limit.ts).
   */
  readonly portalSendLimit: { readonly burst: number; readonly ratePerMinute: number };
  /** How many confirmation requests POST /confirm may have SNS send for one subscription per UTC day. */
  readonly confirmationRequestsPerDay: number;
  /** How long a pending confirmation request protects its endpoint from another one, in ms (5 minutes). */
  readonly confirmationRequestIntervalMs: number;
  /**
   * When a dead letter is published again, after SNS's own retries (DELIVERY_RETRY_SCHEDULE): the
   * wait before each scheduled retry, in ms, counted from when the last try became a dead letter.
   */
  readonly deliveryRetryScheduleMs: readonly number[];
  /** How long a subscription may fail, with no success, before it is disabled (DISABLE_FAILING_AFTER), in ms. */
  readonly disableFailingAfterMs: number;
}

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

export const DEFAULT_TOPIC_PREFIX = 'webhooks';
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_PORTAL = 10;
export const DEFAULT_PORTAL_CLAIM = 'portal_id';
export const DEFAULT_RECONCILE_GRACE_MINUTES = 15;
export const DEFAULT_DELIVERY_STATUS_SUCCESS_SAMPLE_RATE = 100;
export const DEFAULT_ATTEMPT_KEEP_DAYS = 7;
export const DEFAULT_MAX_ATTEMPTS_PER_SUBSCRIPTION = 1_000;
/** Requests of one SNS-sending route a portal may send at once (docs/security.md, "Rate limits"). */
export const DEFAULT_PORTAL_SEND_BURST = 25;
/** Requests of one SNS-sending route a portal may send a minute once its burst is spent. */
export const DEFAULT_PORTAL_SEND_RATE_PER_MINUTE = 20;
/** Confirmation requests POST /confirm may have SNS send to one subscription's endpoint per UTC day. */
export const DEFAULT_CONFIRMATION_REQUESTS_PER_DAY = 5;
/** No new confirmation request while one sent less than this ago is pending. */
export const DEFAULT_CONFIRMATION_REQUEST_INTERVAL_SECONDS = 300;
/** About 27 hours of retries after SNS's own, as Svix spaces them (docs/failed-deliveries.md#scheduled-retries). */
export const DEFAULT_DELIVERY_RETRY_SCHEDULE = '5m,30m,2h,5h,10h,10h';
export const DEFAULT_DISABLE_FAILING_AFTER = '5d';
/** A dead letter is kept 14 days at least: every retry must fall within them. */
const MAX_RETRY_SCHEDULE_MS = 14 * 86_400_000;
const MAX_SCHEDULED_RETRIES = 20;

// SNS topic names are at most 256 characters of [A-Za-z0-9_-]; the suffix is '-' + a 36-character UUID.
const TOPIC_PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,219}$/;
const EVENT_KIND_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
const CLAIM_PATTERN = /^[A-Za-z0-9_.:/-]{1,128}$/;
const SQS_QUEUE_ARN = /^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,80}$/;
// IAM's name rules for roles and users, with their optional path.
const IAM_PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(?:role|user)\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/;
const IAM_ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/;
const ACCOUNT_ID = /^\d{12}$/;

/**
 * What is wrong with each setting, as the end of a sentence that starts with its name
 * ("TOPIC_PREFIX must be ..."), or undefined when it is fine.
 */
export const settingProblems = {
  topicPrefix: (value: string) =>
    TOPIC_PREFIX_PATTERN.test(value) ? undefined : `must be 1-219 characters of letters, digits, '-' or '_' (got "${value}").`,
  maxSubscriptionsPerPortal: (text: string) =>
    /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 100_000
      ? undefined
      : `must be a whole number from 1 to 100000 (got "${text}").`,
  eventKinds: (kinds: readonly string[]) => {
    const invalid = kinds.filter((kind) => !EVENT_KIND_PATTERN.test(kind));
    return kinds.length > 0 && invalid.length === 0
      ? undefined
      : "must be a comma-separated list of event kinds of letters, digits, '.', '_', ':' or '-'" +
          (invalid.length ? ` (invalid: ${invalid.join(', ')}).` : ' (got none).');
  },
  // A create takes seconds (its function times out after 10 s); a minute is the least that is safe.
  reconcileGraceMinutes: (text: string) =>
    /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 1440
      ? undefined
      : `must be a whole number of minutes from 1 to 1440 (got "${text}").`,
  portalClaim: (value: string) =>
    CLAIM_PATTERN.test(value) ? undefined : `must be a JWT claim name of letters, digits, '_', '.', ':', '/' or '-' (got "${value}").`,
  // SNS's own range for the *SuccessFeedbackSampleRate topic attributes: a whole percentage.
  deliveryStatusSuccessSampleRate: (text: string) =>
    /^\d+$/.test(text) && Number(text) <= 100 ? undefined : `must be a whole percentage from 0 to 100 (got "${text}").`,
  // Attempts are read for troubleshooting; DynamoDB TTL deletes them (within days) after this.
  attemptKeepDays: (text: string) =>
    /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 90 ? undefined : `must be a whole number of days from 1 to 90 (got "${text}").`,
  maxAttemptsPerSubscription: (text: string) =>
    /^\d+$/.test(text) && Number(text) >= 10 && Number(text) <= 100_000 ? undefined : `must be a whole number from 10 to 100000 (got "${text}").`,
  portalSendBurst: (text: string) => wholeNumberProblem(text, 1, 100_000),
  portalSendRatePerMinute: (text: string) => wholeNumberProblem(text, 1, 600_000),
  confirmationRequestsPerDay: (text: string) => wholeNumberProblem(text, 1, 1_000_000),
  confirmationRequestIntervalSeconds: (text: string) => wholeNumberProblem(text, 0, 86_400),
  deliveryRetrySchedule: (text: string) => {
    const waits = splitListKeepingRepeats(text).map(durationMs);
    if (waits.length === 0 || waits.length > MAX_SCHEDULED_RETRIES || waits.some((wait) => wait === undefined)) {
      return `must be a comma-separated list of 1 to ${MAX_SCHEDULED_RETRIES} durations such as 5m,30m,2h (a whole number and s, m, h or d; got "${text}").`;
    }
    const total = (waits as number[]).reduce((sum, wait) => sum + wait, 0);
    return total <= MAX_RETRY_SCHEDULE_MS ? undefined : `must add up to at most 14d, the least time a dead letter is kept (got "${text}").`;
  },
  disableFailingAfter: (text: string) =>
    durationMs(text) !== undefined && durationMs(text)! <= 90 * 86_400_000
      ? undefined
      : `must be a duration from 1s to 90d, a whole number and s, m, h or d such as 5d (got "${text}").`,
  allowedEndpointAccounts: (accounts: readonly string[]) => {
    const invalid = accounts.filter((account) => !ACCOUNT_ID.test(account));
    return invalid.length === 0 ? undefined : `must be a comma-separated list of 12-digit AWS account ids (invalid: ${invalid.join(', ')}).`;
  },
};

function wholeNumberProblem(text: string, min: number, max: number): string | undefined {
  return /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max ? undefined : `must be a whole number from ${min} to ${max} (got "${text}").`;
}

/** A comma-separated list, trimmed, without empty entries; repeats kept (a schedule may wait 10h twice). */
export function splitListKeepingRepeats(text: string): string[] {
  return text.split(',').map((item) => item.trim()).filter(Boolean);
}

/** A comma-separated list, trimmed, without empty entries or duplicates. */
export function splitList(text: string): string[] {
  return [...new Set(text.split(',').map((item) => item.trim()).filter(Boolean))];
}

export function loadConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const check = (name: string, problem: string | undefined) => {
    if (problem) problems.push(`${name} ${problem}`);
  };

  const tableName = read('TABLE_NAME');
  if (!tableName) problems.push('TABLE_NAME is required: set it to the name of the DynamoDB table of subscriptions.');

  const topicPrefix = read('TOPIC_PREFIX') ?? DEFAULT_TOPIC_PREFIX;
  check('TOPIC_PREFIX', settingProblems.topicPrefix(topicPrefix));

  const maxText = read('MAX_SUBSCRIPTIONS_PER_PORTAL') ?? String(DEFAULT_MAX_SUBSCRIPTIONS_PER_PORTAL);
  check('MAX_SUBSCRIPTIONS_PER_PORTAL', settingProblems.maxSubscriptionsPerPortal(maxText));

  const kindsText = read('EVENT_KINDS');
  const eventKinds = kindsText === undefined ? [...DEFAULT_EVENT_KINDS] : splitList(kindsText);
  check('EVENT_KINDS', settingProblems.eventKinds(eventKinds));

  const portalClaim = read('PORTAL_CLAIM') ?? DEFAULT_PORTAL_CLAIM;
  check('PORTAL_CLAIM', settingProblems.portalClaim(portalClaim));

  const deliveryDeadLetterQueueArn = read('DELIVERY_DEAD_LETTER_QUEUE_ARN');
  if (deliveryDeadLetterQueueArn !== undefined && !SQS_QUEUE_ARN.test(deliveryDeadLetterQueueArn)) {
    problems.push(
      `DELIVERY_DEAD_LETTER_QUEUE_ARN must be the ARN of a standard SQS queue (got "${deliveryDeadLetterQueueArn}").`,
    );
  }

  const topicManagerArns = splitList(read('TOPIC_MANAGER_ARNS') ?? '');
  const invalidManagers = topicManagerArns.filter((arn) => !IAM_PRINCIPAL_ARN.test(arn));
  if (invalidManagers.length > 0) {
    problems.push(`TOPIC_MANAGER_ARNS must be a comma-separated list of IAM role or user ARNs (invalid: ${invalidManagers.join(', ')}).`);
  }

  const graceText = read('RECONCILE_GRACE_MINUTES') ?? String(DEFAULT_RECONCILE_GRACE_MINUTES);
  check('RECONCILE_GRACE_MINUTES', settingProblems.reconcileGraceMinutes(graceText));

  const topicPublisherArns = splitList(read('TOPIC_PUBLISHER_ARNS') ?? '');
  const invalidPublishers = topicPublisherArns.filter((arn) => !IAM_PRINCIPAL_ARN.test(arn));
  if (invalidPublishers.length > 0) {
    problems.push(`TOPIC_PUBLISHER_ARNS must be a comma-separated list of IAM role or user ARNs (invalid: ${invalidPublishers.join(', ')}).`);
  }

  const allowedEndpointAccounts = splitList(read('ALLOWED_ENDPOINT_ACCOUNTS') ?? '');
  check('ALLOWED_ENDPOINT_ACCOUNTS', settingProblems.allowedEndpointAccounts(allowedEndpointAccounts));

  const loopbackText = read('ALLOW_LOOPBACK_ENDPOINTS')?.toLowerCase() ?? 'false';
  if (loopbackText !== 'true' && loopbackText !== 'false') {
    problems.push(`ALLOW_LOOPBACK_ENDPOINTS must be true or false (got "${read('ALLOW_LOOPBACK_ENDPOINTS')}").`);
  }
  const deliveryStatusRoleArn = read('DELIVERY_STATUS_ROLE_ARN');
  if (deliveryStatusRoleArn !== undefined && !IAM_ROLE_ARN.test(deliveryStatusRoleArn)) {
    problems.push(`DELIVERY_STATUS_ROLE_ARN must be the ARN of an IAM role (got "${deliveryStatusRoleArn}").`);
  }
  const sampleRateText = read('DELIVERY_STATUS_SUCCESS_SAMPLE_RATE') ?? String(DEFAULT_DELIVERY_STATUS_SUCCESS_SAMPLE_RATE);
  check('DELIVERY_STATUS_SUCCESS_SAMPLE_RATE', settingProblems.deliveryStatusSuccessSampleRate(sampleRateText));
  const keepDaysText = read('ATTEMPT_KEEP_DAYS') ?? String(DEFAULT_ATTEMPT_KEEP_DAYS);
  check('ATTEMPT_KEEP_DAYS', settingProblems.attemptKeepDays(keepDaysText));
  const maxAttemptsText = read('MAX_ATTEMPTS_PER_SUBSCRIPTION') ?? String(DEFAULT_MAX_ATTEMPTS_PER_SUBSCRIPTION);
  check('MAX_ATTEMPTS_PER_SUBSCRIPTION', settingProblems.maxAttemptsPerSubscription(maxAttemptsText));
  const burstText = read('PORTAL_SEND_BURST') ?? String(DEFAULT_PORTAL_SEND_BURST);
  check('PORTAL_SEND_BURST', settingProblems.portalSendBurst(burstText));
  const rateText = read('PORTAL_SEND_RATE_PER_MINUTE') ?? String(DEFAULT_PORTAL_SEND_RATE_PER_MINUTE);
  check('PORTAL_SEND_RATE_PER_MINUTE', settingProblems.portalSendRatePerMinute(rateText));
  const confirmationsText = read('CONFIRMATION_REQUESTS_PER_DAY') ?? String(DEFAULT_CONFIRMATION_REQUESTS_PER_DAY);
  check('CONFIRMATION_REQUESTS_PER_DAY', settingProblems.confirmationRequestsPerDay(confirmationsText));
  const intervalText = read('CONFIRMATION_REQUEST_INTERVAL_SECONDS') ?? String(DEFAULT_CONFIRMATION_REQUEST_INTERVAL_SECONDS);
  check('CONFIRMATION_REQUEST_INTERVAL_SECONDS', settingProblems.confirmationRequestIntervalSeconds(intervalText));

  const scheduleText = read('DELIVERY_RETRY_SCHEDULE') ?? DEFAULT_DELIVERY_RETRY_SCHEDULE;
  check('DELIVERY_RETRY_SCHEDULE', settingProblems.deliveryRetrySchedule(scheduleText));
  const disableText = read('DISABLE_FAILING_AFTER') ?? DEFAULT_DISABLE_FAILING_AFTER;
  check('DISABLE_FAILING_AFTER', settingProblems.disableFailingAfter(disableText));

  if (problems.length > 0) {
    throw new ConfigurationError(`Invalid configuration: ${problems.join(' ')}`);
  }
  return {
    tableName: tableName!,
    topicPrefix,
    maxSubscriptionsPerPortal: Number(maxText),
    eventKinds,
    portalClaim,
    deliveryDeadLetterQueueArn,
    reconcileGraceMinutes: Number(graceText),
    topicPublisherArns,
    topicManagerArns,
    allowedEndpointAccounts,
    allowLoopbackEndpoints: loopbackText === 'true',
    deliveryStatusRoleArn,
    deliveryStatusSuccessSampleRate: Number(sampleRateText),
    attemptKeepDays: Number(keepDaysText),
    maxAttemptsPerSubscription: Number(maxAttemptsText),
    portalSendLimit: { burst: Number(burstText), ratePerMinute: Number(rateText) },
    confirmationRequestsPerDay: Number(confirmationsText),
    confirmationRequestIntervalMs: Number(intervalText) * 1000,
    deliveryRetryScheduleMs: splitListKeepingRepeats(scheduleText).map((wait) => durationMs(wait)!),
    disableFailingAfterMs: durationMs(disableText)!,
  };
}

/**
 * The principals named in the access policy of every topic a function creates. Only the
 * functions that create topics (create, the reconciler) call this, at cold start: without
 * publishers, their topics would admit nobody's Publish, so such a function fails to start.
 */
export function topicPublishersOf(config: Pick<ServiceConfig, 'topicPublisherArns'>): readonly string[] {
  if (config.topicPublisherArns.length === 0) {
    throw new ConfigurationError(
      'Invalid configuration: TOPIC_PUBLISHER_ARNS is required by the functions that create topics: ' +
        'set it to the ARNs of the roles that publish to them (the dispatcher and the test operation).',
    );
  }
  return config.topicPublisherArns;
}

/**
 * The principals every topic a function creates lets subscribe and change or delete it. Only
 * the functions that create topics call this, at cold start: without them, the service itself
 * could not subscribe an endpoint to its own topic, so such a function fails to start.
 */
export function topicManagersOf(config: Pick<ServiceConfig, 'topicManagerArns'>): readonly string[] {
  if (config.topicManagerArns.length === 0) {
    throw new ConfigurationError(
      'Invalid configuration: TOPIC_MANAGER_ARNS is required by the functions that create topics: ' +
        'set it to the ARNs of the roles that subscribe endpoints and change or delete topics (create, confirm, delete, the reconciler).',
    );
  }
  return config.topicManagerArns;
}
