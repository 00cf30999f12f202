/**
 * A stand-in for Amazon EventBridge's PutEvents on one machine: the AWS JSON 1.1
 * protocol that `@aws-sdk/client-eventbridge` and `aws events put-events --endpoint-url` speak,
 * and the stack's one rule: events of source `portal.events` on the portal-events bus go to the
 * dispatcher's queue (event-queue.ts), as EventBridge events in SQS message bodies.
 *
 * `GET /_emulator/dead-letters` lists the events the dispatcher failed on too often (the latest
 * 1,000; `notKept` counts the older ones).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PORTAL_EVENT_SOURCE } from '../../../shared/delivery/portal-event';
import { BodyTooLargeError, readBody } from '../gateway/http-body';
import type { EventQueue } from './event-queue';

export interface EventBusOptions {
  /** 0 = a free port. */
  port: number;
  host?: string;
  /** The bus the rule listens on (the stack's eventBusName). */
  busName: string;
  region: string;
  accountId: string;
  /** The rule's target. */
  queue: EventQueue;
  log?: (line: string) => void;
}

export interface EventBus {
  endpoint: string;
  busArn: string;
  close(): Promise<void>;
}

const CONTENT_TYPE = 'application/x-amz-json-1.1';
/** PutEvents takes at most 10 entries of at most 256 KiB in all, as entrySize counts them. */
const MAX_ENTRIES = 10;
const MAX_ENTRIES_BYTES = 256 * 1024;
/** The request itself, JSON with each Detail escaped inside: room for any entries of 256 KiB. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const DEAD_LETTERS_PATH = '/_emulator/dead-letters';

interface PutEventsEntry {
  Source?: unknown;
  DetailType?: unknown;
  Detail?: unknown;
  EventBusName?: unknown;
  Time?: unknown;
  Resources?: unknown;
}

type EntryResult = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

class ClientError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/**
 * An entry's size as EventBridge counts it ("Calculating Amazon EventBridge PutEvents event entry
 * size"): Time 14 bytes if given, then the UTF-8 bytes of Source, DetailType, Detail and each
 * of Resources. EventBusName does not count.
 */
