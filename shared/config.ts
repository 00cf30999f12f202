import { durationMs } from './durations';

/**
 * The service configuration: its defaults and the rules each value must follow.
 * Pure: each function reads the settings it uses once per cold start in environment.ts (one
 * reader per setting, below); the CDK app checks its context values with the same rules, so a
 * deployed function never fails to start on a value synth accepted.
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

// Each rule is a function of its own, not a member of one object, so that a bundle keeps only the
// rules of the settings its function reads (environment.ts).
const topicPrefixProblem = (value: string) =>
  TOPIC_PREFIX_PATTERN.test(value) ? undefined : `must be 1-219 characters of letters, digits, '-' or '_' (got "${value}").`;
const maxSubscriptionsPerPortalProblem = (text: string) => wholeNumberProblem(text, 1, 100_000);
function eventKindsProblem(kinds: readonly string[]): string | undefined {
  const invalid = kinds.filter((kind) => !EVENT_KIND_PATTERN.test(kind));
  return kinds.length > 0 && invalid.length === 0
    ? undefined
    : "must be a comma-separated list of event kinds of letters, digits, '.', '_', ':' or '-'" +
        (invalid.length ? ` (invalid: ${invalid.join(', ')}).` : ' (got none).');
}
// A create takes seconds (its function times out after 10 s); a minute is the least that is safe.
const reconcileGraceMinutesProblem = (text: string) =>
  /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 1440 ? undefined : `must be a whole number of minutes from 1 to 1440 (got "${text}").`;
const portalClaimProblem = (value: string) =>
  CLAIM_PATTERN.test(value) ? undefined : `must be a JWT claim name of letters, digits, '_', '.', ':', '/' or '-' (got "${value}").`;
// SNS's own range for the *SuccessFeedbackSampleRate topic attributes: a whole percentage.
const deliveryStatusSuccessSampleRateProblem = (text: string) =>
  /^\d+$/.test(text) && Number(text) <= 100 ? undefined : `must be a whole percentage from 0 to 100 (got "${text}").`;
// Attempts are read for troubleshooting; DynamoDB TTL deletes them (within days) after this.
const attemptKeepDaysProblem = (text: string) =>
  /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 90 ? undefined : `must be a whole number of days from 1 to 90 (got "${text}").`;
const maxAttemptsPerSubscriptionProblem = (text: string) => wholeNumberProblem(text, 10, 100_000);
const portalSendBurstProblem = (text: string) => wholeNumberProblem(text, 1, 100_000);
const portalSendRatePerMinuteProblem = (text: string) => wholeNumberProblem(text, 1, 600_000);
const confirmationRequestsPerDayProblem = (text: string) => wholeNumberProblem(text, 1, 1_000_000);
const confirmationRequestIntervalSecondsProblem = (text: string) => wholeNumberProblem(text, 0, 86_400);
function deliveryRetryScheduleProblem(text: string): string | undefined {
  const waits = splitListKeepingRepeats(text).map(durationMs);
  if (waits.length === 0 || waits.length > MAX_SCHEDULED_RETRIES || waits.some((wait) => wait === undefined)) {
    return `must be a comma-separated list of 1 to ${MAX_SCHEDULED_RETRIES} durations such as 5m,30m,2h (a whole number and s, m, h or d; got "${text}").`;
  }
  const total = (waits as number[]).reduce((sum, wait) => sum + wait, 0);
  return total <= MAX_RETRY_SCHEDULE_MS ? undefined : `must add up to at most 14d, the least time a dead letter is kept (got "${text}").`;
}
const disableFailingAfterProblem = (text: string) =>
  durationMs(text) !== undefined && durationMs(text)! <= 90 * 86_400_000
    ? undefined
    : `must be a duration from 1s to 90d, a whole number and s, m, h or d such as 5d (got "${text}").`;
function allowedEndpointAccountsProblem(accounts: readonly string[]): string | undefined {
  const invalid = accounts.filter((account) => !ACCOUNT_ID.test(account));
  return invalid.length === 0 ? undefined : `must be a comma-separated list of 12-digit AWS account ids (invalid: ${invalid.join(', ')}).`;
}

/**
 * What is wrong with each setting, as the end of a sentence that starts with its name
 * ("TOPIC_PREFIX must be ..."), or undefined when it is fine: the rules the CDK app checks its
 * context with (infra/aws/deployment-settings.ts).
 */
