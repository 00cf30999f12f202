/**
 * The reconciler on one machine: the same handler as the one an EventBridge schedule invokes on
 * AWS (functions/reconcileTopics.ts), run once, on demand (`npm run reconcile`:
 * infra/local/reconcile.ts), against the local stack of `npm start`. It is not scheduled locally.
 *
 * Reads what `npm start` reads: DYNAMODB_PORT (8000), SNS_PORT (9911), TABLE_NAME
 * (webhook-subscriptions), AWS_REGION (us-east-1) and the service's own variables
 * (TOPIC_PREFIX, RECONCILE_GRACE_MINUTES...). AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL_SNS,
 * when set, win over the ports. Credentials are always the local ones: this never reaches AWS
 * (there, invoke the deployed function: docs/reconciliation.md). LOG_FORMAT=json gives the
 * log lines as Lambda writes them, the summary among them.
 */
import type { Context } from 'aws-lambda';
import type { ReconcileSummary } from '../../../shared/reconciliation/reconcile';
import { LOCAL_SERVICE_ROLE_ARN, localDeliveryDeadLetterQueueArn } from '../../aws/local-account';
import { lambdaContext } from '../gateway/event';
import { DEFAULT_PORTS } from '../stack/ports';
import { DEFAULT_TABLE_NAME, LOCAL_CREDENTIALS } from '../stack/service-environment';

function portFromEnv(name: string, fallback: number): number {
  const text = process.env[name]?.trim();
  if (!text) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65_535) throw new Error(`${name} must be a port number (1-65535), not "${text}".`);
  return Number(text);
}

/** One run of the reconciler, in this process, with the environment pointed at the local stack; answers its summary. */
export async function reconcileOnce({ dryRun }: { dryRun: boolean }): Promise<ReconcileSummary> {
  const region = process.env.AWS_REGION?.trim() || 'us-east-1';
  for (const name of ['AWS_PROFILE', 'AWS_DEFAULT_PROFILE', 'AWS_SESSION_TOKEN']) delete process.env[name];
  Object.assign(process.env, {
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB:
      process.env.AWS_ENDPOINT_URL_DYNAMODB?.trim() || `http://127.0.0.1:${portFromEnv('DYNAMODB_PORT', DEFAULT_PORTS.dynamoDb)}`,
    AWS_ENDPOINT_URL_SNS: process.env.AWS_ENDPOINT_URL_SNS?.trim() || `http://127.0.0.1:${portFromEnv('SNS_PORT', DEFAULT_PORTS.sns)}`,
    // The delivery status log groups: the SNS emulator serves their CloudWatch Logs side (infra/local/sns/log-groups.ts).
    AWS_ENDPOINT_URL_CLOUDWATCH_LOGS:
      process.env.AWS_ENDPOINT_URL_CLOUDWATCH_LOGS?.trim() || process.env.AWS_ENDPOINT_URL_SNS?.trim() || `http://127.0.0.1:${portFromEnv('SNS_PORT', DEFAULT_PORTS.sns)}`,
    TABLE_NAME: process.env.TABLE_NAME?.trim() || DEFAULT_TABLE_NAME,
    DELIVERY_DEAD_LETTER_QUEUE_ARN: process.env.DELIVERY_DEAD_LETTER_QUEUE_ARN?.trim() || localDeliveryDeadLetterQueueArn(region),
    // Recreated topics let the local stack's functions publish, as npm start's do.
    TOPIC_PUBLISHER_ARNS: LOCAL_SERVICE_ROLE_ARN,
    TOPIC_MANAGER_ARNS: LOCAL_SERVICE_ROLE_ARN,
    // Readable lines, which leave the handler's `reconciliation summary` to the line printed after them.
    LOG_FORMAT: process.env.LOG_FORMAT?.trim() || 'pretty',
  });
  // The handler reads its configuration when imported: after the environment is set.
  const { handler } = await import('../../../functions/reconcileTopics');
  const context: Context = lambdaContext('reconcileTopics', region, 300_000, 256, crypto.randomUUID());
  return handler({ dryRun }, context);
}
