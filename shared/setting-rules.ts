import { durationMs } from './durations';

/**
 * The rule of each setting: what is wrong with its text, as the end of a sentence that starts with
 * its variable or context key ("TOPIC_PREFIX must be ..."), or undefined when it is fine. The
 * functions check their environment with them at cold start and the CDK app its context at synth
 * (shared/settings.ts names which rule is whose). Each is a function of its own, not a member of
 * one object, so a bundle keeps only the rules of the settings its function reads.
 */
export type Rule = (text: string) => string | undefined;

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

/** A comma-separated list, trimmed, without empty entries; repeats kept (a schedule may wait 10h twice). */
export function splitListKeepingRepeats(text: string): string[] {
  return text.split(',').map((item) => item.trim()).filter(Boolean);
}

/** A comma-separated list, trimmed, without empty entries or duplicates. */
export function splitList(text: string): string[] {
  return [...new Set(text.split(',').map((item) => item.trim()).filter(Boolean))];
}

function wholeNumberProblem(text: string, min: number, max: number): string | undefined {
  return /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max ? undefined : `must be a whole number from ${min} to ${max} (got "${text}").`;
}

export const tableNameRequired = 'is required: set it to the name of the DynamoDB table of subscriptions.';
export const topicPrefixProblem: Rule = (value) =>
  TOPIC_PREFIX_PATTERN.test(value) ? undefined : `must be 1-219 characters of letters, digits, '-' or '_' (got "${value}").`;
export const maxSubscriptionsPerPortalProblem: Rule = (text) => wholeNumberProblem(text, 1, 100_000);
export function eventKindsProblem(text: string): string | undefined {
  const kinds = splitList(text);
  const invalid = kinds.filter((kind) => !EVENT_KIND_PATTERN.test(kind));
  return kinds.length > 0 && invalid.length === 0
    ? undefined
    : "must be a comma-separated list of event kinds of letters, digits, '.', '_', ':' or '-'" +
        (invalid.length ? ` (invalid: ${invalid.join(', ')}).` : ' (got none).');
}
export const portalClaimProblem: Rule = (value) =>
  CLAIM_PATTERN.test(value) ? undefined : `must be a JWT claim name of letters, digits, '_', '.', ':', '/' or '-' (got "${value}").`;
export const deliveryDeadLetterQueueArnProblem: Rule = (arn) =>
  SQS_QUEUE_ARN.test(arn) ? undefined : `must be the ARN of a standard SQS queue (got "${arn}").`;
export function principalArnsProblem(text: string): string | undefined {
  const invalid = splitList(text).filter((arn) => !IAM_PRINCIPAL_ARN.test(arn));
  return invalid.length === 0 ? undefined : `must be a comma-separated list of IAM role or user ARNs (invalid: ${invalid.join(', ')}).`;
}
// A create takes seconds (its function times out after 10 s); a minute is the least that is safe.
export const reconcileGraceMinutesProblem: Rule = (text) =>
  /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 1440 ? undefined : `must be a whole number of minutes from 1 to 1440 (got "${text}").`;
export function allowedEndpointAccountsProblem(text: string): string | undefined {
  const invalid = splitList(text).filter((account) => !ACCOUNT_ID.test(account));
  return invalid.length === 0 ? undefined : `must be a comma-separated list of 12-digit AWS account ids (invalid: ${invalid.join(', ')}).`;
}
export const trueOrFalseProblem: Rule = (text) => (/^(true|false)$/i.test(text) ? undefined : `must be true or false (got "${text}").`);
export const deliveryStatusRoleArnProblem: Rule = (arn) => (IAM_ROLE_ARN.test(arn) ? undefined : `must be the ARN of an IAM role (got "${arn}").`);
// SNS's own range for the *SuccessFeedbackSampleRate topic attributes: a whole percentage.
export const deliveryStatusSuccessSampleRateProblem: Rule = (text) =>
  /^\d+$/.test(text) && Number(text) <= 100 ? undefined : `must be a whole percentage from 0 to 100 (got "${text}").`;
// Attempts are read for troubleshooting; DynamoDB TTL deletes them (within days) after this.
export const attemptKeepDaysProblem: Rule = (text) =>
  /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 90 ? undefined : `must be a whole number of days from 1 to 90 (got "${text}").`;
// Messages are read to see what was sent and to send a window again; DynamoDB TTL deletes them after this.
export const messageKeepDaysProblem: Rule = (text) =>
  /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 90 ? undefined : `must be a whole number of days from 1 to 90 (got "${text}").`;
// The values CloudWatch Logs takes (PutRetentionPolicy's retentionInDays).
const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];
export const logRetentionDaysProblem: Rule = (text) =>
  /^\d+$/.test(text) && LOG_RETENTION_DAYS.includes(Number(text)) ? undefined : `must be one of CloudWatch Logs' retentions in days, ${LOG_RETENTION_DAYS.join(', ')} (got "${text}").`;
