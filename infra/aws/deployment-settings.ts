/**
 * What an operator chooses at deploy time, read from CDK context (`-c key=value` or the
 * `context` block of cdk.json) and checked before anything is synthesized, so a bad value
 * fails `cdk synth` with a message naming the key instead of failing every request later.
 *
 * Each key, its default and its rule are those of the settings table (shared/settings.ts), the
 * same the functions apply to their environment at cold start, so a value synth accepts never
 * fails a function's start. A key the table does not know is refused, so a misspelt one is not
 * silently ignored.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { splitList } from '../../shared/setting-rules';
import { SETTINGS, type Setting } from '../../shared/settings';

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
  /** The dispatcher's event source's maximum concurrency (docs/scale.md#fair-delivery says how to choose it). */
  readonly dispatcherMaxConcurrency: number;
  /** Steady-state requests per second of the API stage. */
  readonly throttlingRateLimit: number;
  /** Requests the API stage accepts in a burst above the rate. */
  readonly throttlingBurstLimit: number;
  /** PORTAL_SEND_BURST: requests of one route that makes SNS send (create, test, confirm, replay) a portal may send at once. */
  readonly portalSendBurst: number;
  /** PORTAL_SEND_RATE_PER_MINUTE: such requests a portal may send a minute once its burst is spent. */
  readonly portalSendRatePerMinute: number;
  /** PORTAL_CHANGE_BURST and PORTAL_CHANGE_RATE_PER_MINUTE: the same for update, activate, rename and delete. */
  readonly portalChangeBurst: number;
  readonly portalChangeRatePerMinute: number;
  /** PORTAL_READ_BURST and PORTAL_READ_RATE_PER_MINUTE: the same for list, dead letters and attempts. */
  readonly portalReadBurst: number;
  readonly portalReadRatePerMinute: number;
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
  /** MESSAGE_KEEP_DAYS: days a published message is kept in the message log; 30 by default. */
  readonly messageKeepDays: number;
  readonly recoverySendsPerSecond: number;
  /** DELIVERY_STATUS_LOG_RETENTION_DAYS: days the delivery status log groups of the service's topics keep their records. */
  readonly deliveryStatusLogRetentionDays: number;
  /** DELIVERY_RETRY_SCHEDULE: the waits of the scheduled retries of a dead letter, `5m,30m,2h,5h,10h,10h` by default. */
  readonly deliveryRetrySchedule: string;
  /** DISABLE_FAILING_AFTER: how long a subscription may fail, with no success, before it is disabled; `5d` by default. */
  readonly disableFailingAfter: string;
  /**
   * The admin page on AWS (infra/aws/admin-page-hosting.ts), when `adminPage=true`: its OAuth
   * client id at the platform, the scopes it asks for, the origins that may frame it, and the
   * origin CORS allows (unset: the distribution's own domain). Undefined: no page, no CORS.
   */
  readonly adminPage: AdminPageSettings | undefined;
  /**
   * For `sam local invoke` only: DynamoDB and SNS endpoints (those of `npm start`) that the
   * template then declares as AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL_SNS. SAM passes a
   * function only variables its template declares, so this is how SAM reaches the emulators.
   * Never deploy a template synthesized with them.
   */
  readonly localEndpoints: { readonly dynamoDb: string; readonly sns: string } | undefined;
}

export interface AdminPageSettings {
  readonly clientId: string;
  readonly scopes: string;
  readonly frameAncestors: readonly string[];
  readonly origin: string | undefined;
}

/** The settings synth reads: those of the table with a context key, in its order. */
const CONTEXT_SETTINGS = SETTINGS.filter((setting): setting is Setting & { contextKey: string } => setting.contextKey !== undefined);

/** The context keys, as an operator types them after `-c`. */
export const CONTEXT_KEYS: readonly string[] = CONTEXT_SETTINGS.map((setting) => setting.contextKey);
export type ContextKey = string;

export class DeploymentSettingsError extends Error {
  override readonly name = 'DeploymentSettingsError';
}

const EXAMPLE_COMMAND =
  'npx cdk synth -c jwtIssuer=https://auth.example.com -c jwtAudience=webhooks-api';

/**
 * Reads and checks every setting; throws one error listing every problem.
 * `readContext` is `(key) => app.node.tryGetContext(key)`; `givenKeys`, every key the app's
 * context holds (`Object.keys(app.node.getAllContext())`), each of which must be known.
 */
