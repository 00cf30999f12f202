/**
 * The account the local stack plays (the SNS emulator's default) and the names it gives what
 * exists on AWS as real resources. Also read by the CDK stack for templates meant for
 * `sam local invoke` against `npm start`.
 */
export const LOCAL_ACCOUNT_ID = '000000000000';

/**
 * The queue SNS redrives undeliverable messages to, as every subscription's redrive policy
 * names it; the SNS emulator keeps them (GET /_emulator/dead-letters) instead of sending them.
 */
export const LOCAL_DELIVERY_DEAD_LETTER_QUEUE = 'webhooks-delivery-dead-letters';

export function localDeliveryDeadLetterQueueArn(region: string): string {
  return `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${LOCAL_DELIVERY_DEAD_LETTER_QUEUE}`;
}
