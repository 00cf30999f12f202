/**
 * What an operator chooses at deploy time, read from CDK context (`-c key=value` or the
 * `context` block of cdk.json) and checked before anything is synthesized, so a bad value
 * fails `cdk synth` with a message naming the key instead of failing every request later.
 *
 * The checks on topicPrefix, maxSubscriptionsPerPortal, eventKinds, portalClaim,
 * allowedEndpointAccounts and the per-portal limits, and their defaults, are the ones the functions apply to their
 * environment at cold start (shared/config.ts), so a value synth accepts never fails a
 * function's start.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_EVENT_BUS_NAME } from '../../shared/delivery/portal-event';
import {
  DEFAULT_CONFIRMATION_REQUESTS_PER_DAY,
  DEFAULT_EVENT_KINDS,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_PORTAL,
  DEFAULT_PORTAL_CLAIM,
  DEFAULT_ATTEMPT_KEEP_DAYS,
  DEFAULT_DELIVERY_STATUS_SUCCESS_SAMPLE_RATE,
  DEFAULT_PORTAL_SEND_BURST,
  DEFAULT_PORTAL_SEND_RATE_PER_MINUTE,
  DEFAULT_RECONCILE_GRACE_MINUTES,
  DEFAULT_DELIVERY_RETRY_SCHEDULE,
  DEFAULT_DISABLE_FAILING_AFTER,
  settingProblems,
  splitList,
} from '../../shared/config';

export interface DeploymentSettings {
  /** Issuer (`iss`) the JWT authorizer accepts; API Gateway reads its OIDC discovery document. */
  readonly jwtIssuer: string;
  /** Audiences (`aud`, or `client_id`) the JWT authorizer accepts. */
  readonly jwtAudience: readonly string[];
  /** JWT claim holding the caller's portal id (PORTAL_CLAIM). */
  readonly portalClaim: string;
  /**
   * Prefix of the per-subscription SNS topic names (TOPIC_PREFIX); IAM and the topics' and
   * dead-letter queue's policies are scoped to it. Unset: one unique to the stack
   * (stackTopicPrefix), so no grant of this stack reaches a topic another stack or anyone made.
   */
  readonly topicPrefix: string | undefined;
  /** MAX_SUBSCRIPTIONS_PER_PORTAL. */
  readonly maxSubscriptionsPerPortal: number;
  /** EVENT_KINDS: the event kinds a subscription may choose. */
  readonly eventKinds: readonly string[];
  /** Name of the EventBridge bus portal events arrive on. */
  readonly eventBusName: string;
  /** How often the reconciler runs, in minutes. */
  readonly reconcileEveryMinutes: number;
  /** RECONCILE_GRACE_MINUTES: how old a topic without a record must be before the reconciler deletes it. */
  readonly reconcileGraceMinutes: number;
  /** Steady-state requests per second of the API stage. */
  readonly throttlingRateLimit: number;
  /** Requests the API stage accepts in a burst above the rate. */
  readonly throttlingBurstLimit: number;
  /** PORTAL_SEND_BURST: requests of one route that makes SNS send (create, test, confirm, replay) a portal may send at once. */
  readonly portalSendBurst: number;
  /** PORTAL_SEND_RATE_PER_MINUTE: such requests a portal may send a minute once its burst is spent. */
  readonly portalSendRatePerMinute: number;
  /** CONFIRMATION_REQUESTS_PER_DAY: confirmation requests POST /confirm may have SNS send to one endpoint per UTC day. */
  readonly confirmationRequestsPerDay: number;
  /**
   * ALLOWED_ENDPOINT_ACCOUNTS: accounts whose sqs and lambda endpoints create and confirm accept
   * although they are the stack's own (SNS confirms those without their owner's consent). None
   * by default: a queue or function of the stack's account is refused.
   */
  readonly allowedEndpointAccounts: readonly string[];
  /**
   * E-mail addresses subscribed to the operator alarm topic (infra/aws/operator-alarms.ts); none
   * by default (subscribe whatever you like to the topic of output OperatorAlarmTopicArn).
   */
  readonly operatorEmails: readonly string[];
  /**
   * DELIVERY_STATUS_SUCCESS_SAMPLE_RATE: the percentage of successful deliveries SNS logs, so
   * GET /attempts shows (failures are always logged); 100 by default. Lower it to pay less for
   * CloudWatch Logs and the consumer (docs/cost.md); the 24-hour delivered count then counts the sample.
   */
  readonly deliveryStatusSuccessSampleRate: number;
  /** ATTEMPT_KEEP_DAYS: days a delivery attempt is kept for GET /attempts; 7 by default. */
  readonly attemptKeepDays: number;
  /** DELIVERY_RETRY_SCHEDULE: the waits of the scheduled retries of a dead letter, `5m,30m,2h,5h,10h,10h` by default. */
  readonly deliveryRetrySchedule: string;
  /** DISABLE_FAILING_AFTER: how long a subscription may fail, with no success, before it is disabled; `5d` by default. */
  readonly disableFailingAfter: string;
  /**
   * For `sam local invoke` only: DynamoDB and SNS endpoints (those of `npm start`) that the
   * template then declares as AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL_SNS. SAM passes a
   * function only variables its template declares, so this is how SAM reaches the emulators.
   * Never deploy a template synthesized with them.
   */
  readonly localEndpoints: { readonly dynamoDb: string; readonly sns: string } | undefined;
}

