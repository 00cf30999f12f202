/**
 * Delivery status logging on the service's topics, as SNS holds it: a topic made with logging
 * configured carries SNS's topic attributes for http/https, sqs and lambda (the role, the success
 * sample rate); the reconciler gives a topic made before the logging the same attributes, once,
 * and again only when the role or the rate changes. Against the SNS emulator and DynamoDB Local.
 */
import { randomUUID } from 'node:crypto';
import { GetTopicAttributesCommand } from '@aws-sdk/client-sns';
import { documentClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { config } from '../../shared/environment';
import { reconcileTopics } from '../../shared/reconciliation/reconcile';
import { newConfigId } from '../../shared/subscriptions/config-id';
import type { Subscription } from '../../shared/subscriptions/model';
import { subscriptionRepository } from '../../shared/data/subscription-repository';
import { subscriptionTopics, topicsOf, open, topicArnFor } from '../../shared/subscriptions/topics';
import { TEST_ENV } from '../support/test-env';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:test';
const ROLE = 'arn:aws:iam::000000000000:role/sns-delivery-status';
const PUBLISHERS = TEST_ENV.TOPIC_PUBLISHER_ARNS.split(',');
const repository = subscriptionRepository(documentClient, config.tableName);

async function topicAttributes(topicArn: string) {
  return (await snsClient.send(new GetTopicAttributesCommand({ TopicArn: topicArn }))).Attributes ?? {};
}

const LOGGING_ATTRIBUTES = (role: string, rate: number) =>
  Object.fromEntries(
    ['HTTP', 'SQS', 'Lambda'].flatMap((protocol) => [
      [`${protocol}SuccessFeedbackRoleArn`, role],
      [`${protocol}SuccessFeedbackSampleRate`, String(rate)],
      [`${protocol}FailureFeedbackRoleArn`, role],
    ]),
  );

/** A subscription of its own prefix (so the reconciler sees its topic alone), stored, with its topic made by `settings`. */
async function madeSubscription(prefix: string, deliveryStatus?: { roleArn: string; successSampleRate: number }): Promise<Subscription> {
  const settings = { sns: snsClient, topicPrefix: prefix, publisherArns: PUBLISHERS, managerArns: PUBLISHERS, deliveryStatus };
  const topics = topicsOf(settings, { open, topicArnFor });
  const configId = newConfigId();
  const portalId = `portal-${randomUUID().slice(0, 8)}`;
  const endpoint = { protocol: 'sqs' as const, endpoint: 'arn:aws:sqs:us-east-1:111122223333:receiver' };
  const opened = await topics.open({ portalId, configId, ...endpoint }, {}, await topics.topicArnFor(configId, FUNCTION_ARN));
  const subscription: Subscription = {
    portalId,
    configId,
    name: 'logged',
    ...endpoint,
    events: ['asset_bank.media.create'],
    status: 1,
    ...opened,
    createdAt: new Date().toISOString(),
    subscriptionState: 'pending',
    subscriptionStateAt: new Date().toISOString(),
  };
  await repository.insert(subscription, 10);
  return subscription;
}

function reconcileWith(prefix: string, record: Subscription, deliveryStatus: { roleArn: string; successSampleRate: number } | undefined) {
  return reconcileTopics({
    sns: snsClient,
    // This suite's record alone: the table is shared with the other suites.
    repository: { ...repository, scanAllSubscriptions: async () => [(await repository.find(record.portalId, record.configId))!] },
    topics: subscriptionTopics(snsClient, prefix, PUBLISHERS, PUBLISHERS),
    topicPrefix: prefix,
    deadLetterQueueArn: undefined,
    graceMs: 15 * 60_000,
    now: Date.now,
    dryRun: false,
    deliveryStatus,
  });
}

describe('delivery status logging', () => {
  it('is part of every topic create makes when configured: role and success sample rate for http/https, sqs and lambda', async () => {
    const prefix = `wh-log-${randomUUID().slice(0, 8)}`;
    const subscription = await madeSubscription(prefix, { roleArn: ROLE, successSampleRate: 100 });
    expect(await topicAttributes(subscription.topicArn)).toMatchObject(LOGGING_ATTRIBUTES(ROLE, 100));
  });

  it('is set by the reconciler on a topic made before it, once; again only when the role or the rate changes', async () => {
    const prefix = `wh-log-${randomUUID().slice(0, 8)}`;
    const older = await madeSubscription(prefix);
    const attributes = await topicAttributes(older.topicArn);
    expect(Object.keys(attributes).filter((name) => name.includes('Feedback'))).toEqual([]);

    expect(await reconcileWith(prefix, older, { roleArn: ROLE, successSampleRate: 100 })).toMatchObject({ deliveryStatusLoggingSet: 1, errors: 0 });
    expect(await topicAttributes(older.topicArn)).toMatchObject(LOGGING_ATTRIBUTES(ROLE, 100));
    // Remembered on the record: the next run asks SNS nothing.
    expect(await reconcileWith(prefix, older, { roleArn: ROLE, successSampleRate: 100 })).toMatchObject({ deliveryStatusLoggingSet: 0, errors: 0 });
    // The operator lowers the sample rate: every topic gets it.
    expect(await reconcileWith(prefix, older, { roleArn: ROLE, successSampleRate: 10 })).toMatchObject({ deliveryStatusLoggingSet: 1, errors: 0 });
    expect(await topicAttributes(older.topicArn)).toMatchObject(LOGGING_ATTRIBUTES(ROLE, 10));
    // Without logging configured the summary is as it always was.
    expect(await reconcileWith(prefix, older, undefined)).not.toHaveProperty('deliveryStatusLoggingSet');
  });
});
