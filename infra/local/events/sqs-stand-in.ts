/**
 * A stand-in for Amazon SQS's SendMessage and SendMessageBatch on one machine, for the queues the
 * service's own functions send to (the recovery jobs', and the dead letters by portal the forwarder
 * sends on): the AWS JSON 1.0 protocol `@aws-sdk/client-sqs` speaks (SQS API Reference,
 * "SendMessage", "SendMessageBatch"), with `DelaySeconds` (a delayed message is queued when its
 * delay is over; one still delayed at a stop is not kept: the local stack resumes every running
 * recovery at start), `MessageAttributes` and `MessageGroupId` (the fair queue's tenant, as
 * event-queue.ts takes it). A message is held to SQS's rules (a body of XML's characters, a group id
 * of 1 to 128 letters, digits and punctuation, no deduplication id (the queues are standard ones),
 * valid attributes (sqs-message-rules.ts), 1 MiB), and a batch to its limits:
 * 1 to 10 entries with distinct ids, 1 MiB in all. The queue URL names the stand-in itself, so the SDK reaches it whether it takes its
 * endpoint from AWS_ENDPOINT_URL_SQS or from the URL.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../gateway/http-body';
import { type EventQueue, md5OfMessageAttributes, type QueueMessageAttribute } from './event-queue';
import { ALLOWED_CHARACTERS, attributesOf, invalidCharacterOf } from './sqs-message-rules';

export interface SqsStandIn {
  endpoint: string;
  /** The URL of the queue named `name`, as SQS writes one. */
  queueUrl(name: string): string;
  /** Where the messages sent to the queue named `name` go. */
  route(name: string, queue: EventQueue): void;
  close(): Promise<void>;
}

const CONTENT_TYPE = 'application/x-amz-json-1.0';
/** SQS takes a message, and a batch's messages together, of up to 1 MiB (bodies and attributes). */
const MAX_MESSAGE_BYTES = 1_048_576;
/** The request around them: its JSON, the base64 of binary attributes. */
const MAX_REQUEST_BYTES = 3 * MAX_MESSAGE_BYTES;
/** SendMessageBatch takes 1 to 10 entries. */
const MAX_BATCH_ENTRIES = 10;
/** Restarts in one process reuse the port, so the URL the handlers read at import stays valid. */
let portOfEarlierStart: number | undefined;