export const maxAttemptsPerSubscriptionProblem: Rule = (text) => wholeNumberProblem(text, 10, 100_000);
/** The largest burst of a per-portal budget (PORTAL_*_BURST); the document's RateLimit-* bounds follow from it. */
export const MAX_PORTAL_BURST = 100_000;
export const portalSendBurstProblem: Rule = (text) => wholeNumberProblem(text, 1, MAX_PORTAL_BURST);
export const portalSendRatePerMinuteProblem: Rule = (text) => wholeNumberProblem(text, 1, 600_000);
export const confirmationRequestsPerDayProblem: Rule = (text) => wholeNumberProblem(text, 1, 1_000_000);
export const confirmationRequestIntervalSecondsProblem: Rule = (text) => wholeNumberProblem(text, 0, 86_400);
export function deliveryRetryScheduleProblem(text: string): string | undefined {
  const waits = splitListKeepingRepeats(text).map(durationMs);
  if (waits.length === 0 || waits.length > MAX_SCHEDULED_RETRIES || waits.some((wait) => wait === undefined)) {
    return `must be a comma-separated list of 1 to ${MAX_SCHEDULED_RETRIES} durations such as 5m,30m,2h (a whole number and s, m, h or d; got "${text}").`;
  }
  const total = (waits as number[]).reduce((sum, wait) => sum + wait, 0);
  return total <= MAX_RETRY_SCHEDULE_MS ? undefined : `must add up to at most 14d, the least time a dead letter is kept (got "${text}").`;
}
export const disableFailingAfterProblem: Rule = (text) =>
  durationMs(text) !== undefined && durationMs(text)! <= 90 * 86_400_000
    ? undefined
    : `must be a duration from 1s to 90d, a whole number and s, m, h or d such as 5d (got "${text}").`;

/* The rules of the CDK's own keys, which no function reads (infra/aws/deployment-settings.ts). */

export const jwtIssuerRequired = 'is required: pass the token issuer of the authorization server, -c jwtIssuer=https://... (the exact "iss" of its tokens).';
export const jwtIssuerProblem: Rule = (value) =>
  isUrl(value, ['https:']) ? undefined : `must be an https:// URL, as API Gateway's JWT authorizer requires (got "${value}").`;
export const jwtAudienceRequired = 'is required: pass the audience(s) the tokens are issued for, -c jwtAudience=... (comma-separated for several).';
export const jwtAudienceProblem: Rule = (text) => (splitList(text).length > 0 ? undefined : jwtAudienceRequired);
// EventBridge's rule for custom bus names; "default" is the account's own bus, not one to create.
export const eventBusNameProblem: Rule = (name) =>
  /^[A-Za-z0-9._-]{1,256}$/.test(name) && name !== 'default'
    ? undefined
    : `must be 1-256 letters, digits, '.', '_' or '-', and not "default" (got "${name}").`;
// At least once a day; more often than every minute is not a rate EventBridge schedules.
export const reconcileEveryMinutesProblem: Rule = (text) => wholeNumberProblem(text, 1, 1440);
// API Gateway's own limits for a stage: 10,000 requests per second, burst 5,000 (adjustable quotas).
export const throttlingRateLimitProblem: Rule = (text) =>
  /^\d+(\.\d+)?$/.test(text) && Number(text) >= 1 && Number(text) <= 10_000 ? undefined : `must be a number from 1 to 10000 (got "${text}").`;
// Lambda's SQS event source takes a maximum concurrency of 2 to 1,000 ("Configuring scaling behavior for SQS event source mappings").
export const recoverySendsPerSecondProblem: Rule = (text) => wholeNumberProblem(text, 1, 1_000);
// An SQS queue URL (SQS Developer Guide, "Amazon SQS queue and message identifiers"), or the local stand-in's.
export const queueUrlProblem: Rule = (text) =>
  /^https?:\/\/[^\s/]+\/\d{12}\/[A-Za-z0-9_-]{1,80}$/.test(text) ? undefined : `must be the URL of an SQS queue, as https://sqs.eu-west-1.amazonaws.com/123456789012/name (got "${text}").`;
export const dispatcherMaxConcurrencyProblem: Rule = (text) => wholeNumberProblem(text, 2, 1_000);
export const throttlingBurstLimitProblem: Rule = (text) => wholeNumberProblem(text, 1, 5_000);
// Only the shape: SNS sends each address a confirmation link, and a wrong one never confirms.
export function operatorEmailsProblem(text: string): string | undefined {
  const invalid = splitList(text).filter((address) => !/^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/.test(address));
  return invalid.length === 0 ? undefined : `must be a comma-separated list of e-mail addresses (invalid: ${invalid.join(', ')}).`;
}
/** An origin as a browser names it: https://host[:port], nothing after it. */
const HTTPS_ORIGIN = /^https:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;
export const httpsOriginProblem: Rule = (value) => (HTTPS_ORIGIN.test(value) ? undefined : `must be an https:// origin, scheme and host only (got "${value}").`);
export function httpsOriginsProblem(text: string): string | undefined {
  const invalid = splitList(text).filter((origin) => !HTTPS_ORIGIN.test(origin));
  return invalid.length === 0 ? undefined : `must be https:// origins, comma-separated, scheme and host only (invalid: ${invalid.join(', ')}).`;
}
// RFC 6749 §3.3: space-separated scope tokens of printable ASCII but '"' and '\'.
export const scopesProblem: Rule = (text) =>
  /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(text) ? undefined : `must be OAuth scopes separated by single spaces (got "${text}").`;
export const oauthClientIdProblem: Rule = (text) => (/^[\x21-\x7e]{1,128}$/.test(text) ? undefined : `must be 1-128 printable characters without spaces (got "${text}").`);
export const localEndpointProblem: Rule = (value) => (isUrl(value, ['http:', 'https:']) ? undefined : `must be an http:// or https:// URL (got "${value}").`);

function isUrl(value: string, protocols: readonly string[]): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}
