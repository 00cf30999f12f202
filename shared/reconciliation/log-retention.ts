/**
 * The retention of the delivery status log groups SNS writes for the service's topics
 * (`sns/<region>/<account>/<prefix>-<configId>` and `.../Failure`). SNS creates them itself, on
 * the first delivery it logs, with no retention: kept forever. They hold each delivery's
 * `destination`, an endpoint URL that may carry its basic-auth password (docs/security.md,
 * "Delivery status logs"), so each run gives every one of them that keeps its events longer, or
 * forever, the configured retention (DELIVERY_STATUS_LOG_RETENTION_DAYS): one DescribeLogGroups
 * page per 50 groups of the prefix, one PutRetentionPolicy per group not yet set.
 */
import { type CloudWatchLogsClient, DescribeLogGroupsCommand, PutRetentionPolicyCommand } from '@aws-sdk/client-cloudwatch-logs';
import { logger } from '../logger';

export interface LogRetentionDeps {
  logs: CloudWatchLogsClient;
  /** Days the log groups keep their events. */
  days: number;
  topicPrefix: string;
  dryRun: boolean;
}

/** `sns/<region>/<account>/<prefix>-`, the start of every log group SNS writes for a topic of the prefix. */
export function logGroupPrefixOf(topicArn: string, topicPrefix: string): string {
  const [, , , region, account] = topicArn.split(':');
  return `sns/${region}/${account}/${topicPrefix}-`;
}

/**
 * Sets the retention on the log groups of the prefix (in the region and account of `anyTopicArn`)
 * that have another or none. Returns how many it set (would set, in a dry run).
 */
export async function setLogRetention(deps: LogRetentionDeps, anyTopicArn: string | undefined, counts: { errors: number }): Promise<number> {
  if (!anyTopicArn) return 0;
  const logGroupNamePrefix = logGroupPrefixOf(anyTopicArn, deps.topicPrefix);
  let set = 0;
  let nextToken: string | undefined;
  do {
    let page;
    try {
      page = await deps.logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix, nextToken }));
    } catch (error) {
      // The rest of the run does not depend on it: counted, and the next run lists them again.
      counts.errors++;
      logger.error('could not list the delivery status log groups', { logGroupNamePrefix, error: error as Error });
      return set;
    }
    for (const { logGroupName, retentionInDays } of page.logGroups ?? []) {
      if (!logGroupName || retentionInDays === deps.days) continue;
      try {
        if (!deps.dryRun) await deps.logs.send(new PutRetentionPolicyCommand({ logGroupName, retentionInDays: deps.days }));
        set++;
        logger.info(deps.dryRun ? 'log group retention would be set' : 'log group retention set', { logGroupName, from: retentionInDays ?? 'never expire', days: deps.days });
      } catch (error) {
        counts.errors++;
        logger.error('could not set a log group retention', { logGroupName, error: error as Error });
      }
    }
    nextToken = page.nextToken;
  } while (nextToken);
  return set;
}
