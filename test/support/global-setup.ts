/**
 * Starts what the suites talk to, once per `npm test`: DynamoDB Local and the SNS emulator,
 * each on a free port of 127.0.0.1, and the table. The environment set here is what every
 * handler reads, and jest's workers inherit it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { writeValidators } from '../../shared/contract/write-validators';
import { startDynamoDbLocal } from '../../infra/local/dynamodb/dynamodb-local';
import { startSnsEmulator } from '../../infra/local/sns/emulator';
import { ensureSubscriptionTable } from '../../infra/local/dynamodb/subscription-table';
import { trustAuthorityOf } from './local-authority';
import { SHARED_DYNAMODB_VARIABLE, TEST_ENV } from './test-env';

export default async function globalSetup(): Promise<void> {
  // The request validators as the contract's schemas are now, also for `npm run jest -- <file>`.
  writeValidators();
  // The suites subscribe endpoints on closed ports of 127.0.0.1; one delivery attempt is enough.
  // Delivery itself is tested by the emulator's and the local stack's own suites.
  const [dynamoDb, sns] = await Promise.all([startDynamoDbLocal(), startSnsEmulator({ deliveryRetries: 0 })]);
  globalThis.__LOCAL_SERVICES__ = { dynamoDb, sns };

  for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_DEFAULT_PROFILE']) delete process.env[name];
  Object.assign(process.env, TEST_ENV, {
    AWS_ENDPOINT_URL_DYNAMODB: dynamoDb.endpoint,
    [SHARED_DYNAMODB_VARIABLE]: dynamoDb.endpoint,
    AWS_ENDPOINT_URL_SNS: sns.endpoint,
    // The emulator serves the delivery status log groups' CloudWatch Logs side (the reconciler's retention).
    AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: sns.endpoint,
    // The suites follow the https:// URLs of its messages: the workers trust its authority from
    // their start, and a run in this very process (one suite, in band) trusts it here.
    NODE_EXTRA_CA_CERTS: sns.certificateAuthority.file,
  });
  trustAuthorityOf(sns);
  const dynamoDbClient = new DynamoDBClient({});
  await ensureSubscriptionTable(dynamoDbClient, TEST_ENV.TABLE_NAME);
  dynamoDbClient.destroy();
}
