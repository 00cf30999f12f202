import { logsClient } from '../shared/aws/cloudwatch-logs';
import { documentClient } from '../shared/aws/dynamodb';
import { snsClient } from '../shared/aws/sns';
import { topicManagersOf, topicPublishersOf } from '../shared/config';
import { deliveryDeadLetterQueueArn, deliveryStatusLogRetentionDays, deliveryStatusRoleArn, deliveryStatusSuccessSampleRate, reconcileGraceMinutes, tableName, topicManagerArns, topicPrefix, topicPublisherArns } from '../shared/environment';
import { deliveryStatusOf } from '../shared/subscriptions/delivery-status';
import { logger, withInvocationLogging } from '../shared/logger';
import { type ReconcileSummary, reconcileTopics } from '../shared/reconciliation/reconcile';
import { repositoryOf } from '../shared/data/bound-operations';
import { find, scanAllSubscriptions } from '../shared/data/subscription-reads';
import { replaceDeliveryArns, storeDeliveryStatusMark, storeSubscriptionState, storeTopicPolicyMark } from '../shared/data/subscription-records';
import { close, recreateTopic, reopen, topicsOf } from '../shared/subscriptions/topics';

const deps = {
  sns: snsClient,
  repository: repositoryOf({ db: documentClient, tableName }, { scanAllSubscriptions, find, replaceDeliveryArns, storeSubscriptionState, storeDeliveryStatusMark, storeTopicPolicyMark }),
  topics: topicsOf({ sns: snsClient, topicPrefix, publisherArns: topicPublishersOf({ topicPublisherArns }), managerArns: topicManagersOf({ topicManagerArns }), deliveryStatus: deliveryStatusOf({ deliveryStatusRoleArn, deliveryStatusSuccessSampleRate }) }, { close, reopen, recreateTopic }),
  topicPrefix,
  deadLetterQueueArn: deliveryDeadLetterQueueArn,
  graceMs: reconcileGraceMinutes * 60_000,
  now: Date.now,
  deliveryStatus: deliveryStatusOf({ deliveryStatusRoleArn, deliveryStatusSuccessSampleRate }),
  // Topics made before the access policy had its present statements or principals get it again.
  topicPolicy: { publisherArns: topicPublishersOf({ topicPublisherArns }), managerArns: topicManagersOf({ topicManagerArns }) },
  // The delivery status log groups SNS makes for the topics (they may hold endpoint passwords) keep their records this long.
  logRetention: { logs: logsClient, days: deliveryStatusLogRetentionDays },
};

/** The schedule's event, or `{"dryRun": true}` from an operator's `aws lambda invoke`. */
type ReconcileEvent = { dryRun?: unknown } | null | undefined;

/** One reconciliation run (shared/reconciliation/reconcile.ts); logs and answers its summary. */
export const handler = withInvocationLogging(
  'reconcileTopics',
  async (event: ReconcileEvent): Promise<ReconcileSummary> => {
    const summary = await reconcileTopics({ ...deps, dryRun: event?.dryRun === true });
    logger.info('reconciliation summary', { summary });
    return summary;
  },
);
