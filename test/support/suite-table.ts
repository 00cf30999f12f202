/**
 * Jest's setup for every suite (jest.config.js, setupFilesAfterEnv): a table of the suite's own
 * in the DynamoDB Local global setup started, made before its tests and deleted after them. The
 * suites run in parallel workers and several use the same portals (TEST_CLIENTS): in one shared
 * table their counters, limits and dead letters would mix. TABLE_NAME is set before the suite's
 * own modules are imported, so the handlers it imports and its local stack read the same name.
 * This file imports nothing that reads the environment (test-env.ts would read it too early).
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureSubscriptionTable } from '../../infra/local/dynamodb/subscription-table';

/** Read by test-env.ts: the suite's table, which TEST_ENV.TABLE_NAME then names. */
const SUITE_TABLE_VARIABLE = 'TEST_SUITE_TABLE_NAME';
const tableName = `suite-${randomUUID()}`;
process.env[SUITE_TABLE_VARIABLE] = tableName;
process.env.TABLE_NAME = tableName;

/** Global setup's DynamoDB Local; unset only when jest runs without it. */
const endpoint = process.env.TEST_SHARED_DYNAMODB_ENDPOINT;
const client = () => new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });

beforeAll(async () => {
  if (!endpoint) return;
  const dynamoDb = client();
  try {
    await ensureSubscriptionTable(dynamoDb, tableName);
  } finally {
    dynamoDb.destroy();
  }
}, 30_000);

afterAll(async () => {
  if (!endpoint) return;
  const dynamoDb = client();
  try {
    await dynamoDb.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  } finally {
    dynamoDb.destroy();
  }
}, 30_000);
