/**
 * Service configuration, read from the environment once per cold start and checked then, so
 * a misconfigured function fails at start with a message naming the variable instead of
 * failing requests later.
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
}

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

// SNS topic names are at most 256 characters of [A-Za-z0-9_-]; the suffix is '-' + a 36-character UUID.
const TOPIC_PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,219}$/;
const EVENT_KIND_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
const CLAIM_PATTERN = /^[A-Za-z0-9_.:/-]{1,128}$/;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };

  const tableName = read('TABLE_NAME');
  if (!tableName) problems.push('TABLE_NAME is required: set it to the name of the DynamoDB table of subscriptions.');

  const topicPrefix = read('TOPIC_PREFIX') ?? 'webhooks';
  if (!TOPIC_PREFIX_PATTERN.test(topicPrefix)) {
    problems.push(`TOPIC_PREFIX must be 1-219 characters of letters, digits, '-' or '_' (got "${topicPrefix}").`);
  }

  const maxText = read('MAX_SUBSCRIPTIONS_PER_PORTAL') ?? '10';
  const maxSubscriptionsPerPortal = Number(maxText);
  if (!/^\d+$/.test(maxText) || maxSubscriptionsPerPortal < 1 || maxSubscriptionsPerPortal > 100_000) {
    problems.push(`MAX_SUBSCRIPTIONS_PER_PORTAL must be a whole number from 1 to 100000 (got "${maxText}").`);
  }

  const kindsText = read('EVENT_KINDS');
  const eventKinds = kindsText
    ? [...new Set(kindsText.split(',').map((kind) => kind.trim()).filter(Boolean))]
    : [...DEFAULT_EVENT_KINDS];
  const badKinds = eventKinds.filter((kind) => !EVENT_KIND_PATTERN.test(kind));
  if (eventKinds.length === 0 || badKinds.length > 0) {
    problems.push(
      `EVENT_KINDS must be a comma-separated list of event kinds of letters, digits, '.', '_', ':' or '-'` +
        (badKinds.length ? ` (invalid: ${badKinds.join(', ')}).` : '.'),
    );
  }

  const portalClaim = read('PORTAL_CLAIM') ?? 'portal_id';
  if (!CLAIM_PATTERN.test(portalClaim)) {
    problems.push(`PORTAL_CLAIM must be a JWT claim name (got "${portalClaim}").`);
  }

  if (problems.length > 0) {
    throw new ConfigurationError(`Invalid configuration: ${problems.join(' ')}`);
  }
  return { tableName: tableName!, topicPrefix, maxSubscriptionsPerPortal, eventKinds, portalClaim };
}

/** The configuration of this process, checked when the first module that needs it loads. */
export const config: ServiceConfig = loadConfig();
