/**
 * The records the emulator keeps and the messages it builds, shared by the backend, the action
 * handlers, the message builders and the filter. Types only, so any module can use them without
 * depending on the module that does the work.
 */

export interface Tag {
  Key: string;
  Value: string;
}

export interface TopicRecord {
  arn: string;
  name: string;
  attributes: Record<string, string>;
  tags: Tag[];
  /** Creation order; listings page by it. */
  seq: number;
}

export interface SubscriptionRecord {
  arn: string;
  topicArn: string;
  protocol: string;
  endpoint: string;
  owner: string;
  attributes: Record<string, string>;
  pendingConfirmation: boolean;
  confirmationWasAuthenticated: boolean;
  /** The confirmation token; kept so a SubscribeURL still works after a restart. */
  token: string;
  seq: number;
  /** Who subscribed (GetSubscriptionAttributes' SubscriptionPrincipal); absent in older state files. */
  principal?: string;
}

export type MessageType = 'SubscriptionConfirmation' | 'Notification' | 'UnsubscribeConfirmation';

/** A message for one subscriber: its body and the headers SNS sends with it over HTTP/S. */
export interface OutgoingMessage {
  type: MessageType;
  messageId: string;
  body: string;
  headers: Record<string, string>;
}

export interface MessageAttribute {
  name: string;
  dataType: string;
  stringValue?: string;
  binaryValue?: string;
}

/** One Publish call, before it is shaped for each subscriber. */
export interface Publication {
  topic: TopicRecord;
  messageId: string;
  /** Message per protocol: with MessageStructure=json each protocol may get its own text. */
  messageFor: (protocol: string) => string;
  subject: string | undefined;
  attributes: MessageAttribute[];
  timestamp: string;
}

/** What the emulator handed to a subscriber (sent over HTTP, or only recorded for other protocols). */
export interface RecordedDelivery {
  at: string;
  type: MessageType;
  messageId: string;
  topicArn: string;
  subscriptionArn: string;
  protocol: string;
  endpoint: string;
  body: string;
}

/** A message SNS gave up on, kept where the subscription's redrive policy points. */
export interface DeadLetter {
  at: string;
  /** The SQS queue the redrive policy names. */
  deadLetterTargetArn: string;
  topicArn: string;
  subscriptionArn: string;
  endpoint: string;
  messageId: string;
  /** Why the last attempt failed, and how many there were. */
  reason: string;
  attempts: number;
  /** The message as SNS would put it in the queue: the notification's JSON. */
  body: string;
}
