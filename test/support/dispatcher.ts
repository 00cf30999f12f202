/**
 * The dispatcher as Lambda's SQS event source calls it, and what its suites need around it:
 * portal events as EventBridge queues them, queue subscriptions confirmed by their owner, what
 * SNS handed each, faults SNS produces (a PublishBatch refused whole, one entry failed, a policy
 * denying Publish) and the local stand-in of its queue.
 */
import {
  GetTopicAttributesCommand,
  type PublishBatchCommandInput,
  type PublishBatchCommandOutput,
  SetTopicAttributesCommand,
} from '@aws-sdk/client-sns';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { handler as dispatch } from '../../functions/dispatchPortalEvents';
import { EventQueue, type SqsHandler } from '../../infra/local/events/event-queue';
import { snsClient } from '../../shared/aws/sns';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { config } from '../../shared/environment';
import { messagePrefixOf } from '../../shared/data/table';
import { inspectSns } from './aws-state';
import { call, newSubscription } from './api';
import { commandsDuring } from './aws-calls';
import { serviceFault } from './faults';
import { lambdaContext } from './lambda-context';
import { confirmAsEndpointOwner } from './sns-confirmation';
import { waitFor } from './wait-for';

export const CREATE = 'asset_bank.media.create';
export const DELETED = 'asset_bank.media.deleted';

/** EventBridge's time of an event that happened `agoMs` ago (to the second, as EventBridge has it). */
export const eventTime = (agoMs = 0) => new Date(Date.now() - agoMs).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** An EventBridge event as the rule puts it in the queue, just now unless `time` says otherwise. */
export function portalEvent(kind: string, detail: unknown, overrides: Record<string, unknown> = {}) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': kind,
    source: 'portal.events',
    account: '000000000000',
    time: eventTime(),
    region: 'us-east-1',
    resources: [],
    detail,
    ...overrides,
  };
}


export async function runBatch(records: SQSRecord[]) {
  return (await dispatch({ Records: records } satisfies SQSEvent, lambdaContext('dispatchPortalEvents')))!;
}

/** A subscription to a queue of another account, confirmed by the queue's owner. */
export async function subscribeQueue(portalId: string, events: string[]) {
  const created = await call('createSubscriptionRoute', {
    portalId,
    body: newSubscription({ protocol: 'sqs', endpoint: `arn:aws:sqs:us-east-1:111122223333:q-${randomUUID()}`, events }),
  });
  expect(created.statusCode).toBe(200);
  await confirmAsEndpointOwner(created.body.record.subscriptionArn);
  return created.body.record as { configId: string; topicArn: string; subscriptionArn: string };
}

/** The event ids SNS handed to a subscription. */
export async function eventIdsDeliveredTo(subscriptionArn: string): Promise<string[]> {
  const response = await fetch(`${process.env.AWS_ENDPOINT_URL_SNS}/_emulator/deliveries`, { signal: AbortSignal.timeout(5_000) });
  const { deliveries } = (await response.json()) as { deliveries: { subscriptionArn: string; type: string; body: string }[] };
  return deliveries
    .filter((delivery) => delivery.subscriptionArn === subscriptionArn && delivery.type === 'Notification')
    .map((delivery) => JSON.parse(JSON.parse(delivery.body).Message).eventId);
}

/** What SNS handed to a subscription: each notification's message id and body, as the endpoint got them. */
export async function messagesDeliveredTo(subscriptionArn: string): Promise<{ messageId: string; body: string }[]> {
  const response = await fetch(`${process.env.AWS_ENDPOINT_URL_SNS}/_emulator/deliveries`, { signal: AbortSignal.timeout(5_000) });
  const { deliveries } = (await response.json()) as { deliveries: { subscriptionArn: string; type: string; body: string }[] };
  return deliveries
    .filter((delivery) => delivery.subscriptionArn === subscriptionArn && delivery.type === 'Notification')
    .map((delivery) => JSON.parse(delivery.body))
    .map((notification: { MessageId: string; Message: string }) => ({ messageId: notification.MessageId, body: notification.Message }));
}

/** The message log of a subscription as stored, oldest first: SNS's message id and the body kept. */
export async function loggedMessagesOf(portalId: string, configId: string): Promise<{ messageId: string; body: string; eventId: string; deliveryState: string }[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: 'portalId = :portalId AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':portalId': portalId, ':prefix': messagePrefixOf(configId) },
    }),
  );
  return (result.Items ?? []).map(({ messageId, body, eventId, deliveryState }) => ({ messageId, body, eventId, deliveryState }));
}

