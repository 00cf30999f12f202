import * as read from './config';

/**
 * This function's configuration, read from its environment once per cold start and checked
 * then, so a misconfigured function fails at start with a message naming the variable (every
 * variable that is wrong, in one message) instead of failing requests later.
 *
 * One export per setting, and a function's bundle holds only those its code imports: each read
 * is marked pure, so esbuild drops the reads (and their rules and messages) of the settings
 * nobody imports, and the check at the end judges only the settings the function reads (a
 * function does not fail to start on a setting it never uses). Unbundled (the suites,
 * `npm start`) every setting is read and checked. Import the settings by name: `config`, the
 * object of them all, is for the suites and tools; a handler importing it would carry every rule
 * (docs/decisions/settings-read-per-function.md).
 */
const env = process.env;
const problems: read.Problems = [];

export const tableName = /* @__PURE__ */ read.tableNameOf(env, problems);
export const topicPrefix = /* @__PURE__ */ read.topicPrefixOf(env, problems);
export const maxSubscriptionsPerPortal = /* @__PURE__ */ read.maxSubscriptionsPerPortalOf(env, problems);
export const eventKinds = /* @__PURE__ */ read.eventKindsOf(env, problems);
export const portalClaim = /* @__PURE__ */ read.portalClaimOf(env, problems);
export const deliveryDeadLetterQueueArn = /* @__PURE__ */ read.deliveryDeadLetterQueueArnOf(env, problems);
export const topicManagerArns = /* @__PURE__ */ read.topicManagerArnsOf(env, problems);
export const reconcileGraceMinutes = /* @__PURE__ */ read.reconcileGraceMinutesOf(env, problems);
export const topicPublisherArns = /* @__PURE__ */ read.topicPublisherArnsOf(env, problems);
export const allowedEndpointAccounts = /* @__PURE__ */ read.allowedEndpointAccountsOf(env, problems);
export const allowLoopbackEndpoints = /* @__PURE__ */ read.allowLoopbackEndpointsOf(env, problems);
export const deliveryStatusRoleArn = /* @__PURE__ */ read.deliveryStatusRoleArnOf(env, problems);
export const deliveryStatusSuccessSampleRate = /* @__PURE__ */ read.deliveryStatusSuccessSampleRateOf(env, problems);
export const attemptKeepDays = /* @__PURE__ */ read.attemptKeepDaysOf(env, problems);
export const maxAttemptsPerSubscription = /* @__PURE__ */ read.maxAttemptsPerSubscriptionOf(env, problems);
export const portalSendLimit = /* @__PURE__ */ read.portalSendLimitOf(env, problems);
export const confirmationRequestsPerDay = /* @__PURE__ */ read.confirmationRequestsPerDayOf(env, problems);
export const confirmationRequestIntervalMs = /* @__PURE__ */ read.confirmationRequestIntervalMsOf(env, problems);
export const deliveryRetryScheduleMs = /* @__PURE__ */ read.deliveryRetryScheduleMsOf(env, problems);
export const disableFailingAfterMs = /* @__PURE__ */ read.disableFailingAfterMsOf(env, problems);

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
  attemptKeepDays,
  maxAttemptsPerSubscription,
  portalSendLimit,
  confirmationRequestsPerDay,
  confirmationRequestIntervalMs,
  deliveryRetryScheduleMs,
  disableFailingAfterMs,
};
