import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { documentClient } from '../shared/aws/dynamodb';
import { isYoung, markMessageDeadLettered, ownersLookingAgain } from '../shared/attempts/message-join';
import type { MessageOwner } from '../shared/data/messages';
import { readDeadLetter } from '../shared/dead-letters/dead-letter-message';
import { DeadLetterBatch } from '../shared/dead-letters/recorder';
import { deadLetterStoreOf, oldest, retryLedger, retryLedgers, store } from '../shared/data/dead-letters';
import { repositoryOf } from '../shared/data/bound-operations';
import { find } from '../shared/data/subscription-reads';
import { deliveryRetryScheduleMs, disableFailingAfterMs, tableName, topicPrefix } from '../shared/environment';
import { logger, withInvocationLogging } from '../shared/logger';

const table = { db: documentClient, tableName };
const deadLetters = { ...deadLetterStoreOf(table, { retryLedger, retryLedgers, oldest, store }), ...repositoryOf(table, { find }) };

/**
 * Keeps one message of the delivery dead-letter queue for its subscription's portal. A message
 * that can never be kept (malformed, or its subscription gone) is logged and dropped; one that
 * failed to be written throws, so only it is retried (partial batch response).
 */
async function recordOne(batch: DeadLetterBatch, record: SQSRecord, owners: ReadonlyMap<string, MessageOwner> | undefined): Promise<void> {
  const reading = readDeadLetter(record, topicPrefix);
  if ('unusable' in reading) {
    logger.error('dead letter dropped: not a notification of the service', { messageId: record.messageId, reason: reading.unusable });
    return;
  }
  const { deadLetter: letter, reason } = reading;
  const fields = { portalId: letter.portalId, configId: letter.configId, eventId: letter.eventId, snsMessageId: letter.messageId };
  // SNS may give up on a message before its publisher's log write, made right after SNS took it,
  // has landed: a young one waits for it, so that the log shows it dead-lettered. Past that, a
  // message the log lacks is one that was never logged (its publisher said so): kept all the same.
  if (owners && !owners.has(letter.messageId) && isYoung(letter.failedAt)) throw new MessageNotLoggedYetError(letter.eventId);
  const outcome = await batch.record(letter);
  if (outcome.kind === 'held back') throw new RetryBeingSentError(letter.eventId);
  if (outcome.kind === 'subscription gone') {
    logger.warn('dead letter dropped: its subscription no longer exists', fields);
    return;
  }
  // The message log shows it dead-lettered (a retried record marks it again, to the same effect).
  if (!(await markMessageDeadLettered(table, letter, owners))) logger.warn('dead letter of a message not in the message log', fields);
  if (outcome.kind === 'duplicate') logger.info('dead letter already kept', fields);
  else {
    // SNS's ErrorMessage is left out: nothing says it never quotes the endpoint (and its credentials).
    const { retries, nextRetryAt } = outcome.schedule;
    logger.info('dead letter kept', {
      ...fields,
      failedAt: letter.failedAt,
      errorCode: reason.errorCode,
      requestId: reason.requestId,
      retries,
      nextRetryAt: nextRetryAt ?? null,
      // The retry of a dead letter kept as retrying: this one took its place.
      ...(outcome.replaced && { replacedRetrying: true }),
    });
    if (outcome.evicted) logger.warn('oldest dead letter dropped: the subscription keeps at most 1,000', { ...fields, droppedEventId: outcome.evicted.eventId });
  }
}

/** A dead letter held back while a retry of its event is being sent: SQS hands it again after its visibility timeout. */
class RetryBeingSentError extends Error {
  constructor(eventId: string) {
    super(`Dead letter of event ${eventId} held back: a scheduled retry of the event is being sent and not yet named.`);
  }
}

/** A young dead letter held back while its message is not in the message log yet: SQS hands it again after its visibility timeout. */
class MessageNotLoggedYetError extends Error {
  constructor(eventId: string) {
    super(`Dead letter of event ${eventId} held back: its message is not in the message log yet.`);
  }
}

/**
 * Consumes the delivery dead-letter queue in batches, one record at a time, reporting failed
 * records. The handler builds the partial batch response itself, as the dispatcher does, rather
 * than with Powertools' BatchProcessor (5.7 KB of this bundle).
 */
export const handler = withInvocationLogging('recordDeadLetters', async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
  // What the batch read of each subscription serves its other records: in order, not in parallel.
  const batch = new DeadLetterBatch(deadLetters, { deliveryRetryScheduleMs, disableFailingAfterMs });
  const letters = event.Records.map((record) => readDeadLetter(record, topicPrefix)).flatMap((reading) => ('unusable' in reading ? [] : [reading.deadLetter]));
  // Should this read fail, each record reads its own ledger as it is kept.
  await batch.readLedgers(letters).catch((error: unknown) => logger.warn('retry ledgers not read together: read one by one', { error }));
  // The batch's logged messages in one read too (looked up again a moment for young letters not
  // found); should it fail, each letter reads its own.
  const owners = letters.length === 0
    ? undefined
    : await ownersLookingAgain(table, letters.map(({ messageId, failedAt }) => ({ messageId, at: failedAt }))).catch((error: unknown) => {
        logger.warn('logged messages not read together: read one by one', { error });
        return undefined;
      });
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const errors: unknown[] = [];
  for (const record of event.Records) {
    try {
      await recordOne(batch, record, owners);
    } catch (error) {
      // Only this record is retried (SQS partial batch response); the others are kept. One held
      // back is no failure of the recorder: it is logged, and not counted in the invocation's Errors.
      if (error instanceof RetryBeingSentError) logger.info('dead letter held back: a retry of its event is being sent', { snsMessageId: record.messageId });
      else if (error instanceof MessageNotLoggedYetError) logger.info('dead letter held back: its message is not in the message log yet', { snsMessageId: record.messageId });
      else errors.push(error);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  // A batch whose every record failed fails the invocation: Lambda counts it in Errors, which the
  // operator's alarm watches (a recorder failing on every message is not merely slow). A thrown
  // error makes the whole batch count as failed, which is what every record's failure asks for
  // (AWS Lambda Developer Guide, "Handling errors for an SQS event source in Lambda",
  // https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html); the local
  // queue does the same (infra/local/events/event-queue.ts).
  if (errors.length > 0 && errors.length === event.Records.length) throw new AggregateError(errors, 'All records of the batch failed; each is retried.');
  return { batchItemFailures };
});
