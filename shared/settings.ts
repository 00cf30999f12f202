import { durationMs } from './durations';
import * as rule from './setting-rules';
import { splitList, splitListKeepingRepeats, type Rule } from './setting-rules';

/**
 * Every setting of the service, each declared once: the function settings below (what a
 * function's bundle carries of one: variable, default, rule, value), and SETTINGS, the table that
 * adds to each its name, CDK context key, the functions that read it and its meaning, beside the
 * CDK's own keys and the local stack's variables. From it come the functions' readers
 * (environment.ts), the CDK's checks (infra/aws/deployment-settings.ts), the variables the local
 * stack watches (infra/local/operation-handlers.ts), and docs/configuration.md, which a test holds
 * to it.
 *
 * Only plain object literals and pure calls at the top level here: a bundle keeps the function
 * settings its code reads, and nothing of the rest (not the table, nor its meanings).
 */

/** What a function's bundle carries of a setting it reads, for config.ts's settingOf. */
export interface FunctionSetting<Value> {
  readonly variable: string;
  /** The text the setting has when its variable is unset or blank; none: the value is undefined. */
  readonly default?: string;
  /** What is wrong when unset without a default; none: unset is fine. */
  readonly whenUnset?: string;
  readonly rule?: Rule;
  /** The value of a text the rule accepted (or of the default); none: the text itself. */
  readonly value?: (text: string) => Value;
}

const list = (value: string): readonly string[] => splitList(value);

