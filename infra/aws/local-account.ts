/**
 * The account the local stack plays (the SNS emulator's default) and the names it gives what
 * exists on AWS as real resources. Also read by the CDK stack for templates meant for
 * `sam local invoke` against `npm start`.
 */
export const LOCAL_ACCOUNT_ID = '000000000000';

/** The access key id the local stack's functions sign their AWS calls with (any secret will do). */
export const LOCAL_SERVICE_ACCESS_KEY_ID = 'local';

/**
 * The principal the SNS emulator takes a request for: the role named by the access key id of
 * its SigV4 signature, in the emulator's account. Locally, credentials stand for a principal
 * this way, so that a topic's access policy means there what it means on AWS (docs/local.md).
 */
export function localPrincipalArn(accessKeyId: string, accountId = LOCAL_ACCOUNT_ID): string {
  return `arn:aws:iam::${accountId}:role/${accessKeyId}`;
}

/** The principal of the local stack's functions: the one publisher every local topic's policy names. */
export const LOCAL_SERVICE_ROLE_ARN = localPrincipalArn(LOCAL_SERVICE_ACCESS_KEY_ID);

/**
 * The queue SNS redrives undeliverable messages to, as every subscription's redrive policy
 * names it; the SNS emulator keeps them (GET /_emulator/dead-letters) instead of sending them.
 */
export const LOCAL_DELIVERY_DEAD_LETTER_QUEUE = 'webhooks-delivery-dead-letters';

export function localDeliveryDeadLetterQueueArn(region: string): string {
  return `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${LOCAL_DELIVERY_DEAD_LETTER_QUEUE}`;
}

/** The role local topics name for their delivery status logging: the emulator assumes nothing, it only checks the shape. */
export const LOCAL_DELIVERY_STATUS_ROLE_ARN = localPrincipalArn('sns-delivery-status-logging');

/**
 * The recovery queue's URL under `npm start` (and in the suites): a name only, as the delivery
 * dead-letter queue's ARN is; the SQS client sends to its endpoint (AWS_ENDPOINT_URL_SQS, the local
 * stand-in), which routes by the queue's name.
 */
export const localRecoveryQueueUrl = (region: string) => `https://sqs.${region}.amazonaws.com/${LOCAL_ACCOUNT_ID}/webhooks-recoveries`;

/** The fair queue of dead letters by portal under `npm start`, likewise: the forwarder sends there, the recorder consumes it. */
export const localDeadLettersByPortalQueueUrl = (region: string) => `https://sqs.${region}.amazonaws.com/${LOCAL_ACCOUNT_ID}/webhooks-dead-letters-by-portal`;
