/**
 * What the reconciliation suites share: a reconciler run as the scheduled function makes it, on
 * a clock of the test's choosing, and what an operator checks after it (the records, the topics
 * of the prefix, each SNS subscription's attributes, their agreement), with records and topics
 * made through the service or by hand.
 *
 * Each suite has a table and a topic prefix of its own (no prefix the start of another's), so
 * the whole-table scan and the listing of every topic see only what it made, whatever the other
 * suites do meanwhile. It sets TABLE_NAME and TOPIC_PREFIX before it imports this module (and the
 * functions), which read them when imported; this module refuses the shared ones, which
 * emptyTableAndTopics would empty under the other suites' feet.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { CreateTopicCommand, DeleteTopicCommand, GetSubscriptionAttributesCommand, GetTopicAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { documentClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';
import { reconcileTopics } from '../../shared/reconciliation/reconcile';
import { listAllTopicArns } from '../../shared/reconciliation/sns-inventory';
import { newConfigId } from '../../shared/subscriptions/config-id';
import { HTTP_DELIVERY_POLICY } from '../../shared/subscriptions/delivery-policy';
import { subscriptionRepository } from '../../shared/data/subscription-repository';
import { subscriptionTopics } from '../../shared/subscriptions/topics';
import { ensureSubscriptionTable } from '../../infra/local/dynamodb/subscription-table';
import { call, newSubscription } from './api';
import { TEST_ENV } from './test-env';

export const TABLE_NAME = process.env.TABLE_NAME!;
export const TOPIC_PREFIX = process.env.TOPIC_PREFIX!;
if (TABLE_NAME === TEST_ENV.TABLE_NAME || TOPIC_PREFIX === TEST_ENV.TOPIC_PREFIX) {
  throw new Error('A reconciliation suite sets TABLE_NAME and TOPIC_PREFIX of its own before importing test/support/reconciliation.ts');
}

export const MINUTE = 60_000;
export const GRACE_MS = 15 * MINUTE;

export const inspectDb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const inspectSns = new SNSClient({});
await ensureSubscriptionTable(new DynamoDBClient({}), TABLE_NAME);

export function reconcile({ minutesLater = 0, dryRun = false } = {}) {
  return reconcileTopics({
    sns: snsClient,
    repository: subscriptionRepository(documentClient, TABLE_NAME),
    topics: subscriptionTopics(snsClient, TOPIC_PREFIX, TEST_ENV.TOPIC_PUBLISHER_ARNS.split(','), TEST_ENV.TOPIC_MANAGER_ARNS.split(',')),
    topicPrefix: TOPIC_PREFIX,
    deadLetterQueueArn: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN,
    graceMs: GRACE_MS,
    now: () => Date.now() + minutesLater * MINUTE,
    dryRun,
  });
}

/** A summary that changed nothing. */
export function unchanged(topicsSeen: number, recordsSeen: number, skippedYoung = 0) {
  return {
    topicsSeen,
    recordsSeen,
    orphanTopicsDeleted: 0,
    recordsRepaired: 0,
    subscriptionStatesUpdated: 0,
    skippedYoung,
    subscriptionsGone: 0,
    errors: 0,
    deliveryPoliciesSet: 0,
    subscriptionSettingsSet: 0,
    unrecognizedTopics: [],
    dryRun: false,
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- stored items
export async function records(): Promise<Record<string, any>[]> {
  const { Items } = await inspectDb.send(
    new ScanCommand({ TableName: TABLE_NAME, FilterExpression: 'begins_with(sk, :s)', ExpressionAttributeValues: { ':s': 'subscription#' } }),
  );
  return Items ?? [];
}

export async function topicsOfPrefix(): Promise<string[]> {
  return (await listAllTopicArns(inspectSns)).filter((arn) => arn.split(':')[5]!.startsWith(`${TOPIC_PREFIX}-`)).sort();
}

export async function subscriptionAttributes(subscriptionArn: string): Promise<Record<string, string> | undefined> {
  try {
    return (await inspectSns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }))).Attributes;
  } catch (error) {
    if ((error as Error).name === 'NotFoundException') return undefined;
    throw error;
  }
}

/**
 * Table and SNS agree, as an operator checks it: the topics of the prefix are exactly the records'
 * topics (besides `foreign`, topics whose names are not the service's), each with the access
 * policy that lets only the service publish, and each record's SNS subscription exists on its
 * topic with its endpoint, protocol and delivery attributes, and no filter. `publishers`: those
 * of the functions that made the topics (npm run reconcile's are the local stack's).
 */
export async function expectAgreement(foreign: string[] = [], publishers: string[] = TEST_ENV.TOPIC_PUBLISHER_ARNS.split(',')) {
  const stored = await records();
  expect(await topicsOfPrefix()).toEqual([...stored.map((record) => record.topicArn), ...foreign].sort());
  for (const record of stored) {
    const { Attributes: topic } = await inspectSns.send(new GetTopicAttributesCommand({ TopicArn: record.topicArn }));
    expect(JSON.parse(topic!.Policy!).Statement[0].Condition).toEqual({ ArnNotEquals: { 'aws:PrincipalArn': publishers } });
    const attributes = await subscriptionAttributes(record.subscriptionArn);
    expect(attributes).toMatchObject({ TopicArn: record.topicArn, Protocol: record.protocol, Endpoint: record.endpoint });
    expect(attributes!.FilterPolicy).toBeUndefined();
    expect(JSON.parse(attributes!.RedrivePolicy!)).toEqual({ deadLetterTargetArn: TEST_ENV.DELIVERY_DEAD_LETTER_QUEUE_ARN });
    if (record.protocol.startsWith('http')) expect(JSON.parse(attributes!.DeliveryPolicy!)).toEqual({ ...HTTP_DELIVERY_POLICY, sicklyRetryPolicy: null, throttlePolicy: null, guaranteed: false });
  }
}

export async function createOne(portalId: string, overrides: Record<string, unknown> = {}) {
  const answer = await call('createSubscriptionRoute', { portalId, body: newSubscription(overrides) });
  expect(answer.statusCode).toBe(200);
  return answer.body.record as { configId: string; topicArn: string; subscriptionArn: string };
}

/** A UUIDv7 of `ms` (its first 48 bits), which newConfigId never makes: its ids never go back in time. */
export function configIdOf(ms: number): string {
  const time = ms.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}${newConfigId().slice(13)}`;
}

/** A topic of the prefix made by hand, named for a config id of `minutesAgo`. */
export async function handMadeTopic(minutesAgo: number): Promise<string> {
  const name = `${TOPIC_PREFIX}-${configIdOf(Date.now() - minutesAgo * MINUTE)}`;
  return (await inspectSns.send(new CreateTopicCommand({ Name: name }))).TopicArn!;
}

/** Deletes every topic of the prefix and every item of the table: each test starts from nothing, so every summary is exact. */
export async function emptyTableAndTopics(): Promise<void> {
  for (const topicArn of await topicsOfPrefix()) await inspectSns.send(new DeleteTopicCommand({ TopicArn: topicArn }));
  const { Items } = await inspectDb.send(new ScanCommand({ TableName: TABLE_NAME, ProjectionExpression: 'portalId, sk' }));
  for (const key of Items ?? []) await inspectDb.send(new DeleteCommand({ TableName: TABLE_NAME, Key: key }));
}