export const tableName: FunctionSetting<string> = { variable: 'TABLE_NAME', whenUnset: rule.tableNameRequired };
export const topicPrefix: FunctionSetting<string> = { variable: 'TOPIC_PREFIX', default: 'webhooks', rule: rule.topicPrefixProblem };
export const maxSubscriptionsPerPortal: FunctionSetting<number> = {
  variable: 'MAX_SUBSCRIPTIONS_PER_PORTAL', default: '10', rule: rule.maxSubscriptionsPerPortalProblem, value: Number,
};
export const eventKinds: FunctionSetting<readonly string[]> = {
  variable: 'EVENT_KINDS',
  // The default catalog, and the service's own notices (shared/dead-letters/notices.ts).
  default: 'asset_bank.media.create,asset_bank.media.updated,asset_bank.media.meta_updated,asset_bank.media.deleted,asset_bank.media.archived,' +
    'asset_bank.media.pre_archived,workflow.job.create,antivirus.scan.failed,webhooks.subscription.failing,webhooks.subscription.disabled',
  rule: rule.eventKindsProblem,
  value: list,
};
export const portalClaim: FunctionSetting<string> = { variable: 'PORTAL_CLAIM', default: 'portal_id', rule: rule.portalClaimProblem };
export const deliveryDeadLetterQueueArn: FunctionSetting<string | undefined> = {
  variable: 'DELIVERY_DEAD_LETTER_QUEUE_ARN', rule: rule.deliveryDeadLetterQueueArnProblem,
};
export const topicManagerArns: FunctionSetting<readonly string[]> = { variable: 'TOPIC_MANAGER_ARNS', default: '', rule: rule.principalArnsProblem, value: list };
export const reconcileGraceMinutes: FunctionSetting<number> = {
  variable: 'RECONCILE_GRACE_MINUTES', default: '15', rule: rule.reconcileGraceMinutesProblem, value: Number,
};
export const topicPublisherArns: FunctionSetting<readonly string[]> = { variable: 'TOPIC_PUBLISHER_ARNS', default: '', rule: rule.principalArnsProblem, value: list };
export const allowedEndpointAccounts: FunctionSetting<readonly string[]> = {
  variable: 'ALLOWED_ENDPOINT_ACCOUNTS', default: '', rule: rule.allowedEndpointAccountsProblem, value: list,
};
export const allowLoopbackEndpoints: FunctionSetting<boolean> = {
  variable: 'ALLOW_LOOPBACK_ENDPOINTS', default: 'false', rule: rule.trueOrFalseProblem, value: (value) => value.toLowerCase() === 'true',
};
export const deliveryStatusRoleArn: FunctionSetting<string | undefined> = { variable: 'DELIVERY_STATUS_ROLE_ARN', rule: rule.deliveryStatusRoleArnProblem };
export const deliveryStatusSuccessSampleRate: FunctionSetting<number> = {
  variable: 'DELIVERY_STATUS_SUCCESS_SAMPLE_RATE', default: '100', rule: rule.deliveryStatusSuccessSampleRateProblem, value: Number,
};
export const deliveryStatusLogRetentionDays: FunctionSetting<number> = {
  variable: 'DELIVERY_STATUS_LOG_RETENTION_DAYS', default: '30', rule: rule.logRetentionDaysProblem, value: Number,
};
export const attemptKeepDays: FunctionSetting<number> = { variable: 'ATTEMPT_KEEP_DAYS', default: '7', rule: rule.attemptKeepDaysProblem, value: Number };
export const maxAttemptsPerSubscription: FunctionSetting<number> = {
  variable: 'MAX_ATTEMPTS_PER_SUBSCRIPTION', default: '1000', rule: rule.maxAttemptsPerSubscriptionProblem, value: Number,
};
export const messageKeepDays: FunctionSetting<number> = { variable: 'MESSAGE_KEEP_DAYS', default: '30', rule: rule.messageKeepDaysProblem, value: Number };
export const portalSendBurst: FunctionSetting<number> = { variable: 'PORTAL_SEND_BURST', default: '25', rule: rule.portalSendBurstProblem, value: Number };
export const portalSendRatePerMinute: FunctionSetting<number> = {
  variable: 'PORTAL_SEND_RATE_PER_MINUTE', default: '20', rule: rule.portalSendRatePerMinuteProblem, value: Number,
};
export const portalChangeBurst: FunctionSetting<number> = { variable: 'PORTAL_CHANGE_BURST', default: '20', rule: rule.portalSendBurstProblem, value: Number };
export const portalChangeRatePerMinute: FunctionSetting<number> = {
  variable: 'PORTAL_CHANGE_RATE_PER_MINUTE', default: '30', rule: rule.portalSendRatePerMinuteProblem, value: Number,
};
export const portalReadBurst: FunctionSetting<number> = { variable: 'PORTAL_READ_BURST', default: '100', rule: rule.portalSendBurstProblem, value: Number };
export const portalReadRatePerMinute: FunctionSetting<number> = {
  variable: 'PORTAL_READ_RATE_PER_MINUTE', default: '300', rule: rule.portalSendRatePerMinuteProblem, value: Number,
};
export const confirmationRequestsPerDay: FunctionSetting<number> = {
  variable: 'CONFIRMATION_REQUESTS_PER_DAY', default: '5', rule: rule.confirmationRequestsPerDayProblem, value: Number,
};
/** Its value in ms. */
export const confirmationRequestIntervalSeconds: FunctionSetting<number> = {
  variable: 'CONFIRMATION_REQUEST_INTERVAL_SECONDS', default: '300', rule: rule.confirmationRequestIntervalSecondsProblem, value: (value) => Number(value) * 1000,
};
/** Its value: each wait in ms. About 27 hours of retries after SNS's own, as Svix spaces them (docs/failed-deliveries.md#scheduled-retries). */
export const deliveryRetrySchedule: FunctionSetting<readonly number[]> = {
  variable: 'DELIVERY_RETRY_SCHEDULE', default: '5m,30m,2h,5h,10h,10h', rule: rule.deliveryRetryScheduleProblem,
  value: (value) => splitListKeepingRepeats(value).map((wait) => durationMs(wait)!),
};
/** Sends a second a portal's recoveries make at most (docs/scale.md, "Recoveries"). */
export const recoverySendsPerSecond: FunctionSetting<number> = {
  variable: 'RECOVERY_SENDS_PER_SECOND', default: '10', rule: rule.recoverySendsPerSecondProblem, value: Number,
};
export const recoveryQueueUrl: FunctionSetting<string | undefined> = { variable: 'RECOVERY_QUEUE_URL', rule: rule.queueUrlProblem };
export const deadLettersByPortalQueueUrl: FunctionSetting<string | undefined> = { variable: 'DEAD_LETTERS_BY_PORTAL_QUEUE_URL', rule: rule.queueUrlProblem };
/** Its value in ms. */
export const disableFailingAfter: FunctionSetting<number> = {
  variable: 'DISABLE_FAILING_AFTER', default: '5d', rule: rule.disableFailingAfterProblem, value: (value) => durationMs(value)!,
};

