import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsClient } from '../shared/aws/sqs';
import { forwardDeadLetters } from '../shared/dead-letters/forwarding';
import { deadLettersByPortalQueueUrl, topicPrefix } from '../shared/environment';
import { logger, withInvocationLogging } from '../shared/logger';

/**
 * Sends each message of the delivery dead-letter queue on to the recorder's queue, keyed by its
 * portal (shared/dead-letters/forwarding.ts). A record not sent is reported failed (SQS partial
 * batch response) and comes again; a batch none of whose records went fails the invocation, so
 * Lambda counts it in Errors, which the operator's alarm watches.
 */
export const handler = withInvocationLogging('forwardDeadLetters', async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
  if (!deadLettersByPortalQueueUrl) throw new Error('DEAD_LETTERS_BY_PORTAL_QUEUE_URL is not set: the forwarder has no queue to send dead letters on to.');
  const { notSent, errors } = await forwardDeadLetters(sqsClient, deadLettersByPortalQueueUrl, event.Records, topicPrefix);
  if (notSent.length > 0) logger.warn('dead letters not forwarded: each comes again', { count: notSent.length, errors });
  if (notSent.length > 0 && notSent.length === event.Records.length) throw new AggregateError(errors, 'No record of the batch was forwarded; each comes again.');
  return { batchItemFailures: notSent.map((itemIdentifier) => ({ itemIdentifier })) };
});
