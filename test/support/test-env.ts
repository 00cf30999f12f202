import type { DynamoDbLocal } from '../../infra/local/dynamodb/dynamodb-local';
import type { SnsEmulator } from '../../infra/local/sns/emulator';

declare global {
  // Handles of the services global setup started, for global teardown (same process).
  var __LOCAL_SERVICES__: { dynamoDb: DynamoDbLocal; sns: SnsEmulator } | undefined;
}

/** Where global setup says which DynamoDB Local the suites' in-memory local stacks share (local-stack-client.ts). */
export const SHARED_DYNAMODB_VARIABLE = 'TEST_SHARED_DYNAMODB_ENDPOINT';

/** The configuration the functions run with in tests (endpoints are added by global setup). */
export const TEST_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  // The suite's own table (suite-table.ts sets it before the suite's modules load); global setup's otherwise.
  TABLE_NAME: process.env.TEST_SUITE_TABLE_NAME ?? 'webhook-subscriptions-test',
  TOPIC_PREFIX: 'webhooks-test',
  MAX_SUBSCRIPTIONS_PER_PORTAL: '10',
  PORTAL_CLAIM: 'portal_id',
  DELIVERY_DEAD_LETTER_QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:webhooks-test-delivery-dead-letters',
  // As a local stack sets it (localRecoveryQueueUrl): a suite that read the settings before starting one reads the same.
  RECOVERY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/webhooks-recoveries',
  DEAD_LETTERS_BY_PORTAL_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/webhooks-dead-letters-by-portal',
  // The principals the SNS emulator takes the access key ids of the functions under test for
  // (localPrincipalArn): `test` above, and `local` where a suite starts a local stack in its own
  // process, which signs the handlers' calls so; the topics they create let these publish.
  TOPIC_PUBLISHER_ARNS: 'arn:aws:iam::000000000000:role/test,arn:aws:iam::000000000000:role/local',
  // The same principals subscribe endpoints and change or delete the topics.
  TOPIC_MANAGER_ARNS: 'arn:aws:iam::000000000000:role/test,arn:aws:iam::000000000000:role/local',
  // The suites' receivers listen on 127.0.0.1, as under npm start.
  ALLOW_LOOPBACK_ENDPOINTS: 'true',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
} as const;