export function deploymentSettingsFrom(readContext: (key: ContextKey) => unknown, givenKeys: readonly string[] = []): DeploymentSettings {
  const problems = givenKeys.map(unknownKeyProblem).filter((problem) => problem !== undefined);
  const texts = new Map<string, string | undefined>();
  for (const setting of CONTEXT_SETTINGS) {
    const given = textOf(readContext(setting.contextKey));
    // Unset, the stack chooses a prefix of its own rather than the functions' default.
    const text = given ?? (setting.name === 'topicPrefix' ? undefined : setting.default);
    const problem = text === undefined ? setting.whenUnset : setting.rule?.(text);
    if (problem) problems.push(`${setting.contextKey} ${problem}`);
    texts.set(setting.contextKey, text);
  }
  const localDynamoDbEndpoint = texts.get('localDynamoDbEndpoint');
  const localSnsEndpoint = texts.get('localSnsEndpoint');
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
    ...valuesOf((key) => texts.get(key)),
    jwtIssuer: texts.get('jwtIssuer')!,
    jwtAudience: splitList(texts.get('jwtAudience')!),
    topicPrefix: texts.get('topicPrefix'),
    adminPage:
      texts.get('adminPage')!.toLowerCase() === 'true'
        ? {
            clientId: texts.get('adminPageClientId')!,
            scopes: texts.get('adminPageScopes')!,
            frameAncestors: splitList(texts.get('adminPageFrameAncestors') ?? ''),
            origin: texts.get('adminPageOrigin'),
          }
        : undefined,
    localEndpoints: localDynamoDbEndpoint && localSnsEndpoint ? { dynamoDb: localDynamoDbEndpoint, sns: localSnsEndpoint } : undefined,
  };
}

type DefaultedSettings = Omit<DeploymentSettings, 'jwtIssuer' | 'jwtAudience' | 'topicPrefix' | 'localEndpoints' | 'adminPage'>;

/** The settings that have a default, typed, from their texts. */
function valuesOf(text: (key: keyof DefaultedSettings) => string | undefined): DefaultedSettings {
  const number = (key: keyof DefaultedSettings) => Number(text(key));
  const list = (key: keyof DefaultedSettings) => splitList(text(key) ?? '');
  return {
    portalClaim: text('portalClaim')!,
    maxSubscriptionsPerPortal: number('maxSubscriptionsPerPortal'),
    eventKinds: list('eventKinds'),
    eventBusName: text('eventBusName')!,
    reconcileEveryMinutes: number('reconcileEveryMinutes'),
    reconcileGraceMinutes: number('reconcileGraceMinutes'),
    dispatcherMaxConcurrency: number('dispatcherMaxConcurrency'),
    throttlingRateLimit: number('throttlingRateLimit'),
    throttlingBurstLimit: number('throttlingBurstLimit'),
    portalSendBurst: number('portalSendBurst'),
    portalSendRatePerMinute: number('portalSendRatePerMinute'),
    portalChangeBurst: number('portalChangeBurst'),
    portalChangeRatePerMinute: number('portalChangeRatePerMinute'),
    portalReadBurst: number('portalReadBurst'),
    portalReadRatePerMinute: number('portalReadRatePerMinute'),
    confirmationRequestsPerDay: number('confirmationRequestsPerDay'),
    allowedEndpointAccounts: list('allowedEndpointAccounts'),
    operatorEmails: list('operatorEmails'),
    deliveryStatusSuccessSampleRate: number('deliveryStatusSuccessSampleRate'),
    attemptKeepDays: number('attemptKeepDays'),
    messageKeepDays: number('messageKeepDays'),
    recoverySendsPerSecond: number('recoverySendsPerSecond'),
    deliveryStatusLogRetentionDays: number('deliveryStatusLogRetentionDays'),
    deliveryRetrySchedule: text('deliveryRetrySchedule')!,
    disableFailingAfter: text('disableFailingAfter')!,
  };
}

/** What synth uses for each setting the operator leaves unset. */
export const DEFAULT_SETTINGS: DefaultedSettings = valuesOf((key) => CONTEXT_SETTINGS.find((setting) => setting.contextKey === key)?.default);

/** A context value as text, trimmed; undefined when unset or blank. cdk.json may give numbers and lists. */
function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = (Array.isArray(value) ? value.join(',') : String(value)).trim();
  return text === '' ? undefined : text;
}

// The CDK's own keys (feature flags, the CLI's switches such as aws:cdk:enable-path-metadata), and
// whatever cdk.json's context block holds, are not the operator's settings and pass.
const CDK_JSON_KEYS = new Set(Object.keys((JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context?: object }).context ?? {}));
const isCdkKey = (key: string) => /^(@aws-cdk\/|aws-cdk:|cdk-)/.test(key) || /[:/]/.test(key) || CDK_JSON_KEYS.has(key);

function unknownKeyProblem(key: string): string | undefined {
  if (CONTEXT_KEYS.includes(key) || isCdkKey(key)) return undefined;
  const [nearest] = CONTEXT_KEYS.map((known) => ({ known, distance: editDistance(key.toLowerCase(), known.toLowerCase()) })).sort((a, b) => a.distance - b.distance);
  const guess = nearest && nearest.distance <= 3 ? `; did you mean ${nearest.known}?` : '';
  return `${key} is an unknown context key${guess} (every key: docs/configuration.md).`;
}

/** Levenshtein's distance: the fewest one-character insertions, deletions and changes from a to b. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
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
