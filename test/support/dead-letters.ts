/**
 * Messages of the delivery dead-letter queue as SNS puts them there ("Amazon SNS dead-letter
 * queues (DLQs)"): the notification JSON of a message the service published to a subscription's
 * topic, with the RequestID, ErrorCode and ErrorMessage attributes; and the recorder handler
 * run on them as Lambda's SQS event source runs it, once their messages are in the message log
 * (the publisher logs a message right after SNS takes it, long before SNS gives up on it).
 * Importing this module loads the recorder, so the environment must be set first (global setup does).
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { handler as record } from '../../functions/recordDeadLetters';
import { documentClient } from '../../shared/aws/dynamodb';
import { logMessages, ownersOf } from '../../shared/data/messages';
import { readDeadLetter } from '../../shared/dead-letters/dead-letter-message';
import { config } from '../../shared/environment';
import { lambdaContext } from './lambda-context';

export interface DeadLetterTarget {
  portalId: string;
  configId: string;
  topicArn: string;
}

/** What the service published to the subscription's topic (shared/delivery/message.ts). */
export function publishedBody(to: DeadLetterTarget, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    event: 'asset_bank.media.create',
    portalId: to.portalId,
    configId: to.configId,
    occurredAt: '2026-11-24T08:15:00Z',
    eventId: randomUUID(),
    data: { mediaId: 'm-1' },
    ...overrides,
  });
}

/** A message of the delivery dead-letter queue for a notification of `to`'s topic. */
export function deadLetterRecord(
  to: DeadLetterTarget,
  options: { message?: string; snsMessageId?: string; sentAt?: number; topicArn?: string } = {},
): SQSRecord {
  const notification = {
    Type: 'Notification',
    MessageId: options.snsMessageId ?? randomUUID(),
    TopicArn: options.topicArn ?? to.topicArn,
    Message: options.message ?? publishedBody(to),
    Timestamp: new Date().toISOString(),
    SignatureVersion: '1',
    Signature: 'c2lnbmF0dXJl',
    SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0.pem',
    UnsubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe',
    MessageAttributes: { event: { Type: 'String', Value: 'asset_bank.media.create' } },
  };
  return rawDeadLetterRecord(JSON.stringify(notification), options.sentAt);
}

/** A queue message with any body, and the attributes SNS adds. */
export function rawDeadLetterRecord(body: string, sentAt = Date.now()): SQSRecord {
  const attribute = (value: string) => ({ dataType: 'String', stringValue: value, stringListValues: [], binaryListValues: [] });
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(sentAt), SenderId: 'AIDASNS', ApproximateFirstReceiveTimestamp: String(sentAt) },
    messageAttributes: { RequestID: attribute(randomUUID()), ErrorCode: attribute('500'), ErrorMessage: attribute('HTTP 500') },
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:delivery-dead-letters',
    awsRegion: 'us-east-1',
  };
}

/** Logs the messages of the records not logged yet, as their publisher did when SNS took them. */
export async function logMessagesOf(records: readonly SQSRecord[]): Promise<void> {
  const table = { db: documentClient, tableName: config.tableName };
  const letters = records.map((one) => readDeadLetter(one, config.topicPrefix)).flatMap((reading) => ('deadLetter' in reading ? [reading.deadLetter] : []));
  if (letters.length === 0) return;
  const logged = await ownersOf(table, letters.map(({ messageId }) => messageId));
  const { notLogged } = await logMessages(
    table,
    config.messageKeepDays,
    letters
      .filter(({ messageId }) => !logged.has(messageId))
      .map(({ portalId, configId, messageId, eventId, event, occurredAt, failedAt, message }) => ({ portalId, configId, messageId, eventId, event, occurredAt, sentAt: failedAt, body: message })),
  );
  if (notLogged.length > 0) throw new Error(`${notLogged.length} messages not logged`);
}

/**
 * The recorder handler on one batch, the records' messages logged first; `{ logged: false }`
 * leaves them out of the log (a message SNS gave up on before its log write landed).
 */
export async function recordBatch(records: SQSRecord[], { logged = true }: { logged?: boolean } = {}) {
  if (logged) await logMessagesOf(records);
  return (await record({ Records: records } satisfies SQSEvent, lambdaContext('recordDeadLetters')))!;
}