/** The functions, as functions/ names them. */
export type FunctionName =
  | 'activateSubscription' | 'confirmSubscription' | 'createSubscription' | 'deleteSubscription' | 'dispatchPortalEvents' | 'listAttempts'
  | 'listDeadLetters' | 'listMessages' | 'listSubscriptions' | 'reconcileTopics' | 'recordDeadLetters' | 'recordDeliveryAttempts' | 'renameSubscription'
  | 'replayDeadLetters' | 'resendMessage' | 'retryDeadLetters' | 'testFilter' | 'testSubscription' | 'updateSubscription'
  | 'recoverMessages' | 'listRecoveries' | 'runRecoveries' | 'forwardDeadLetters';

/**
 * One setting. kind: `function`, a variable a function reads and checks at cold start; `sdk` and
 * `log`, variables the AWS SDK or the logger reads, unchecked; `cdk`, a context key only synth
 * reads; `local`, a variable of `npm start`'s own.
 */
export interface Setting {
  readonly name: string;
  readonly kind: 'function' | 'sdk' | 'log' | 'cdk' | 'local';
  readonly variable?: string;
  readonly contextKey?: string;
  readonly rule?: Rule;
  /** As text; none: unset unless given (whenUnset says when that is wrong). */
  readonly default?: string;
  readonly whenUnset?: string;
  readonly readBy: readonly FunctionName[];
  readonly meaning: string;
}

/** The settings table; a function of its own so that no bundle holds it. */
export const SETTINGS: readonly Setting[] = /* @__PURE__ */ settingsTable();

