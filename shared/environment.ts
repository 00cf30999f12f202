import * as read from './config';
import * as setting from './settings';

/**
 * This function's configuration, read from its environment once per cold start and checked
 * then, so a misconfigured function fails at start with a message naming the variable (every
 * variable that is wrong, in one message) instead of failing requests later.
 *
 * One export per setting (each read as its entry in shared/settings.ts says), and a function's bundle holds only those its code imports: each read
 * is marked pure, so esbuild drops the reads (and their rules and messages) of the settings
 * nobody imports, and the check at the end judges only the settings the function reads (a
 * function does not fail to start on a setting it never uses). Unbundled (the suites,
 * `npm start`) every setting is read and checked. Import the settings by name: `config`, the
 * object of them all, is for the suites and tools; a handler importing it would carry every rule
 * (docs/decisions/settings-read-per-function.md).
 */
const env = process.env;
const problems: read.Problems = [];

export const tableName = /* @__PURE__ */ read.settingOf(env, problems, setting.tableName);
export const topicPrefix = /* @__PURE__ */ read.settingOf(env, problems, setting.topicPrefix);
export const maxSubscriptionsPerPortal = /* @__PURE__ */ read.settingOf(env, problems, setting.maxSubscriptionsPerPortal);
export const eventKinds = /* @__PURE__ */ read.settingOf(env, problems, setting.eventKinds);
export const portalClaim = /* @__PURE__ */ read.settingOf(env, problems, setting.portalClaim);
export const deliveryDeadLetterQueueArn = /* @__PURE__ */ read.settingOf(env, problems, setting.deliveryDeadLetterQueueArn);
export const topicManagerArns = /* @__PURE__ */ read.settingOf(env, problems, setting.topicManagerArns);
export const reconcileGraceMinutes = /* @__PURE__ */ read.settingOf(env, problems, setting.reconcileGraceMinutes);
export const topicPublisherArns = /* @__PURE__ */ read.settingOf(env, problems, setting.topicPublisherArns);
export const allowedEndpointAccounts = /* @__PURE__ */ read.settingOf(env, problems, setting.allowedEndpointAccounts);
export const allowLoopbackEndpoints = /* @__PURE__ */ read.settingOf(env, problems, setting.allowLoopbackEndpoints);
export const deliveryStatusRoleArn = /* @__PURE__ */ read.settingOf(env, problems, setting.deliveryStatusRoleArn);
export const deliveryStatusSuccessSampleRate = /* @__PURE__ */ read.settingOf(env, problems, setting.deliveryStatusSuccessSampleRate);
export const deliveryStatusLogRetentionDays = /* @__PURE__ */ read.settingOf(env, problems, setting.deliveryStatusLogRetentionDays);
export const attemptKeepDays = /* @__PURE__ */ read.settingOf(env, problems, setting.attemptKeepDays);
export const maxAttemptsPerSubscription = /* @__PURE__ */ read.settingOf(env, problems, setting.maxAttemptsPerSubscription);
export const messageKeepDays = /* @__PURE__ */ read.settingOf(env, problems, setting.messageKeepDays);
export const recoverySendsPerSecond = /* @__PURE__ */ read.settingOf(env, problems, setting.recoverySendsPerSecond);
export const recoveryQueueUrl = /* @__PURE__ */ read.settingOf(env, problems, setting.recoveryQueueUrl);
export const deadLettersByPortalQueueUrl = /* @__PURE__ */ read.settingOf(env, problems, setting.deadLettersByPortalQueueUrl);
export const portalSendLimit: read.ServiceConfig['portalSendLimit'] = {
  burst: /* @__PURE__ */ read.settingOf(env, problems, setting.portalSendBurst),
  ratePerMinute: /* @__PURE__ */ read.settingOf(env, problems, setting.portalSendRatePerMinute),
};
export const portalChangeLimit: read.ServiceConfig['portalChangeLimit'] = {
  burst: /* @__PURE__ */ read.settingOf(env, problems, setting.portalChangeBurst),
  ratePerMinute: /* @__PURE__ */ read.settingOf(env, problems, setting.portalChangeRatePerMinute),
};
export const portalReadLimit: read.ServiceConfig['portalReadLimit'] = {
  burst: /* @__PURE__ */ read.settingOf(env, problems, setting.portalReadBurst),
  ratePerMinute: /* @__PURE__ */ read.settingOf(env, problems, setting.portalReadRatePerMinute),
};
export const confirmationRequestsPerDay = /* @__PURE__ */ read.settingOf(env, problems, setting.confirmationRequestsPerDay);
export const confirmationRequestIntervalMs = /* @__PURE__ */ read.settingOf(env, problems, setting.confirmationRequestIntervalSeconds);
export const deliveryRetryScheduleMs = /* @__PURE__ */ read.settingOf(env, problems, setting.deliveryRetrySchedule);
export const disableFailingAfterMs = /* @__PURE__ */ read.settingOf(env, problems, setting.disableFailingAfter);

// After every read above that the bundle kept: one error naming each variable that is wrong.
read.failOnProblems(problems);

/** Every setting, for the suites and the tools that need them all (never imported by a handler's code). */
export const config: read.ServiceConfig = {
  tableName,
  topicPrefix,
  maxSubscriptionsPerPortal,
  eventKinds,
  portalClaim,
  deliveryDeadLetterQueueArn,
  topicManagerArns,
  reconcileGraceMinutes,
  topicPublisherArns,
  allowedEndpointAccounts,
  allowLoopbackEndpoints,
  deliveryStatusRoleArn,
  deliveryStatusSuccessSampleRate,
  deliveryStatusLogRetentionDays,
  attemptKeepDays,
  maxAttemptsPerSubscription,
  messageKeepDays,
  recoverySendsPerSecond,
  recoveryQueueUrl,
  deadLettersByPortalQueueUrl,
  portalSendLimit,
  portalChangeLimit,
  portalReadLimit,
  confirmationRequestsPerDay,
  confirmationRequestIntervalMs,
  deliveryRetryScheduleMs,
  disableFailingAfterMs,
};
