/**
 * What the SNS emulator records of its deliveries, handed on as AWS hands it on: a dead letter
 * (a delivery SNS gave up on) to the delivery dead-letter queue, as an SQS message for the
 * dead-letter recorder; a delivery status record to the attempts consumer, as CloudWatch Logs
 * hands it a subscription event of the record's log group. SNS may give up on a delivery (one
 * resumed from the last stop) or log one before either consumer is loaded: those wait until it is.
 */
import type { Context } from 'aws-lambda';
import { logSubscriptionEventOf } from '../../../shared/attempts/delivery-status-record';
import { LOCAL_ACCOUNT_ID } from '../../aws/local-account';
import type { EventQueue } from '../events/event-queue';
import type { LogSubscriptionHandler } from '../operation-handlers';
import { type DeadLetter, deadLetterQueueMessageOf, type DeliveryStatusLogEvent } from '../sns/emulator';

export interface DeliveryRecords {
  /** For the SNS emulator's `onDeadLetter`. */
  readonly onDeadLetter: (letter: DeadLetter) => void;
  /** For the SNS emulator's `onDeliveryStatus`. */
  readonly onDeliveryStatus: (logEvent: DeliveryStatusLogEvent) => void;
  /** From now on dead letters go to this queue, those that waited first. */
  sendDeadLettersTo(queue: EventQueue): void;
  /** From now on delivery status records go to this consumer, those that waited first. */
  sendStatusesTo(recorder: LogSubscriptionHandler): void;
  /** Settles when the attempts consumer has been handed every record it has been sent so far. */
  handedOver(): Promise<void>;
}

export interface DeliveryRecordsOptions {
  /** The attempts consumer's Lambda context, one per invocation. */
  readonly attemptsContext: () => Context;
  readonly log: (line: string) => void;
}

export function deliveryRecords({ attemptsContext, log }: DeliveryRecordsOptions): DeliveryRecords {
  let deadLetterQueue: EventQueue | undefined;
  const deadLettersBeforeRecorder: DeadLetter[] = [];
  const onDeadLetter = (letter: DeadLetter) => {
    if (!deadLetterQueue) {
      deadLettersBeforeRecorder.push(letter);
      return;
    }
    const { body, attributes } = deadLetterQueueMessageOf(letter);
    if (!deadLetterQueue.send(body, attributes)) log(`[dead letters] queue full or closed: ${letter.messageId} not recorded`);
  };

  let attemptsRecorder: LogSubscriptionHandler | undefined;
  const statusesBeforeRecorder: DeliveryStatusLogEvent[] = [];
  let attemptsHandedOver: Promise<void> = Promise.resolve();
  // Records that arrive while the consumer works wait and go together, one subscription event per
  // log group, as CloudWatch Logs batches them: a burst of deliveries is not a burst of invocations.
  const waitingStatuses: DeliveryStatusLogEvent[] = [];
  const handOverWaiting = async (recorder: LogSubscriptionHandler) => {
    const byGroup = new Map<string, DeliveryStatusLogEvent[]>();
    for (const logEvent of waitingStatuses.splice(0)) byGroup.set(logEvent.logGroup, [...(byGroup.get(logEvent.logGroup) ?? []), logEvent]);
    for (const [logGroup, logEvents] of byGroup) {
      try {
        const event = logSubscriptionEventOf(LOCAL_ACCOUNT_ID, logGroup, logEvents[0]!.logStream, logEvents.map((logEvent) => logEvent.event));
        await recorder(event, attemptsContext());
      } catch (error) {
        log(`[attempts] ${logEvents.length} delivery status record(s) of ${logGroup} not kept: ${String(error)}`);
      }
    }
  };
  const onDeliveryStatus = (logEvent: DeliveryStatusLogEvent) => {
    if (!attemptsRecorder) {
      statusesBeforeRecorder.push(logEvent);
      return;
    }
    const recorder = attemptsRecorder;
    waitingStatuses.push(logEvent);
    if (waitingStatuses.length === 1) attemptsHandedOver = attemptsHandedOver.then(() => handOverWaiting(recorder));
  };

  return {
    onDeadLetter,
    onDeliveryStatus,
    sendDeadLettersTo(queue) {
      deadLetterQueue = queue;
      for (const letter of deadLettersBeforeRecorder.splice(0)) onDeadLetter(letter);
    },
    sendStatusesTo(recorder) {
      attemptsRecorder = recorder;
      for (const logEvent of statusesBeforeRecorder.splice(0)) onDeliveryStatus(logEvent);
    },
    handedOver: () => attemptsHandedOver,
  };
}