export const DEFAULT_SETTINGS = {
  portalClaim: DEFAULT_PORTAL_CLAIM,
  maxSubscriptionsPerPortal: DEFAULT_MAX_SUBSCRIPTIONS_PER_PORTAL,
  eventKinds: DEFAULT_EVENT_KINDS,
  eventBusName: DEFAULT_EVENT_BUS_NAME,
  reconcileEveryMinutes: 15,
  reconcileGraceMinutes: DEFAULT_RECONCILE_GRACE_MINUTES,
  throttlingRateLimit: 50,
  throttlingBurstLimit: 100,
  deliveryStatusSuccessSampleRate: DEFAULT_DELIVERY_STATUS_SUCCESS_SAMPLE_RATE,
  attemptKeepDays: DEFAULT_ATTEMPT_KEEP_DAYS,
  portalSendBurst: DEFAULT_PORTAL_SEND_BURST,
  portalSendRatePerMinute: DEFAULT_PORTAL_SEND_RATE_PER_MINUTE,
  confirmationRequestsPerDay: DEFAULT_CONFIRMATION_REQUESTS_PER_DAY,
  deliveryRetrySchedule: DEFAULT_DELIVERY_RETRY_SCHEDULE,
  disableFailingAfter: DEFAULT_DISABLE_FAILING_AFTER,
} as const;

/** The context keys, as an operator types them after `-c`. */
export const CONTEXT_KEYS = [
  'jwtIssuer',
  'jwtAudience',
  'portalClaim',
  'topicPrefix',
  'maxSubscriptionsPerPortal',
  'eventKinds',
  'eventBusName',
  'reconcileEveryMinutes',
  'reconcileGraceMinutes',
  'throttlingRateLimit',
  'throttlingBurstLimit',
  'portalSendBurst',
  'portalSendRatePerMinute',
  'confirmationRequestsPerDay',
  'allowedEndpointAccounts',
  'operatorEmails',
  'deliveryStatusSuccessSampleRate',
  'attemptKeepDays',
  'deliveryRetrySchedule',
  'disableFailingAfter',
  'localDynamoDbEndpoint',
  'localSnsEndpoint',
] as const;
export type ContextKey = (typeof CONTEXT_KEYS)[number];

export class DeploymentSettingsError extends Error {
  override readonly name = 'DeploymentSettingsError';
}

const EXAMPLE_COMMAND =
  'npx cdk synth -c jwtIssuer=https://auth.example.com -c jwtAudience=webhooks-api';

/**
 * Reads and checks every setting; throws one error listing every problem.
 * `readContext` is `(key) => app.node.tryGetContext(key)`.
 */
