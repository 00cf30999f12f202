/** What DynamoDB and SNS hold, read through the real SDK clients: what an operator would see. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ListTagsForResourceCommand, ListTopicsCommand, SNSClient, type Topic } from '@aws-sdk/client-sns';
import { TEST_ENV } from './test-env';

export const inspectDb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const inspectSns = new SNSClient({});

/** Every item of the portal's partition (subscriptions and the counter). */
export async function portalItems(portalId: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  for (let page = 0; page < 1_000; page++) {
    const result = await inspectDb.send(
      new QueryCommand({
        TableName: TEST_ENV.TABLE_NAME,
        KeyConditionExpression: 'portalId = :p',
        ExpressionAttributeValues: { ':p': portalId },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
    if (!startKey) break;
  }
  return items;
}

export async function subscriptionItems(portalId: string) {
  return (await portalItems(portalId)).filter((item) => String(item.sk).startsWith('subscription#'));
}

export async function allTopicArns(): Promise<string[]> {
  const arns: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 1_000; page++) {
    const result = await inspectSns.send(new ListTopicsCommand({ NextToken: token }));
    arns.push(...(result.Topics ?? []).map((topic: Topic) => topic.TopicArn!));
    token = result.NextToken;
    if (!token) break;
  }
  return arns;
}

/** ARNs of the topics tagged with this portal. */
export async function portalTopicArns(portalId: string): Promise<string[]> {
  const mine: string[] = [];
  for (const arn of await allTopicArns()) {
    // Suites in other workers share the emulator: a topic listed may be gone by its turn, and was not this portal's.
    const { Tags } = await inspectSns.send(new ListTagsForResourceCommand({ ResourceArn: arn })).catch((error: Error) => {
      if (error.name === 'ResourceNotFoundException' || error.name === 'NotFoundException') return { Tags: undefined };
      throw error;
    });
    if (Tags?.some((tag) => tag.Key === 'portalId' && tag.Value === portalId)) mine.push(arn);
  }
  return mine;
}

/**
 * As if the subscription's last confirmation request (create's, or confirm's) went out `minutes`
 * ago: POST /confirm sends no new one within 5 minutes of it (shared/subscriptions/confirmation-requests.ts).
 */
export async function lastConfirmationRequestMinutesAgo(portalId: string, configId: string, minutes: number): Promise<void> {
  const at = new Date(Date.now() - minutes * 60_000).toISOString();
  await inspectDb.send(
    new UpdateCommand({
      TableName: TEST_ENV.TABLE_NAME,
      Key: { portalId, sk: `subscription#${configId}` },
      UpdateExpression: 'SET createdAt = :at, confirmationRequestedAt = :at',
      ConditionExpression: 'attribute_exists(sk)',
      ExpressionAttributeValues: { ':at': at },
    }),
  );
}