export async function startSqsStandIn(options: { accountId: string; log?: (line: string) => void }): Promise<SqsStandIn> {
  const queues = new Map<string, EventQueue>();
  const delayed = new Set<NodeJS.Timeout>();
  let closed = false;
  /** `entryMessage`: how SQS words the refusal of a batch's entry, where it words it otherwise than SendMessage's. */
  type Answer = { status: number; body: Record<string, unknown>; error?: SqsError; entryMessage?: string };
  const refusal = (status: number, error: SqsError, message: string, entryMessage?: string): Answer => ({
    status,
    body: { __type: `com.amazonaws.sqs#${error.type}`, message },
    error,
    ...(entryMessage !== undefined && { entryMessage }),
  });
  const queueOf = (queueUrl: unknown) => queues.get(typeof queueUrl === 'string' ? queueUrl.split('/').pop()! : '');

  /** One message checked as SQS checks it: its refusal, or what to queue. */
  const messageOf = (input: MessageInput): { refused: Answer } | { body: string; attributes?: Record<string, QueueMessageAttribute>; groupId?: string; delaySeconds: number; bytes: number } => {
    if (typeof input.MessageBody !== 'string' || input.MessageBody === '') return { refused: refusal(400, ERRORS.missingParameter, 'The request must contain the parameter MessageBody.') };
    const delaySeconds = Number(input.DelaySeconds ?? 0);
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > 900) return { refused: refusal(400, ERRORS.invalidParameterValue, 'Value for parameter DelaySeconds is invalid.') };
    const attributes = attributesOf(input.MessageAttributes);
    if ('invalid' in attributes) return { refused: refusal(400, ERRORS.invalidParameterValue, attributes.invalid) };
    const bytes = Buffer.byteLength(input.MessageBody, 'utf8') + attributes.bytes;
    if (bytes > MAX_MESSAGE_BYTES) return { refused: refusal(400, ERRORS.invalidParameterValue, `One or more parameters are invalid. Reason: Message must be shorter than ${MAX_MESSAGE_BYTES} bytes.`) };
    const invalid = invalidCharacterOf(input.MessageBody);
    if (invalid !== undefined) return { refused: refusal(400, ERRORS.invalidMessageContents, `Invalid binary character '${invalid}' was found in the message body, the set of allowed characters is ${ALLOWED_CHARACTERS}.`) };
    const groupId = input.MessageGroupId === undefined ? undefined : String(input.MessageGroupId);
    if (groupId !== undefined && !/^[\x21-\x7e]{1,128}$/.test(groupId)) {
      return { refused: refusal(400, ERRORS.invalidParameterValue, `Value ${groupId} for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.`) };
    }
    // Every queue here is a standard queue (a fair queue takes a group, not a deduplication id): SQS
    // refuses the id, which "applies only to FIFO (first-in-first-out) queues" (SQS API Reference,
    // "SendMessage", https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html).
    // Its answers, as AWS gave them to users (no recording shows them): SendMessage's in
    // https://github.com/cdklabs/construct-hub/issues/905, a batch entry's (in Failed, the call 200)
    // in https://github.com/aws/aws-sdk-js/issues/4216; "include" is AWS's word, as in its recorded
    // refusal of DelaySeconds on a FIFO queue.
    if (input.MessageDeduplicationId !== undefined && input.MessageDeduplicationId !== null) {
      const reason = 'The request include parameter that is not valid for this queue type';
      return { refused: refusal(400, ERRORS.invalidParameterValue, `Value ${String(input.MessageDeduplicationId)} for parameter MessageDeduplicationId is invalid. Reason: ${reason}.`, reason) };
    }
    return { body: input.MessageBody, ...(attributes.count > 0 && { attributes: attributes.values }), ...(groupId !== undefined && { groupId }), delaySeconds, bytes };
  };

  const enqueue = (queue: EventQueue, body: string, attributes: Record<string, QueueMessageAttribute> | undefined, groupId: string | undefined, delaySeconds: number): boolean => {
    if (delaySeconds === 0) return queue.send(body, attributes, groupId);
    const timer = setTimeout(() => {
      delayed.delete(timer);
      if (!closed) queue.send(body, attributes, groupId);
    }, delaySeconds * 1000);
    delayed.add(timer);
    return true;
  };

  const sentAnswer = (body: string, attributes: Record<string, QueueMessageAttribute> | undefined) => ({
    MessageId: randomUUID(),
    MD5OfMessageBody: createHash('md5').update(body, 'utf8').digest('hex'),
    ...(attributes && { MD5OfMessageAttributes: md5OfMessageAttributes(attributes) }),
  });

  const sendMessage = (input: MessageInput & { QueueUrl?: unknown }): Answer => {
    const queue = queueOf(input.QueueUrl);
    if (!queue) return refusal(400, ERRORS.nonExistentQueue, 'The specified queue does not exist.');
    const message = messageOf(input);
    if ('refused' in message) return message.refused;
    if (!enqueue(queue, message.body, message.attributes, message.groupId, message.delaySeconds)) return refusal(500, ERRORS.internalError, 'The local queue is stopped.');
    return { status: 200, body: sentAnswer(message.body, message.attributes) };
  };

  const sendMessageBatch = (input: { QueueUrl?: unknown; Entries?: unknown }): Answer => {
    const queue = queueOf(input.QueueUrl);
    if (!queue) return refusal(400, ERRORS.nonExistentQueue, 'The specified queue does not exist.');
    const entries = Array.isArray(input.Entries) ? (input.Entries as (MessageInput & { Id?: unknown })[]) : [];
    if (entries.length === 0) return refusal(400, ERRORS.emptyBatchRequest, 'There should be at least one SendMessageBatchRequestEntry in the request.');
    if (entries.length > MAX_BATCH_ENTRIES) return refusal(400, ERRORS.tooManyEntries, `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${entries.length}.`);
    const ids = entries.map((entry) => entry.Id);
    if (ids.some((id) => typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,80}$/.test(id))) {
      return refusal(400, ERRORS.invalidBatchEntryId, 'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.');
    }
    const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
    if (repeated !== undefined) return refusal(400, ERRORS.idsNotDistinct, `Id ${String(repeated)} repeated.`);
    const checked = entries.map((entry) => ({ id: entry.Id as string, message: messageOf(entry) }));
    const total = checked.reduce((sum, { message }) => sum + ('bytes' in message ? message.bytes : 0), 0);
    if (total > MAX_MESSAGE_BYTES) return refusal(400, ERRORS.batchRequestTooLong, `Batch requests cannot be longer than ${MAX_MESSAGE_BYTES} bytes. You have sent ${total} bytes.`);
    const successful: Record<string, unknown>[] = [];
    const failed: Record<string, unknown>[] = [];
    for (const { id, message } of checked) {
      if ('refused' in message) {
        // As SQS words an entry's refusal in a batch (recorded): "cannot be validated", not "are invalid".
        const text = message.refused.entryMessage ?? String(message.refused.body.message).replace('One or more parameters are invalid.', 'One or more parameters cannot be validated.');
        failed.push({ Id: id, SenderFault: true, Code: message.refused.error!.code, Message: text });
      } else if (!enqueue(queue, message.body, message.attributes, message.groupId, message.delaySeconds)) {
        failed.push({ Id: id, SenderFault: false, Code: ERRORS.internalError.code, Message: 'The local queue is stopped.' });
      } else {
        successful.push({ Id: id, ...sentAnswer(message.body, message.attributes) });
      }
    }
    return { status: 200, body: { Successful: successful, Failed: failed } };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const send = (status: number, body: unknown, error?: SqsError) => {
      const text = JSON.stringify(body);
      response.writeHead(status, {
        'content-type': CONTENT_TYPE,
        'content-length': Buffer.byteLength(text),
        'x-amzn-requestid': randomUUID(),
        // The code of SQS's older query protocol, which the SDKs show as the error's Code.
        ...(error && { 'x-amzn-query-error': `${error.code};${status < 500 ? 'Sender' : 'Receiver'}` }),
      });
      response.end(text);
    };
    try {
      const text = (await readBody(request, MAX_REQUEST_BYTES)).toString('utf8');
      const target = request.headers['x-amz-target'];
      const action = request.method === 'POST' && typeof target === 'string' ? ACTIONS[target] : undefined;
      if (!action) {
        const error = ERRORS.unsupportedOperation;
        send(400, { __type: `com.amazonaws.sqs#${error.type}`, message: `The local SQS stand-in supports only SendMessage and SendMessageBatch, not ${String(target)}.` }, error);
        return;
      }
      const input = JSON.parse(text) as Record<string, unknown>;
      const answer = action === 'SendMessage' ? sendMessage(input) : sendMessageBatch(input);
      send(answer.status, answer.body, answer.error);
    } catch (error) {
      options.log?.(`SQS stand-in failed: ${String(error)}`);
      if (!response.headersSent) send(400, { __type: `com.amazonaws.sqs#${ERRORS.invalidParameterValue.type}`, message: 'The request could not be read.' }, ERRORS.invalidParameterValue);
    }
  };

  const server = createServer((request, response) => void handle(request, response));
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(portOfEarlierStart ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  portOfEarlierStart = port;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    queueUrl: (name) => `${endpoint}/${options.accountId}/${name}`,
    route: (name, queue) => void queues.set(name, queue),
    async close() {
      closed = true;
      for (const timer of delayed) clearTimeout(timer);
      delayed.clear();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await done;
    },
  };
}

