import {
  CreateTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { EXPIRY_ATTRIBUTE, TABLE_KEYS } from '../../../shared/data/table';

/** Creates the subscriptions table in DynamoDB Local, with the key schema and TTL attribute the CDK stack gives it. */
export async function ensureSubscriptionTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
      }),
    );
  } catch (error) {
    if (error instanceof ResourceInUseException) return; // made by an earlier start, TTL and all
    throw error;
  }
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: EXPIRY_ATTRIBUTE, Enabled: true },
    }),
  );
}