function entrySize(entry: PutEventsEntry): number {
  const bytes = (value: unknown) => (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  const resources = Array.isArray(entry.Resources) ? entry.Resources.reduce((sum: number, resource) => sum + bytes(resource), 0) : 0;
  return (entry.Time === undefined ? 0 : 14) + bytes(entry.Source) + bytes(entry.DetailType) + bytes(entry.Detail) + resources;
}

/** An entry as EventBridge writes it into the refusal of too many entries (recorded). */
function describedEntry(entry: unknown): string {
  const fields = (entry ?? {}) as PutEventsEntry & { TraceHeader?: unknown };
  const text = (value: unknown) => (value === undefined || value === null ? 'null' : Array.isArray(value) ? `[${value.join(', ')}]` : String(value));
  return (
    `PutEventsRequestEntry(time=${text(fields.Time)}, source=${text(fields.Source)}, resources=${text(fields.Resources)}, ` +
    `detailType=${text(fields.DetailType)}, detail=${text(fields.Detail)}, eventBusName=${text(fields.EventBusName)}, ` +
    `traceHeader=${text(fields.TraceHeader)}, kmsKeyIdentifier=null, internalMetadata=null)`
  );
}

export async function startEventBus(options: EventBusOptions): Promise<EventBus> {
  const host = options.host ?? '127.0.0.1';
  const busArn = `arn:aws:events:${options.region}:${options.accountId}:event-bus/${options.busName}`;

  /** One entry: checked as EventBridge checks it, then matched against the rule. */
  const putEntry = (entry: PutEventsEntry): EntryResult => {
    const invalid = (name: string, reason: string) => ({
      ErrorCode: 'InvalidArgument',
      ErrorMessage: `Parameter ${name} is not valid. Reason: ${reason}`,
    });
    if (typeof entry.Source !== 'string' || entry.Source === '') return invalid('Source', 'Source is a required argument.');
    if (typeof entry.DetailType !== 'string' || entry.DetailType === '') {
      return invalid('DetailType', 'DetailType is a required argument.');
    }
    if (typeof entry.Detail !== 'string' || entry.Detail === '') return invalid('Detail', 'Detail is a required argument.');
    let detail: unknown;
    try {
      detail = JSON.parse(entry.Detail);
    } catch {
      detail = undefined;
    }
    // Detail must be a JSON object: an array or a JSON string (a double-encoded Detail) is
    // refused as malformed, as EventBridge refuses it (recorded), never delivered.
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    }
    const time = entry.Time === undefined ? new Date() : new Date(typeof entry.Time === 'number' ? entry.Time * 1000 : String(entry.Time));
    if (Number.isNaN(time.getTime())) return invalid('Time', 'Time is not a valid timestamp.');
    const eventId = randomUUID();
    const bus = typeof entry.EventBusName === 'string' && entry.EventBusName !== '' ? entry.EventBusName : 'default';
    if (bus !== options.busName && bus !== busArn) {
      options.log?.(`event ${eventId} on bus ${bus}: no rule there (the portal-events bus is ${options.busName})`);
      return { EventId: eventId };
    }
    if (entry.Source !== PORTAL_EVENT_SOURCE) {
      options.log?.(`event ${eventId} of source ${entry.Source}: matches no rule`);
      return { EventId: eventId };
    }
    const event = {
      version: '0',
      id: eventId,
      'detail-type': entry.DetailType,
      source: entry.Source,
      account: options.accountId,
      time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: options.region,
      resources: Array.isArray(entry.Resources) ? entry.Resources.map(String) : [],
      detail,
    };
    // The portal is the message's group, as the stack's rule target sets it (PORTAL_GROUP_PATH):
    // the queue serves portals fairly, and one portal filling its share is refused alone.
    const { portalId } = detail as { portalId?: unknown };
    if (!options.queue.send(JSON.stringify(event), undefined, typeof portalId === 'string' ? portalId : undefined)) {
      return { ErrorCode: 'InternalFailure', ErrorMessage: "The local queue is stopped, or holds this portal's share of it." };
    }
    options.log?.(`event ${eventId} (${entry.DetailType}) queued for the dispatcher`);
    return { EventId: eventId };
  };

  const putEvents = (body: string) => {
    let request: { Entries?: unknown };
    try {
      request = JSON.parse(body) as { Entries?: unknown };
    } catch {
      throw new ClientError('SerializationException', 'Start of structure or map found where not expected.');
    }
    const entries = request?.Entries;
    if (!Array.isArray(entries) || entries.length < 1) {
      throw new ClientError(
        'ValidationException',
        `1 validation error detected: Value '[]' at 'entries' failed to satisfy constraint: Member must have length greater than or equal to 1`,
      );
    }
    if (entries.length > MAX_ENTRIES) {
      throw new ClientError(
        'ValidationException',
        `1 validation error detected: Value '[${entries.map(describedEntry).join(', ')}]' at 'entries' failed to satisfy constraint: Member must have length less than or equal to ${MAX_ENTRIES}`,
      );
    }
    const total = entries.reduce((sum: number, entry) => sum + entrySize((entry ?? {}) as PutEventsEntry), 0);
    if (total > MAX_ENTRIES_BYTES) throw new ClientError('ValidationException', 'Total size of the entries in the request is over the limit.');
    const results = entries.map((entry) => putEntry((entry ?? {}) as PutEventsEntry));
    return { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const send = (status: number, body: unknown, contentType = CONTENT_TYPE) => {
      const text = JSON.stringify(body);
      response.writeHead(status, {
        'content-type': contentType,
        'content-length': Buffer.byteLength(text),
        'x-amzn-requestid': randomUUID(),
      });
      response.end(text);
    };
    try {
      const path = (request.url ?? '/').split('?', 1)[0];
      if (request.method === 'GET' && path === DEAD_LETTERS_PATH) {
        await readBody(request, 0).catch(() => undefined);
        send(200, { deadLetters: options.queue.deadLetters, notKept: options.queue.deadLettersNotKept }, 'application/json');
        return;
      }
      const body = (await readBody(request, MAX_REQUEST_BYTES)).toString('utf8');
      if (request.method !== 'POST') throw new ClientError('UnknownOperationException', 'Only POST is supported.');
      if (!request.headers.authorization) {
        throw new ClientError('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
      }
      const target = request.headers['x-amz-target'];
      if (target !== 'AWSEvents.PutEvents') {
        throw new ClientError('UnknownOperationException', `The local event bus supports only PutEvents, not ${String(target)}.`);
      }
      send(200, putEvents(body));
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        send(413, { __type: 'ValidationException', message: 'Total size of the entries in the request is over the limit.' });
      } else if (error instanceof ClientError) {
        send(error.status, { __type: error.type, message: error.message });
      } else {
        options.log?.(`event bus failed: ${(error as Error)?.stack ?? String(error)}`);
        if (!response.headersSent) send(500, { __type: 'InternalException', message: 'The local event bus failed.' });
      }
    }
  };

  const server = createServer((request, response) => void handle(request, response));
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const endpoint = `http://${host}:${(server.address() as AddressInfo).port}`;
  options.log?.(`EventBridge stand-in listening on ${endpoint} (bus ${options.busName})`);
  return {
    endpoint,
    busArn,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
