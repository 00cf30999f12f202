/**
 * Publishing with the message log: every message the service publishes to a subscription's topic
 * is logged with its body right after SNS accepted it (shared/data/messages.ts). A message SNS
 * accepted is never sent again because its log write failed: that would deliver it twice. It is
 * logged as not logged instead (an error line an operator can alarm on), and its attempts are then
 * dropped as unknown (docs/decisions/message-log-written-inline.md).
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import type { MessageLog, PublishedMessage } from '../data/messages';
import { logger } from '../logger';
import { publishBody } from './publish';

export type { MessageLog, PublishedMessage };

/** The log line of a message published and not logged. */
export const MESSAGE_NOT_LOGGED = 'message published but not logged';

/** One message to publish to one subscription's topic, with its body as the endpoint gets it. */
export interface MessageToSend {
  portalId: string;
  configId: string;
  topicArn: string;
  eventId: string;
  event: string;
  occurredAt: string;
  body: string;
}

/** Logs messages SNS accepted; a line for each that could not be logged. Never throws: they were sent. */
export async function logPublished(messages: MessageLog, published: readonly PublishedMessage[]): Promise<void> {
  if (published.length === 0) return;
  const { notLogged, error } = await messages.log(published);
  for (const { portalId, configId, eventId, event, messageId } of notLogged) {
    logger.error(MESSAGE_NOT_LOGGED, { portalId, configId, eventId, event, messageId, ...(error !== undefined && { error: error as Error }) });
  }
}

/** Publishes one message (its body byte for byte) and logs it; answers SNS's message id. */
export async function publishLogged(deps: { sns: SNSClient; messages: MessageLog }, message: MessageToSend): Promise<string> {
  const published = await publishToLog(deps.sns, message);
  await logPublished(deps.messages, [published]);
  return published.messageId;
}

/**
 * Publishes one message and answers its log entry, to be logged (logPublished) once the caller's
 * own writes that must follow the Publish at once are done: a replay's or retry's removal of its
 * dead letter ends its schedule, and a new dead letter of the message recorded before it would
 * get a retry scheduled.
 */
export async function publishToLog(sns: SNSClient, message: MessageToSend): Promise<PublishedMessage> {
  const messageId = await publishBody(sns, message.topicArn, message.body, message.event);
  const { topicArn: _topic, ...logged } = message;
  return { ...logged, messageId, sentAt: new Date().toISOString() };
}
