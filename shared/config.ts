import * as setting from './settings';

/**
 * The service configuration, and how a function reads one setting of it (settingOf): the
 * settings themselves, their defaults and rules are shared/settings.ts's. Each function reads the
 * settings it uses once per cold start in environment.ts; the CDK app checks its context values
 * with the same rules, so a deployed function never fails to start on a value synth accepted.
 */

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
  /** Days the delivery status log groups of the service's topics keep their records (DELIVERY_STATUS_LOG_RETENTION_DAYS). */
  readonly deliveryStatusLogRetentionDays: number;
  /** Days a delivery attempt is kept for GET /attempts (ATTEMPT_KEEP_DAYS). */
  readonly attemptKeepDays: number;
  /** Days a published message is kept in the message log (MESSAGE_KEEP_DAYS). */
  readonly messageKeepDays: number;
  /** Messages a second a portal's recoveries send at most (RECOVERY_SENDS_PER_SECOND). */
  readonly recoverySendsPerSecond: number;
  /** The recovery jobs' queue (RECOVERY_QUEUE_URL), set by the stack. */
  readonly recoveryQueueUrl: string | undefined;
  /** The fair queue the dead-letter recorder consumes (DEAD_LETTERS_BY_PORTAL_QUEUE_URL), set by the stack. */
  readonly deadLettersByPortalQueueUrl: string | undefined;
  /** Delivery attempts kept per subscription; past this the oldest give way (MAX_ATTEMPTS_PER_SUBSCRIPTION). */
  readonly maxAttemptsPerSubscription: number;
  /**
   * The per-portal limit on each route that makes SNS send (create, test, confirm, replay): a
   * portal may send `burst` requests of one route at once, and `ratePerMinute` a minute after
   * that (a token bucket, shared/http/middleware/portal-rate-limit.ts).
   */
  readonly portalSendLimit: { readonly burst: number; readonly ratePerMinute: number };
  /** The same on each route that changes a subscription (update, activate, rename, delete). */
  readonly portalChangeLimit: { readonly burst: number; readonly ratePerMinute: number };
  /** The same on each reading route (list, dead letters, attempts). */
  readonly portalReadLimit: { readonly burst: number; readonly ratePerMinute: number };
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

export { splitList, splitListKeepingRepeats } from './setting-rules';

/** The sentences saying what is wrong with the settings read so far, each starting with its variable's name. */
export type Problems = string[];
type Environment = NodeJS.ProcessEnv;

/**
 * One setting's value from the environment (trimmed; unset or blank: its default), and what is
 * wrong with it added to `problems`. loadConfig reads them all; a function's bundle reads those
 * it uses (environment.ts).
 */
export function settingOf<Value>(env: Environment, problems: Problems, { variable, default: fallback, whenUnset, rule, value }: setting.FunctionSetting<Value>): Value {
  // Unset or blank (after trimming, an empty string) reads as the default.
  const text = env[variable]?.trim() || fallback;
  const problem = text === undefined ? whenUnset : rule?.(text);
  if (problem) problems.push(`${variable} ${problem}`);
  return (text !== undefined && value ? value(text) : text) as Value;
}

/** Throws one ConfigurationError naming every variable that is wrong, if any is. */
export function failOnProblems(problems: Problems): void {
  if (problems.length > 0) throw new ConfigurationError(`Invalid configuration: ${problems.join(' ')}`);
}

/** Every setting of the service, read and checked: for the suites and the tools that need them all. */
export function loadConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  const problems: Problems = [];
  const read = <Value>(one: setting.FunctionSetting<Value>) => settingOf(env, problems, one);
  const config: ServiceConfig = {
    tableName: read(setting.tableName),
    topicPrefix: read(setting.topicPrefix),
    maxSubscriptionsPerPortal: read(setting.maxSubscriptionsPerPortal),
    eventKinds: read(setting.eventKinds),
    portalClaim: read(setting.portalClaim),
    deliveryDeadLetterQueueArn: read(setting.deliveryDeadLetterQueueArn),
    topicManagerArns: read(setting.topicManagerArns),
    reconcileGraceMinutes: read(setting.reconcileGraceMinutes),
    topicPublisherArns: read(setting.topicPublisherArns),
    allowedEndpointAccounts: read(setting.allowedEndpointAccounts),
    allowLoopbackEndpoints: read(setting.allowLoopbackEndpoints),
    deliveryStatusRoleArn: read(setting.deliveryStatusRoleArn),
    deliveryStatusSuccessSampleRate: read(setting.deliveryStatusSuccessSampleRate),
    deliveryStatusLogRetentionDays: read(setting.deliveryStatusLogRetentionDays),
    attemptKeepDays: read(setting.attemptKeepDays),
    maxAttemptsPerSubscription: read(setting.maxAttemptsPerSubscription),
    messageKeepDays: read(setting.messageKeepDays),
    recoverySendsPerSecond: read(setting.recoverySendsPerSecond),
    recoveryQueueUrl: read(setting.recoveryQueueUrl),
    deadLettersByPortalQueueUrl: read(setting.deadLettersByPortalQueueUrl),
    portalSendLimit: { burst: read(setting.portalSendBurst), ratePerMinute: read(setting.portalSendRatePerMinute) },
    portalChangeLimit: { burst: read(setting.portalChangeBurst), ratePerMinute: read(setting.portalChangeRatePerMinute) },
    portalReadLimit: { burst: read(setting.portalReadBurst), ratePerMinute: read(setting.portalReadRatePerMinute) },
    confirmationRequestsPerDay: read(setting.confirmationRequestsPerDay),
    confirmationRequestIntervalMs: read(setting.confirmationRequestIntervalSeconds),
    deliveryRetryScheduleMs: read(setting.deliveryRetrySchedule),
    disableFailingAfterMs: read(setting.disableFailingAfter),
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
