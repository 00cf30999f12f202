/**
 * The delivery status log groups SNS makes for the service's topics (with the first record it
 * writes there, keeping records forever) get DELIVERY_STATUS_LOG_RETENTION_DAYS from the
 * reconciler: they hold each delivery's `destination`, an endpoint URL that may carry its password
 * (docs/security.md, "Delivery status logs"). Through the CloudWatch Logs SDK client against the
 * SNS emulator's CloudWatch Logs side (infra/local/sns/log-groups.ts), as `npm run reconcile` does.
 */
import { CloudWatchLogsClient, DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { PublishCommand, SetTopicAttributesCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { waitFor } from '../support/wait-for';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

process.env.TABLE_NAME = 'webhook-subscriptions-reconciliation-log-retention';
process.env.TOPIC_PREFIX = 'webhooks-reconciling-log-retention';

const { TOPIC_PREFIX, inspectSns, handMadeTopic, emptyTableAndTopics } = await import('../support/reconciliation');
const { reconcileTopics } = await import('../../shared/reconciliation/reconcile');
const { documentClient } = await import('../../shared/aws/dynamodb');
const { snsClient } = await import('../../shared/aws/sns');
const { subscriptionRepository } = await import('../../shared/data/subscription-repository');
const { subscriptionTopics } = await import('../../shared/subscriptions/topics');
const { config } = await import('../../shared/environment');

const logs = new CloudWatchLogsClient({ endpoint: process.env.AWS_ENDPOINT_URL_SNS });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  logs.destroy();
  await receiver.close();
});
beforeEach(emptyTableAndTopics);

const run = (dryRun = false) =>
  reconcileTopics({
    sns: snsClient,
    repository: subscriptionRepository(documentClient, config.tableName),
    topics: subscriptionTopics(snsClient, TOPIC_PREFIX, [], []),
    topicPrefix: TOPIC_PREFIX,
    deadLetterQueueArn: undefined,
    graceMs: 15 * 60_000,
    now: Date.now,
    dryRun,
    logRetention: { logs, days: config.deliveryStatusLogRetentionDays },
  });

const groupsOfPrefix = async () =>
  (await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: `sns/us-east-1/000000000000/${TOPIC_PREFIX}-` }))).logGroups ?? [];

it('gives the log groups SNS made for the topics the configured retention (30 days by default), once; a dry run only counts them', async () => {
  // A topic that logs every delivery, as the service's do, and one delivered message: SNS makes its log group.
  const topicArn = await handMadeTopic(0);
  for (const [name, value] of Object.entries({ HTTPSuccessFeedbackRoleArn: 'arn:aws:iam::000000000000:role/logging', HTTPSuccessFeedbackSampleRate: '100' })) {
    await inspectSns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: name, AttributeValue: value }));
  }
  await inspectSns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'http', Endpoint: `${receiver.url}/logged` }));
  await waitFor('the confirmation', () => receiver.received.find((entry) => entry.path === '/logged'));
  await waitFor('the delivery', async () => {
    await inspectSns.send(new PublishCommand({ TopicArn: topicArn, Message: 'logged' }));
    return receiver.notificationsAt('/logged')[0];
  });
  const group = await waitFor('the log group', async () => (await groupsOfPrefix())[0]);
  expect(group.retentionInDays).toBeUndefined();

  expect(await run(true)).toMatchObject({ wouldSetLogRetentions: 1, errors: 0 });
  expect((await groupsOfPrefix())[0]!.retentionInDays).toBeUndefined();

  expect(config.deliveryStatusLogRetentionDays).toBe(30);
  expect(await run()).toMatchObject({ logRetentionsSet: 1, errors: 0 });
  expect((await groupsOfPrefix()).map(({ logGroupName, retentionInDays }) => [logGroupName, retentionInDays])).toEqual([
    [`sns/us-east-1/000000000000/${topicArn.split(':')[5]}`, 30],
  ]);
  expect(await run()).toMatchObject({ logRetentionsSet: 0, errors: 0 });
}, 60_000);
