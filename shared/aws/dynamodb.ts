import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { clientOptions } from './client-options';

/** Created once per cold start and reused by every invocation. */
export const dynamoDbClient = new DynamoDBClient(clientOptions);
export const documentClient = DynamoDBDocumentClient.from(dynamoDbClient, {
  marshallOptions: { removeUndefinedValues: true },
});