export function deploymentSettingsFrom(readContext: (key: ContextKey) => unknown): DeploymentSettings {
  const problems: string[] = [];
  const text = (key: ContextKey): string | undefined => {
    const value = readContext(key);
    if (value === undefined || value === null) return undefined;
    const asText = (Array.isArray(value) ? value.join(',') : String(value)).trim();
    return asText === '' ? undefined : asText;
  };
  const list = (key: ContextKey): string[] | undefined => {
    const value = text(key);
    return value === undefined ? undefined : splitList(value);
  };
  const number = (key: ContextKey, fallback: number, { integer, min, max }: { integer: boolean; min: number; max: number }) => {
    const raw = text(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    const shape = integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
    if (!shape.test(raw) || value < min || value > max) {
      problems.push(`${key} must be a ${integer ? 'whole ' : ''}number from ${min} to ${max} (got "${raw}").`);
    }
    return value;
  };

  const jwtIssuer = text('jwtIssuer');
  if (jwtIssuer === undefined) {
    problems.push(
      'jwtIssuer is required: pass the token issuer of the authorization server, -c jwtIssuer=https://... ' +
        '(the exact "iss" of its tokens).',
    );
  } else if (!isHttpsUrl(jwtIssuer)) {
    problems.push(`jwtIssuer must be an https:// URL, as API Gateway's JWT authorizer requires (got "${jwtIssuer}").`);
  }

  const jwtAudience = list('jwtAudience');
  if (jwtAudience === undefined || jwtAudience.length === 0) {
    problems.push(
      'jwtAudience is required: pass the audience(s) the tokens are issued for, -c jwtAudience=... ' +
        '(comma-separated for several).',
    );
  }

  const check = (key: ContextKey, problem: string | undefined) => {
    if (problem) problems.push(`${key} ${problem}`);
  };

  const portalClaim = text('portalClaim') ?? DEFAULT_SETTINGS.portalClaim;
  check('portalClaim', settingProblems.portalClaim(portalClaim));

  const topicPrefix = text('topicPrefix');
  if (topicPrefix !== undefined) check('topicPrefix', settingProblems.topicPrefix(topicPrefix));

  const maxSubscriptionsPerPortal = number('maxSubscriptionsPerPortal', DEFAULT_SETTINGS.maxSubscriptionsPerPortal, {
    integer: true,
    min: 1,
    max: 100_000,
  });

  const eventKinds = list('eventKinds') ?? [...DEFAULT_SETTINGS.eventKinds];
  check('eventKinds', settingProblems.eventKinds(eventKinds));

  // EventBridge's rule for custom bus names; "default" is the account's own bus, not one to create.
  const eventBusName = text('eventBusName') ?? DEFAULT_SETTINGS.eventBusName;
  if (!/^[A-Za-z0-9._-]{1,256}$/.test(eventBusName) || eventBusName === 'default') {
    problems.push(`eventBusName must be 1-256 letters, digits, '.', '_' or '-', and not "default" (got "${eventBusName}").`);
  }

  // At least once a day; more often than every minute is not a rate EventBridge schedules.
  const reconcileEveryMinutes = number('reconcileEveryMinutes', DEFAULT_SETTINGS.reconcileEveryMinutes, {
    integer: true,
    min: 1,
    max: 1440,
  });
  const graceText = text('reconcileGraceMinutes') ?? String(DEFAULT_SETTINGS.reconcileGraceMinutes);
  check('reconcileGraceMinutes', settingProblems.reconcileGraceMinutes(graceText));

  // API Gateway's own limits for a stage: 10,000 requests per second, burst 5,000 (adjustable quotas).
  const throttlingRateLimit = number('throttlingRateLimit', DEFAULT_SETTINGS.throttlingRateLimit, {
    integer: false,
    min: 1,
    max: 10_000,
  });
  const throttlingBurstLimit = number('throttlingBurstLimit', DEFAULT_SETTINGS.throttlingBurstLimit, {
    integer: true,
    min: 1,
    max: 5_000,
  });

  // The functions' own rules (shared/config.ts), so a value synth accepts never fails a start.
  const portalSendBurst = text('portalSendBurst') ?? String(DEFAULT_SETTINGS.portalSendBurst);
  check('portalSendBurst', settingProblems.portalSendBurst(portalSendBurst));
  const portalSendRatePerMinute = text('portalSendRatePerMinute') ?? String(DEFAULT_SETTINGS.portalSendRatePerMinute);
  check('portalSendRatePerMinute', settingProblems.portalSendRatePerMinute(portalSendRatePerMinute));
  const confirmationRequestsPerDay = text('confirmationRequestsPerDay') ?? String(DEFAULT_SETTINGS.confirmationRequestsPerDay);
  check('confirmationRequestsPerDay', settingProblems.confirmationRequestsPerDay(confirmationRequestsPerDay));

  const allowedEndpointAccounts = list('allowedEndpointAccounts') ?? [];
  check('allowedEndpointAccounts', settingProblems.allowedEndpointAccounts(allowedEndpointAccounts));

  // Only the shape: SNS sends each address a confirmation link, and a wrong one never confirms.
  const operatorEmails = list('operatorEmails') ?? [];
  const notEmails = operatorEmails.filter((address) => !/^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/.test(address));
  if (notEmails.length > 0) {
    problems.push(`operatorEmails must be a comma-separated list of e-mail addresses (invalid: ${notEmails.join(', ')}).`);
  }

  const sampleRateText = text('deliveryStatusSuccessSampleRate') ?? String(DEFAULT_SETTINGS.deliveryStatusSuccessSampleRate);
  check('deliveryStatusSuccessSampleRate', settingProblems.deliveryStatusSuccessSampleRate(sampleRateText));
  const keepDaysText = text('attemptKeepDays') ?? String(DEFAULT_SETTINGS.attemptKeepDays);
  check('attemptKeepDays', settingProblems.attemptKeepDays(keepDaysText));

  const deliveryRetrySchedule = text('deliveryRetrySchedule') ?? DEFAULT_SETTINGS.deliveryRetrySchedule;
  check('deliveryRetrySchedule', settingProblems.deliveryRetrySchedule(deliveryRetrySchedule));
  const disableFailingAfter = text('disableFailingAfter') ?? DEFAULT_SETTINGS.disableFailingAfter;
  check('disableFailingAfter', settingProblems.disableFailingAfter(disableFailingAfter));

  const localDynamoDbEndpoint = text('localDynamoDbEndpoint');
  const localSnsEndpoint = text('localSnsEndpoint');
  for (const [key, value] of [
    ['localDynamoDbEndpoint', localDynamoDbEndpoint],
    ['localSnsEndpoint', localSnsEndpoint],
  ] as const) {
    if (value !== undefined && !isHttpUrl(value)) problems.push(`${key} must be an http:// or https:// URL (got "${value}").`);
  }
  if ((localDynamoDbEndpoint === undefined) !== (localSnsEndpoint === undefined)) {
    problems.push('localDynamoDbEndpoint and localSnsEndpoint go together: pass both or neither.');
  }

  if (problems.length > 0) {
    throw new DeploymentSettingsError(
      `Cannot synthesize the webhook subscriptions stack:\n  - ${problems.join('\n  - ')}\n` +
        `For example: ${EXAMPLE_COMMAND}`,
    );
  }
  return {
    jwtIssuer: jwtIssuer!,
    jwtAudience: jwtAudience!,
    portalClaim,
    topicPrefix,
    maxSubscriptionsPerPortal,
    eventKinds,
    eventBusName,
    reconcileEveryMinutes,
    reconcileGraceMinutes: Number(graceText),
    throttlingRateLimit,
    throttlingBurstLimit,
    portalSendBurst: Number(portalSendBurst),
    portalSendRatePerMinute: Number(portalSendRatePerMinute),
    confirmationRequestsPerDay: Number(confirmationRequestsPerDay),
    allowedEndpointAccounts,
    operatorEmails,
    deliveryStatusSuccessSampleRate: Number(sampleRateText),
    attemptKeepDays: Number(keepDaysText),
    deliveryRetrySchedule,
    disableFailingAfter,
    localEndpoints:
      localDynamoDbEndpoint && localSnsEndpoint ? { dynamoDb: localDynamoDbEndpoint, sns: localSnsEndpoint } : undefined,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The topic prefix of a stack whose operator set none: its name, and 8 hex digits of the name's
 * SHA-256. The digest keeps one stack's prefix from being the start of another's
 * (`WebhookSubscriptions-*` would reach `WebhookSubscriptions-staging-...`), and 8 hex digits
 * then `-` never match the 8 hex digits of a configId's start, so the old default's topics
 * (`webhooks-<configId>`) are out of reach too. A stack's name is unique in its account and
 * region, and topic ARNs carry both.
 */
export function stackTopicPrefix(stackName: string): string {
  return `${stackName}-${createHash('sha256').update(stackName).digest('hex').slice(0, 8)}`;
}