export const settingProblems = {
  topicPrefix: topicPrefixProblem,
  maxSubscriptionsPerPortal: maxSubscriptionsPerPortalProblem,
  eventKinds: eventKindsProblem,
  reconcileGraceMinutes: reconcileGraceMinutesProblem,
  portalClaim: portalClaimProblem,
  deliveryStatusSuccessSampleRate: deliveryStatusSuccessSampleRateProblem,
  attemptKeepDays: attemptKeepDaysProblem,
  maxAttemptsPerSubscription: maxAttemptsPerSubscriptionProblem,
  portalSendBurst: portalSendBurstProblem,
  portalSendRatePerMinute: portalSendRatePerMinuteProblem,
  confirmationRequestsPerDay: confirmationRequestsPerDayProblem,
  confirmationRequestIntervalSeconds: confirmationRequestIntervalSecondsProblem,
  deliveryRetrySchedule: deliveryRetryScheduleProblem,
  disableFailingAfter: disableFailingAfterProblem,
  allowedEndpointAccounts: allowedEndpointAccountsProblem,
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

/** The sentences saying what is wrong with the settings read so far, each starting with its variable's name. */
export type Problems = string[];
type Environment = NodeJS.ProcessEnv;

/** The variable's value, trimmed; undefined when it is unset or blank. */
function variable(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function check(problems: Problems, name: string, problem: string | undefined): void {
  if (problem) problems.push(`${name} ${problem}`);
}

/** A whole number setting: its text (or default) checked by `problemOf`, its value a number. */
function wholeNumber(env: Environment, problems: Problems, name: string, fallback: number, problemOf: (text: string) => string | undefined): number {
  const text = variable(env, name) ?? String(fallback);
  check(problems, name, problemOf(text));
  return Number(text);
}

/** A list of IAM principal ARNs, none by default. */
function principalArns(env: Environment, problems: Problems, name: string): string[] {
  const arns = splitList(variable(env, name) ?? '');
  const invalid = arns.filter((arn) => !IAM_PRINCIPAL_ARN.test(arn));
  if (invalid.length > 0) problems.push(`${name} must be a comma-separated list of IAM role or user ARNs (invalid: ${invalid.join(', ')}).`);
  return arns;
}

/*
 * One reader per setting: its value from the environment, or its default, and what is wrong with
 * it added to `problems`. loadConfig reads them all; a function's bundle reads those it uses
 * (environment.ts).
 */

export function tableNameOf(env: Environment, problems: Problems): string {
  const tableName = variable(env, 'TABLE_NAME');
  if (!tableName) problems.push('TABLE_NAME is required: set it to the name of the DynamoDB table of subscriptions.');
  return tableName!;
}

export function topicPrefixOf(env: Environment, problems: Problems): string {
  const topicPrefix = variable(env, 'TOPIC_PREFIX') ?? DEFAULT_TOPIC_PREFIX;
  check(problems, 'TOPIC_PREFIX', topicPrefixProblem(topicPrefix));
  return topicPrefix;
}

export const maxSubscriptionsPerPortalOf = (env: Environment, problems: Problems): number =>
  wholeNumber(env, problems, 'MAX_SUBSCRIPTIONS_PER_PORTAL', DEFAULT_MAX_SUBSCRIPTIONS_PER_PORTAL, maxSubscriptionsPerPortalProblem);

export function eventKindsOf(env: Environment, problems: Problems): readonly string[] {
  const kindsText = variable(env, 'EVENT_KINDS');
  const eventKinds = kindsText === undefined ? [...DEFAULT_EVENT_KINDS] : splitList(kindsText);
  check(problems, 'EVENT_KINDS', eventKindsProblem(eventKinds));
  return eventKinds;
}

export function portalClaimOf(env: Environment, problems: Problems): string {
  const portalClaim = variable(env, 'PORTAL_CLAIM') ?? DEFAULT_PORTAL_CLAIM;
  check(problems, 'PORTAL_CLAIM', portalClaimProblem(portalClaim));
  return portalClaim;
}

export function deliveryDeadLetterQueueArnOf(env: Environment, problems: Problems): string | undefined {
  const arn = variable(env, 'DELIVERY_DEAD_LETTER_QUEUE_ARN');
  if (arn !== undefined && !SQS_QUEUE_ARN.test(arn)) problems.push(`DELIVERY_DEAD_LETTER_QUEUE_ARN must be the ARN of a standard SQS queue (got "${arn}").`);
  return arn;
}

export const topicManagerArnsOf = (env: Environment, problems: Problems): readonly string[] => principalArns(env, problems, 'TOPIC_MANAGER_ARNS');
export const reconcileGraceMinutesOf = (env: Environment, problems: Problems): number =>
  wholeNumber(env, problems, 'RECONCILE_GRACE_MINUTES', DEFAULT_RECONCILE_GRACE_MINUTES, reconcileGraceMinutesProblem);
export const topicPublisherArnsOf = (env: Environment, problems: Problems): readonly string[] => principalArns(env, problems, 'TOPIC_PUBLISHER_ARNS');

export function allowedEndpointAccountsOf(env: Environment, problems: Problems): readonly string[] {
  const accounts = splitList(variable(env, 'ALLOWED_ENDPOINT_ACCOUNTS') ?? '');
  check(problems, 'ALLOWED_ENDPOINT_ACCOUNTS', allowedEndpointAccountsProblem(accounts));
  return accounts;
}

export function allowLoopbackEndpointsOf(env: Environment, problems: Problems): boolean {
  const text = variable(env, 'ALLOW_LOOPBACK_ENDPOINTS');
  const lowerCase = text?.toLowerCase() ?? 'false';
  if (lowerCase !== 'true' && lowerCase !== 'false') problems.push(`ALLOW_LOOPBACK_ENDPOINTS must be true or false (got "${text}").`);
  return lowerCase === 'true';
}

export function deliveryStatusRoleArnOf(env: Environment, problems: Problems): string | undefined {
  const arn = variable(env, 'DELIVERY_STATUS_ROLE_ARN');
  if (arn !== undefined && !IAM_ROLE_ARN.test(arn)) problems.push(`DELIVERY_STATUS_ROLE_ARN must be the ARN of an IAM role (got "${arn}").`);
  return arn;
}

export const deliveryStatusSuccessSampleRateOf = (env: Environment, problems: Problems): number =>
  wholeNumber(env, problems, 'DELIVERY_STATUS_SUCCESS_SAMPLE_RATE', DEFAULT_DELIVERY_STATUS_SUCCESS_SAMPLE_RATE, deliveryStatusSuccessSampleRateProblem);
export const attemptKeepDaysOf = (env: Environment, problems: Problems): number =>
  wholeNumber(env, problems, 'ATTEMPT_KEEP_DAYS', DEFAULT_ATTEMPT_KEEP_DAYS, attemptKeepDaysProblem);
export const maxAttemptsPerSubscriptionOf = (env: Environment, problems: Problems): number =>
  wholeNumber(env, problems, 'MAX_ATTEMPTS_PER_SUBSCRIPTION', DEFAULT_MAX_ATTEMPTS_PER_SUBSCRIPTION, maxAttemptsPerSubscriptionProblem);
export const portalSendLimitOf = (env: Environment, problems: Problems): ServiceConfig['portalSendLimit'] => ({
  burst: wholeNumber(env, problems, 'PORTAL_SEND_BURST', DEFAULT_PORTAL_SEND_BURST, portalSendBurstProblem),
  ratePerMinute: wholeNumber(env, problems, 'PORTAL_SEND_RATE_PER_MINUTE', DEFAULT_PORTAL_SEND_RATE_PER_MINUTE, portalSendRatePerMinuteProblem),
});
export const confirmationRequestsPerDayOf = (env: Environment, problems: Problems): number =>
  wholeNumber(env, problems, 'CONFIRMATION_REQUESTS_PER_DAY', DEFAULT_CONFIRMATION_REQUESTS_PER_DAY, confirmationRequestsPerDayProblem);
export const confirmationRequestIntervalMsOf = (env: Environment, problems: Problems): number =>
  wholeNumber(env, problems, 'CONFIRMATION_REQUEST_INTERVAL_SECONDS', DEFAULT_CONFIRMATION_REQUEST_INTERVAL_SECONDS, confirmationRequestIntervalSecondsProblem) * 1000;

export function deliveryRetryScheduleMsOf(env: Environment, problems: Problems): readonly number[] {
  const text = variable(env, 'DELIVERY_RETRY_SCHEDULE') ?? DEFAULT_DELIVERY_RETRY_SCHEDULE;
  check(problems, 'DELIVERY_RETRY_SCHEDULE', deliveryRetryScheduleProblem(text));
  return splitListKeepingRepeats(text).map((wait) => durationMs(wait)!);
}

export function disableFailingAfterMsOf(env: Environment, problems: Problems): number {
  const text = variable(env, 'DISABLE_FAILING_AFTER') ?? DEFAULT_DISABLE_FAILING_AFTER;
  check(problems, 'DISABLE_FAILING_AFTER', disableFailingAfterProblem(text));
  return durationMs(text)!;
}

/** Throws one ConfigurationError naming every variable that is wrong, if any is. */
export function failOnProblems(problems: Problems): void {
  if (problems.length > 0) throw new ConfigurationError(`Invalid configuration: ${problems.join(' ')}`);
}

/** Every setting of the service, read and checked: for the suites and the tools that need them all. */
export function loadConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  const problems: Problems = [];
  const config: ServiceConfig = {
    tableName: tableNameOf(env, problems),
    topicPrefix: topicPrefixOf(env, problems),
    maxSubscriptionsPerPortal: maxSubscriptionsPerPortalOf(env, problems),
    eventKinds: eventKindsOf(env, problems),
    portalClaim: portalClaimOf(env, problems),
    deliveryDeadLetterQueueArn: deliveryDeadLetterQueueArnOf(env, problems),
    topicManagerArns: topicManagerArnsOf(env, problems),
    reconcileGraceMinutes: reconcileGraceMinutesOf(env, problems),
    topicPublisherArns: topicPublisherArnsOf(env, problems),
    allowedEndpointAccounts: allowedEndpointAccountsOf(env, problems),
    allowLoopbackEndpoints: allowLoopbackEndpointsOf(env, problems),
    deliveryStatusRoleArn: deliveryStatusRoleArnOf(env, problems),
    deliveryStatusSuccessSampleRate: deliveryStatusSuccessSampleRateOf(env, problems),
    attemptKeepDays: attemptKeepDaysOf(env, problems),
    maxAttemptsPerSubscription: maxAttemptsPerSubscriptionOf(env, problems),
    portalSendLimit: portalSendLimitOf(env, problems),
    confirmationRequestsPerDay: confirmationRequestsPerDayOf(env, problems),
    confirmationRequestIntervalMs: confirmationRequestIntervalMsOf(env, problems),
    deliveryRetryScheduleMs: deliveryRetryScheduleMsOf(env, problems),
    disableFailingAfterMs: disableFailingAfterMsOf(env, problems),
  };
  failOnProblems(problems);
  return config;
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
