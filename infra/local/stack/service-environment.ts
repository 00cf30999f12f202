/**
 * What the handlers of the local stack see: the local services' endpoints, credentials they
 * sign with and the table they use, set in this process's environment before they are imported
 * (they read it then). `npm run reconcile` (infra/local/reconcile.ts) reads the same names.
 */
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  LOCAL_DELIVERY_STATUS_ROLE_ARN,
  LOCAL_SERVICE_ACCESS_KEY_ID,
  LOCAL_SERVICE_ROLE_ARN,
  localDeliveryDeadLetterQueueArn,
} from '../../aws/local-account';

export const DEFAULT_TABLE_NAME = 'webhook-subscriptions';
/**
 * Credentials the handlers sign with locally; the emulators accept any, and the SNS emulator
 * takes the access key id for the principal (the topics' access policy lets only this one publish).
 */
export const LOCAL_CREDENTIALS = { accessKeyId: LOCAL_SERVICE_ACCESS_KEY_ID, secretAccessKey: 'local' } as const;

/**
 * Points the handlers' SDK clients at the local services, with dummy credentials and no
 * profile, so nothing here can reach an AWS account whatever the developer's shell holds.
 * TABLE_NAME, ALLOW_LOOPBACK_ENDPOINTS (on unless set) and the handlers' other settings keep the
 * values the environment gives them.
 * Returns the table name.
 */
export function useLocalServices(region: string, endpoints: { dynamoDb: string; sns: string }): string {
  // A profile would make the SDK skip the credentials of the environment.
  for (const name of ['AWS_PROFILE', 'AWS_DEFAULT_PROFILE', 'AWS_SESSION_TOKEN']) delete process.env[name];
  const tableName = process.env.TABLE_NAME?.trim() || DEFAULT_TABLE_NAME;
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamoDb,
    AWS_ENDPOINT_URL_SNS: endpoints.sns,
    DELIVERY_DEAD_LETTER_QUEUE_ARN: localDeliveryDeadLetterQueueArn(region),
    // The principal the SNS emulator takes LOCAL_CREDENTIALS for: the topics' one publisher.
    TOPIC_PUBLISHER_ARNS: LOCAL_SERVICE_ROLE_ARN,
    TOPIC_MANAGER_ARNS: LOCAL_SERVICE_ROLE_ARN,
    // Receivers on this machine (the reference receiver, a developer's own) are loopback hosts,
    // which the functions refuse by default (as on AWS, where none can be a receiver).
    ALLOW_LOOPBACK_ENDPOINTS: process.env.ALLOW_LOOPBACK_ENDPOINTS?.trim() || 'true',
    // Topics log their deliveries, as deployed (the emulator writes SNS's records; docs/local.md).
    DELIVERY_STATUS_ROLE_ARN: process.env.DELIVERY_STATUS_ROLE_ARN?.trim() || LOCAL_DELIVERY_STATUS_ROLE_ARN,
    // What Lambda sets for an environment started on demand; the logger reports cold starts only then.
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  });
  return tableName;
}

/**
 * Deletes the stack's table from a shared DynamoDB Local, so the next stack of the same suite
 * starts empty, as one in memory of its own would; the server is its owner's to stop.
 */
export async function deleteSharedTable(endpoint: string, region: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ region, endpoint, credentials: LOCAL_CREDENTIALS });
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName })).catch((error: Error) => {
      if (error.name !== 'ResourceNotFoundException') throw error;
    });
  } finally {
    client.destroy();
  }
}
