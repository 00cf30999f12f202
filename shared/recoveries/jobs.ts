/**
 * The recovery jobs' queue: one message per slice of work on a recovery, `{portalId, configId,
 * recoveryId, notBefore?}`, sent with the portal as its MessageGroupId so the queue, a fair queue,
 * serves portals fairly (SQS Developer Guide, "Amazon SQS fair queues",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues.html).
 * A delay (DelaySeconds, at most 900: SQS API Reference, "SendMessage") holds a job back while
 * another job works its portal.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface RecoveryJob {
  portalId: string;
  configId: string;
  recoveryId: string;
  /** Epoch ms before which its first send must not go (the pace carried over from the slice before). */
  notBefore?: number;
}

export interface RecoveryJobs {
  send(job: RecoveryJob, delaySeconds?: number): Promise<void>;
}

/** SQS takes a delay of 0 to 900 seconds. */
export const MAX_DELAY_SECONDS = 900;

export function recoveryJobsOn(sqs: SQSClient, queueUrl: string): RecoveryJobs {
  return {
    async send(job, delaySeconds = 0) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(job),
          MessageGroupId: job.portalId,
          DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds))),
        }),
      );
    },
  };
}

/** A job read back from a queue message; undefined when the body is not one. */
export function recoveryJobOf(body: string): RecoveryJob | undefined {
  try {
    const job = JSON.parse(body) as Partial<RecoveryJob>;
    if (typeof job.portalId !== 'string' || typeof job.configId !== 'string' || typeof job.recoveryId !== 'string') return undefined;
    return { portalId: job.portalId, configId: job.configId, recoveryId: job.recoveryId, ...(typeof job.notBefore === 'number' && { notBefore: job.notBefore }) };
  } catch {
    return undefined;
  }
}