/** Fails every PublishBatch to one topic whole, `times` times; returns the function that removes the fault. */
export function failPublishTo(topicArn: string, times = 1): () => void {
  const name = `fail-publish-${randomUUID()}`;
  let remaining = times;
  snsClient.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TopicArn?: string };
      if (context.commandName === 'PublishBatchCommand' && input.TopicArn === topicArn && remaining > 0) {
        remaining--;
        throw serviceFault('PublishBatchCommand');
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => void snsClient.middlewareStack.remove(name);
}

/**
 * Fails one entry of a PublishBatch to `topicArn`, the one carrying `eventId`, as SNS reports an
 * entry it failed on its side (in `Failed`, with the call answering 200): the emulator never
 * fails an entry of a batch it accepts, so the entry is taken out before the call and its
 * failure added to the answer. Returns the function that removes the fault.
 */
export function failEntryOf(topicArn: string, eventId: string, times = 1): () => void {
  const name = `fail-entry-${randomUUID()}`;
  let remaining = times;
  snsClient.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as PublishBatchCommandInput;
      if (context.commandName !== 'PublishBatchCommand' || input.TopicArn !== topicArn || remaining <= 0) return next(args);
      const entries = input.PublishBatchRequestEntries ?? [];
      const doomed = entries.find((entry) => JSON.parse(entry.Message!).eventId === eventId);
      if (!doomed) return next(args);
      remaining--;
      const rest = entries.filter((entry) => entry !== doomed);
      const answer = rest.length > 0 ? await next({ ...args, input: { ...input, PublishBatchRequestEntries: rest } }) : { output: { Successful: [] }, response: {} };
      const output = answer.output as PublishBatchCommandOutput;
      const failed = { Id: doomed.Id, Code: 'InternalError', Message: 'Internal failure injected for this entry', SenderFault: false };
      return { ...answer, output: { ...output, Failed: [...(output.Failed ?? []), failed] } };
    },
    { step: 'initialize', name },
  );
  return () => void snsClient.middlewareStack.remove(name);
}

/** Each PublishBatch made while `run` runs: its topic and the event ids of its entries, in order. */
export async function publishBatchesDuring(run: () => Promise<unknown>): Promise<{ topicArn: string; eventIds: string[] }[]> {
  return (await commandsDuring(run))
    .filter(({ commandName }) => commandName === 'PublishBatchCommand')
    .map(({ input }) => {
      const { TopicArn, PublishBatchRequestEntries } = input as unknown as PublishBatchCommandInput;
      return { topicArn: TopicArn!, eventIds: (PublishBatchRequestEntries ?? []).map((entry) => JSON.parse(entry.Message!).eventId) };
    });
}

/** The topic's access policy set to deny every Publish (and so every PublishBatch); returns the function that restores it. */
export async function denyPublishTo(topicArn: string): Promise<() => Promise<void>> {
  const { Attributes } = await inspectSns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
  const deny = { Version: '2012-10-17', Statement: [{ Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Resource: topicArn }] };
  await inspectSns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: JSON.stringify(deny) }));
  return async () => {
    await inspectSns.send(new SetTopicAttributesCommand({ TopicArn: topicArn, AttributeName: 'Policy', AttributeValue: Attributes!.Policy! }));
  };
}

/** The record as SQS hands it out again after it was reported failed. */
export const retried = (record: SQSRecord, receiveCount = 2): SQSRecord => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(receiveCount) } });

/** The local stand-in of the dispatcher's SQS queue, feeding this handler with retries `delayMs` apart. */
export function localQueue(handler: SqsHandler = dispatch, delayMs = 20) {
  return new EventQueue({
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:portal-events',
    region: 'us-east-1',
    handler,
    context: () => lambdaContext('dispatchPortalEvents', 30_000),
    visibilityDelayMs: delayMs,
  });
}

/** Queues the events and waits until the queue has worked through them (delivered or dead-lettered). */
export async function drain(queue: EventQueue, ...events: unknown[]): Promise<void> {
  for (const event of events) expect(queue.send(JSON.stringify(event))).toBe(true);
  await waitFor('the queue to drain', () => (queue.depth === 0 ? true : undefined));
}