function settingsTable(): Setting[] {
  const operations: FunctionName[] = [
    'activateSubscription', 'confirmSubscription', 'createSubscription', 'deleteSubscription', 'listAttempts', 'listDeadLetters',
    'listMessages', 'listSubscriptions', 'renameSubscription', 'replayDeadLetters', 'resendMessage', 'testFilter', 'testSubscription', 'updateSubscription',
    'recoverMessages', 'listRecoveries',
  ];
  const every: FunctionName[] = [...operations, 'dispatchPortalEvents', 'reconcileTopics', 'recordDeadLetters', 'recordDeliveryAttempts', 'retryDeadLetters', 'runRecoveries'];
  // test-filter reads and writes nothing stored but its rate-limit bucket.
  const tableReaders = every;
  const creating: FunctionName[] = ['createSubscription', 'reconcileTopics'];
  const sending: FunctionName[] = ['confirmSubscription', 'createSubscription', 'recoverMessages', 'replayDeadLetters', 'resendMessage', 'testSubscription'];
  const changing: FunctionName[] = ['activateSubscription', 'deleteSubscription', 'renameSubscription', 'updateSubscription'];
  const reading: FunctionName[] = ['listAttempts', 'listDeadLetters', 'listMessages', 'listRecoveries', 'listSubscriptions', 'testFilter'];
  const read = (name: string, setting: FunctionSetting<unknown>, about: Pick<Setting, 'readBy' | 'meaning' | 'contextKey'>): Setting => ({
    name, kind: 'function', ...setting, ...about,
  });
  const other = (kind: Setting['kind'], name: string, about: Omit<Setting, 'kind' | 'name' | 'readBy'> & { readBy?: FunctionName[] }): Setting => ({
    kind, name, readBy: [], ...about,
  });
  return [
    other('cdk', 'jwtIssuer', { contextKey: 'jwtIssuer', whenUnset: rule.jwtIssuerRequired, rule: rule.jwtIssuerProblem, meaning: "the token issuer, an https:// URL, exactly as the tokens' iss" }),
    other('cdk', 'jwtAudience', { contextKey: 'jwtAudience', whenUnset: rule.jwtAudienceRequired, rule: rule.jwtAudienceProblem, meaning: 'the audiences the API accepts, comma-separated' }),
    read('tableName', tableName, { readBy: tableReaders, meaning: 'the DynamoDB table of subscriptions' }),
    read('portalClaim', portalClaim, { contextKey: 'portalClaim', readBy: operations, meaning: "the JWT claim holding the caller's portal id" }),
    read('topicPrefix', topicPrefix, {
      contextKey: 'topicPrefix',
      readBy: ['confirmSubscription', 'createSubscription', 'deleteSubscription', 'forwardDeadLetters', 'reconcileTopics', 'recordDeadLetters', 'recordDeliveryAttempts'],
      meaning: "the prefix of the subscriptions' SNS topic names, to which IAM is scoped (on AWS, unset: one unique to the stack)",
    }),
    read('maxSubscriptionsPerPortal', maxSubscriptionsPerPortal, { contextKey: 'maxSubscriptionsPerPortal', readBy: ['createSubscription', 'listSubscriptions'], meaning: 'subscriptions a portal may have' }),
    read('eventKinds', eventKinds, { contextKey: 'eventKinds', readBy: ['createSubscription', 'dispatchPortalEvents', 'updateSubscription'], meaning: 'the event kinds a subscription may list' }),
    other('cdk', 'eventBusName', { contextKey: 'eventBusName', default: 'webhooks-portal-events', rule: rule.eventBusNameProblem, meaning: 'the EventBridge bus portal events arrive on' }),
    other('cdk', 'reconcileEveryMinutes', { contextKey: 'reconcileEveryMinutes', default: '15', rule: rule.reconcileEveryMinutesProblem, meaning: 'how often the reconciler runs' }),
    read('reconcileGraceMinutes', reconcileGraceMinutes, { contextKey: 'reconcileGraceMinutes', readBy: ['reconcileTopics'], meaning: 'how old a topic without a record must be before the reconciler deletes it' }),
    other('cdk', 'dispatcherMaxConcurrency', {
      contextKey: 'dispatcherMaxConcurrency', default: '10', rule: rule.dispatcherMaxConcurrencyProblem,
      meaning: "batches of portal events the dispatcher works on at once (its event source's maximum concurrency)",
    }),
    other('cdk', 'throttlingRateLimit', { contextKey: 'throttlingRateLimit', default: '50', rule: rule.throttlingRateLimitProblem, meaning: "the API stage's steady requests per second" }),
    other('cdk', 'throttlingBurstLimit', { contextKey: 'throttlingBurstLimit', default: '100', rule: rule.throttlingBurstLimitProblem, meaning: "the API stage's burst" }),
    read('portalSendBurst', portalSendBurst, { contextKey: 'portalSendBurst', readBy: sending, meaning: 'requests of one route that makes SNS send a portal may send at once' }),
    read('portalSendRatePerMinute', portalSendRatePerMinute, { contextKey: 'portalSendRatePerMinute', readBy: sending, meaning: 'such requests a portal may send a minute once its burst is spent' }),
    read('portalChangeBurst', portalChangeBurst, { contextKey: 'portalChangeBurst', readBy: changing, meaning: 'requests of one route that changes a subscription a portal may send at once' }),
    read('portalChangeRatePerMinute', portalChangeRatePerMinute, { contextKey: 'portalChangeRatePerMinute', readBy: changing, meaning: 'such requests a portal may send a minute once its burst is spent' }),
    read('portalReadBurst', portalReadBurst, { contextKey: 'portalReadBurst', readBy: reading, meaning: 'requests of one reading route a portal may send at once' }),
    read('portalReadRatePerMinute', portalReadRatePerMinute, { contextKey: 'portalReadRatePerMinute', readBy: reading, meaning: 'such requests a portal may send a minute once its burst is spent' }),
    read('confirmationRequestsPerDay', confirmationRequestsPerDay, { contextKey: 'confirmationRequestsPerDay', readBy: ['confirmSubscription'], meaning: 'confirmation requests POST /confirm may have SNS send to one endpoint per UTC day' }),
    read('allowedEndpointAccounts', allowedEndpointAccounts, {
      contextKey: 'allowedEndpointAccounts', readBy: ['confirmSubscription', 'createSubscription'], meaning: "accounts whose sqs and lambda endpoints are accepted although they are the service's own",
    }),
    other('cdk', 'operatorEmails', { contextKey: 'operatorEmails', default: '', rule: rule.operatorEmailsProblem, meaning: 'e-mail addresses subscribed to the operator alarm topic' }),
    read('deliveryStatusSuccessSampleRate', deliveryStatusSuccessSampleRate, { contextKey: 'deliveryStatusSuccessSampleRate', readBy: creating, meaning: 'the percentage of successful deliveries SNS logs' }),
    read('deliveryStatusLogRetentionDays', deliveryStatusLogRetentionDays, {
      contextKey: 'deliveryStatusLogRetentionDays', readBy: ['reconcileTopics'], meaning: "days the delivery status log groups SNS writes for the service's topics keep their records",
    }),
    read('attemptKeepDays', attemptKeepDays, { contextKey: 'attemptKeepDays', readBy: ['recordDeliveryAttempts'], meaning: 'days a delivery attempt is kept for GET /attempts' }),
    read('messageKeepDays', messageKeepDays, {
      contextKey: 'messageKeepDays',
      readBy: ['dispatchPortalEvents', 'recoverMessages', 'replayDeadLetters', 'resendMessage', 'retryDeadLetters', 'runRecoveries', 'testSubscription'],
      meaning: 'days a published message is kept, with its body, in the message log',
    }),
    read('recoverySendsPerSecond', recoverySendsPerSecond, {
      contextKey: 'recoverySendsPerSecond',
      readBy: ['runRecoveries'],
      meaning: "messages a second a portal's recoveries send at most, whatever its subscriptions' maxReceivesPerSecond",
    }),
    read('recoveryQueueUrl', recoveryQueueUrl, { readBy: ['recoverMessages', 'runRecoveries'], meaning: 'the SQS queue of recovery jobs (set by the stack)' }),
    read('deadLettersByPortalQueueUrl', deadLettersByPortalQueueUrl, {
      readBy: ['forwardDeadLetters'], meaning: 'the fair SQS queue the dead-letter recorder consumes, where the forwarder sends each dead letter keyed by its portal (set by the stack)',
    }),
    read('deliveryRetrySchedule', deliveryRetrySchedule, { contextKey: 'deliveryRetrySchedule', readBy: ['recordDeadLetters'], meaning: "the waits of a dead letter's scheduled retries after SNS's own" }),
    read('disableFailingAfter', disableFailingAfter, { contextKey: 'disableFailingAfter', readBy: ['recordDeadLetters', 'retryDeadLetters'], meaning: 'how long a subscription may fail, with no success, before it is disabled' }),
    other('cdk', 'adminPage', { contextKey: 'adminPage', default: 'false', rule: rule.trueOrFalseProblem, meaning: "true: deploy the admin page (S3 behind CloudFront, CORS on the API for its origin)" }),
    other('cdk', 'adminPageClientId', { contextKey: 'adminPageClientId', default: 'webhooks-admin-page', rule: rule.oauthClientIdProblem, meaning: "the page's OAuth client id at the platform (a public client: no secret)" }),
    other('cdk', 'adminPageScopes', { contextKey: 'adminPageScopes', default: 'webhooks.config:read webhooks.config:write', rule: rule.scopesProblem, meaning: 'the scopes the page asks for at sign-in' }),
    other('cdk', 'adminPageFrameAncestors', { contextKey: 'adminPageFrameAncestors', default: '', rule: rule.httpsOriginsProblem, meaning: 'the origins that may embed the page in a frame' }),
    other('cdk', 'adminPageOrigin', { contextKey: 'adminPageOrigin', rule: rule.httpsOriginProblem, meaning: "the page's origin CORS allows, when not the distribution's own domain" }),
    other('cdk', 'localDynamoDbEndpoint', { contextKey: 'localDynamoDbEndpoint', rule: rule.localEndpointProblem, meaning: "for sam local invoke only: npm start's DynamoDB endpoint" }),
    other('cdk', 'localSnsEndpoint', { contextKey: 'localSnsEndpoint', rule: rule.localEndpointProblem, meaning: "for sam local invoke only: npm start's SNS endpoint" }),
    read('deliveryDeadLetterQueueArn', deliveryDeadLetterQueueArn, { readBy: ['confirmSubscription', 'createSubscription', 'reconcileTopics'], meaning: "the SQS queue new SNS subscriptions' redrive policy names" }),
    read('topicPublisherArns', topicPublisherArns, { readBy: creating, meaning: "the principals each new topic's access policy lets publish" }),
    read('topicManagerArns', topicManagerArns, { readBy: creating, meaning: "the principals each new topic's access policy lets subscribe and change or delete it" }),
    read('allowLoopbackEndpoints', allowLoopbackEndpoints, { readBy: ['confirmSubscription', 'createSubscription'], meaning: 'whether endpoints on a loopback host are accepted' }),
    read('deliveryStatusRoleArn', deliveryStatusRoleArn, { readBy: creating, meaning: "the role SNS assumes to write each topic's delivery status logs" }),
    read('maxAttemptsPerSubscription', maxAttemptsPerSubscription, { readBy: ['recordDeliveryAttempts'], meaning: 'delivery attempts kept per subscription' }),
    read('confirmationRequestIntervalSeconds', confirmationRequestIntervalSeconds, { readBy: ['confirmSubscription'], meaning: 'how long a pending confirmation request keeps POST /confirm from sending another' }),
    other('sdk', 'awsRegion', { variable: 'AWS_REGION', readBy: every, meaning: "the region, which Lambda sets; the SDK's clients read it" }),
    other('sdk', 'dynamoDbEndpoint', { variable: 'AWS_ENDPOINT_URL_DYNAMODB', readBy: every, meaning: 'a DynamoDB endpoint of its own (npm start, sam local invoke)' }),
    other('sdk', 'snsEndpoint', { variable: 'AWS_ENDPOINT_URL_SNS', readBy: every, meaning: 'an SNS endpoint of its own (npm start, sam local invoke)' }),
    other('log', 'logLevel', { variable: 'POWERTOOLS_LOG_LEVEL', default: 'INFO', readBy: every, meaning: 'the log level' }),
    other('log', 'logFormat', { variable: 'LOG_FORMAT', readBy: every, meaning: 'pretty: one readable line per log entry; else JSON lines' }),
    other('local', 'port', { variable: 'PORT', default: '3000', meaning: 'the API and the token endpoint' }),
    other('local', 'dynamoDbPort', { variable: 'DYNAMODB_PORT', default: '8000', meaning: 'DynamoDB Local' }),
    other('local', 'snsPort', { variable: 'SNS_PORT', default: '9911', meaning: 'the SNS emulator' }),
    other('local', 'eventsPort', { variable: 'EVENTS_PORT', default: '9912', meaning: 'the EventBridge stand-in' }),
    other('local', 'localEventBusName', { variable: 'EVENT_BUS_NAME', default: 'webhooks-portal-events', meaning: 'the bus whose entries reach the dispatcher' }),
    other('local', 'dataDir', { variable: 'DATA_DIR', default: '.data', meaning: 'where state is kept' }),
    other('local', 'inMemory', { variable: 'IN_MEMORY', meaning: '1: keep nothing' }),
    other('local', 'localOAuthClients', { variable: 'LOCAL_OAUTH_CLIENTS', default: 'infra/local/auth/clients.json', meaning: 'the OAuth clients file' }),
    other('local', 'localTableName', { variable: 'TABLE_NAME', default: 'webhook-subscriptions', meaning: 'the table, created if missing' }),
    other('local', 'localRegion', { variable: 'AWS_REGION', default: 'us-east-1', meaning: 'the region of the ARNs' }),
    other('local', 'localLogFormat', { variable: 'LOG_FORMAT', default: 'pretty', meaning: 'pretty or json' }),
  ];
}
