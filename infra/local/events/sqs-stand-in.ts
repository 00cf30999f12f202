/**
 * A stand-in for Amazon SQS's SendMessage on one machine, for the recovery jobs' queue: the AWS JSON
 * 1.0 protocol `@aws-sdk/client-sqs` speaks (SQS API Reference, "SendMessage"), with `DelaySeconds`
 * (a delayed message is queued when its delay is over; one still delayed at a stop is not kept: the
 * local stack resumes every running recovery at start) and `MessageGroupId` (the fair queue's tenant,
 * as event-queue.ts takes it). The queue URL names the stand-in itself, so the SDK reaches it whether
 * it takes its endpoint from AWS_ENDPOINT_URL_SQS or from the URL.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../gateway/http-body';
import type { EventQueue } from './event-queue';

export interface SqsStandIn {
  endpoint: string;
  /** The URL of the queue named `name`, as SQS writes one. */
  queueUrl(name: string): string;
  /** Where the messages sent to the queue named `name` go. */
  route(name: string, queue: EventQueue): void;
  close(): Promise<void>;
}

const CONTENT_TYPE = 'application/x-amz-json-1.0';
/** SQS takes bodies of up to 256 KiB (1 MiB since 2025); the jobs are a few hundred bytes. */
const MAX_REQUEST_BYTES = 1024 * 1024;
/** Restarts in one process reuse the port, so the URL the handlers read at import stays valid. */
let portOfEarlierStart: number | undefined;

export async function startSqsStandIn(options: { accountId: string; log?: (line: string) => void }): Promise<SqsStandIn> {
  const queues = new Map<string, EventQueue>();
  const delayed = new Set<NodeJS.Timeout>();
  let closed = false;
  const sendMessage = (input: { QueueUrl?: unknown; MessageBody?: unknown; DelaySeconds?: unknown; MessageGroupId?: unknown }) => {
    const name = typeof input.QueueUrl === 'string' ? input.QueueUrl.split('/').pop()! : '';
    const queue = queues.get(name);
    if (!queue) return { status: 400, body: { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' } };
    if (typeof input.MessageBody !== 'string' || input.MessageBody === '') {
      return { status: 400, body: { __type: 'com.amazonaws.sqs#MissingParameter', message: 'The request must contain the parameter MessageBody.' } };
    }
    const delaySeconds = Number(input.DelaySeconds ?? 0);
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > 900) {
      return { status: 400, body: { __type: 'com.amazonaws.sqs#InvalidParameterValue', message: 'Value for parameter DelaySeconds is invalid.' } };
    }
    const body = input.MessageBody;
    const groupId = typeof input.MessageGroupId === 'string' ? input.MessageGroupId : undefined;
    if (delaySeconds === 0) {
      if (!queue.send(body, undefined, groupId)) return { status: 500, body: { __type: 'com.amazonaws.sqs#InternalError', message: 'The local queue is stopped.' } };
    } else {
      const timer = setTimeout(() => {
        delayed.delete(timer);
        if (!closed) queue.send(body, undefined, groupId);
      }, delaySeconds * 1000);
      delayed.add(timer);
    }
    return { status: 200, body: { MessageId: randomUUID(), MD5OfMessageBody: createHash('md5').update(body, 'utf8').digest('hex') } };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      response.writeHead(status, { 'content-type': CONTENT_TYPE, 'content-length': Buffer.byteLength(text), 'x-amzn-requestid': randomUUID() });
      response.end(text);
    };
    try {
      const text = (await readBody(request, MAX_REQUEST_BYTES)).toString('utf8');
      const target = request.headers['x-amz-target'];
      if (request.method !== 'POST' || target !== 'AmazonSQS.SendMessage') {
        send(400, { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: `The local SQS stand-in supports only SendMessage, not ${String(target)}.` });
        return;
      }
      const answer = sendMessage(JSON.parse(text) as Record<string, unknown>);
      send(answer.status, answer.body);
    } catch (error) {
      options.log?.(`SQS stand-in failed: ${String(error)}`);
      if (!response.headersSent) send(400, { __type: 'com.amazonaws.sqs#InvalidParameterValue', message: 'The request could not be read.' });
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