/**
 * An SQS error as its JSON protocol answers it: the shape named in `__type`, and the code of the
 * query protocol in the `x-amzn-query-error` header, which the SDKs give as the error's code. The
 * pairs and messages are SQS's as recorded against AWS (test/conformance/recordings/sqs.json).
 */
interface SqsError {
  type: string;
  code: string;
}

const ERRORS = {
  missingParameter: { type: 'MissingRequiredParameterException', code: 'MissingParameter' },
  invalidMessageContents: { type: 'InvalidMessageContents', code: 'InvalidMessageContents' },
  invalidParameterValue: { type: 'InvalidParameterValueException', code: 'InvalidParameterValue' },
  nonExistentQueue: { type: 'QueueDoesNotExist', code: 'AWS.SimpleQueueService.NonExistentQueue' },
  emptyBatchRequest: { type: 'EmptyBatchRequest', code: 'AWS.SimpleQueueService.EmptyBatchRequest' },
  tooManyEntries: { type: 'TooManyEntriesInBatchRequest', code: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest' },
  invalidBatchEntryId: { type: 'InvalidBatchEntryId', code: 'AWS.SimpleQueueService.InvalidBatchEntryId' },
  idsNotDistinct: { type: 'BatchEntryIdsNotDistinct', code: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct' },
  batchRequestTooLong: { type: 'BatchRequestTooLong', code: 'AWS.SimpleQueueService.BatchRequestTooLong' },
  unsupportedOperation: { type: 'UnsupportedOperation', code: 'AWS.SimpleQueueService.UnsupportedOperation' },
  internalError: { type: 'InternalError', code: 'InternalError' },
} as const satisfies Record<string, SqsError>;

const ACTIONS: Readonly<Record<string, 'SendMessage' | 'SendMessageBatch'>> = {
  'AmazonSQS.SendMessage': 'SendMessage',
  'AmazonSQS.SendMessageBatch': 'SendMessageBatch',
};

interface MessageInput {
  MessageBody?: unknown;
  DelaySeconds?: unknown;
  MessageGroupId?: unknown;
  MessageDeduplicationId?: unknown;
  MessageAttributes?: unknown;
}
