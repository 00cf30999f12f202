/**
 * Creates with an Idempotency-Key and what they leave in the table: the requests, the stored
 * idempotency records (found as the persistence layer keys them). A hold on SDK commands that
 * keeps a request in progress: hold-commands.ts.
 */
import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { idempotencyPartitionOf, TABLE_KEYS } from '../../shared/data/table';
import { type ApiAnswer, call, newSubscription, withoutRateLimit } from './api';
import { inspectDb, portalTopicArns, subscriptionItems } from './aws-state';
import { TEST_ENV } from './test-env';

/** The partition of the idempotency records of creates. */
export const PARTITION = idempotencyPartitionOf('createSubscriptionRoute');

/** A create, answered but for its RateLimit-* headers (each request's own: support/api.ts withoutRateLimit). */
export async function create(portalId: string, key: string | undefined, body: unknown = newSubscription()): Promise<ApiAnswer> {
  return withoutRateLimit(await call('createSubscriptionRoute', { portalId, body, headers: key === undefined ? {} : { 'idempotency-key': key } }));
}

export const freshKey = () => `key-${crypto.randomUUID()}`;

/**
 * The stored record of a portal's key. Its sort key is derived as Powertools' idempotency
 * persistence layer derives it (the layout the service keeps): `<prefix>#<base64 SHA-256 of the JSON of the key's parts>`, here
 * [portal, key]; so finding it here also shows that the portal is part of the key.
 */
export async function idempotencyRecordOf(portalId: string, key: string) {
  const hash = createHash('sha256').update(JSON.stringify([portalId, key])).digest('base64');
  const { Item } = await inspectDb.send(
    new GetCommand({
      TableName: TEST_ENV.TABLE_NAME,
      Key: { [TABLE_KEYS.partitionKey]: PARTITION, [TABLE_KEYS.sortKey]: `createSubscriptionRoute#${hash}` },
      ConsistentRead: true,
    }),
  );
  return Item;
}

export async function idempotencyRecordCount(): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await inspectDb.send(
      new QueryCommand({
        TableName: TEST_ENV.TABLE_NAME,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': TABLE_KEYS.partitionKey },
        ExpressionAttributeValues: { ':pk': PARTITION },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        Select: 'COUNT',
      }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

export async function expectOneSubscription(portalId: string, answer: ApiAnswer) {
  const records = await subscriptionItems(portalId);
  expect(records.map((record) => record.configId)).toEqual([answer.body.record.configId]);
  expect(await portalTopicArns(portalId)).toEqual([answer.body.record.topicArn]);
}
