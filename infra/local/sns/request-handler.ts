/**
 * One HTTP request to the emulator: the signing certificate, the recorded-deliveries listing, or
 * an SNS action, checked for a signature, dispatched through the action table, saved when it
 * changed something, and answered in XML (an `<ErrorResponse>` for any failure).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ACTIONS, UNSIGNED_ACTIONS } from './actions';
import { invalidParameter, SnsError } from './errors';
import { errorXml, requestParams, successXml } from './query-protocol';
import { LOGS_TARGET_PREFIX, logsAction, LogsError } from './log-groups';
import type { SnsBackend } from './state';

/** A 256 KiB message, form-encoded, can grow up to nine-fold (%XX per byte of 3-byte UTF-8). */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const DELIVERIES_PATH = '/_emulator/deliveries';
const DEAD_LETTERS_PATH = '/_emulator/dead-letters';
/**
 * Every message SNS sends an endpoint carries this header (messages.ts), and no API call does.
 */
const MESSAGE_TYPE_HEADER = 'x-amz-sns-message-type';
/** Certificate URLs as SNS names them; only the emulator's own is found. */
const CERTIFICATE_PATH = /^\/SimpleNotificationService-[^/]*\.pem$/;

/** Reads the body up to MAX_REQUEST_BYTES; past that the rest is drained and the request refused. */
function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > MAX_REQUEST_BYTES) reject(invalidParameter('Request body too large'));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, contentType: string, body: string, requestId: string): void {
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'x-amzn-requestid': requestId,
  });
  response.end(body);
}

export async function handleRequest(sns: SnsBackend, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const requestId = randomUUID();
  try {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const body = await readBody(request);
    if (request.method === 'GET' && url.pathname === DELIVERIES_PATH) {
      send(response, 200, 'application/json', JSON.stringify({ deliveries: sns.recorded }), requestId);
      return;
    }
    if (request.method === 'GET' && url.pathname === DEAD_LETTERS_PATH) {
      const listing = { deadLetters: sns.deadLetters, overflow: sns.deadLetterOverflow() };
      send(response, 200, 'application/json', JSON.stringify(listing), requestId);
      return;
    }
    // CloudWatch Logs' JSON protocol: the delivery status log groups (log-groups.ts).
    const target = request.headers['x-amz-target'];
    if (request.method === 'POST' && typeof target === 'string' && target.startsWith(LOGS_TARGET_PREFIX)) {
      const { region, accountId } = sns.settings;
      const arnOf = (name: string) => `arn:aws:logs:${region}:${accountId}:log-group:${name}`;
      try {
        send(response, 200, 'application/x-amz-json-1.1', JSON.stringify(logsAction(sns.logGroups, target, body, arnOf)), requestId);
      } catch (error) {
        if (!(error instanceof LogsError)) throw error;
        send(response, 400, 'application/x-amz-json-1.1', JSON.stringify({ __type: error.type, message: error.message }), requestId);
      }
      return;
    }
    if (request.method === 'GET' && CERTIFICATE_PATH.test(url.pathname)) {
      const { certificatePath, certificatePem } = sns.settings.signing;
      if (url.pathname === certificatePath) send(response, 200, 'application/x-pem-file', certificatePem, requestId);
      else send(response, 404, 'text/plain', 'No such certificate.\n', requestId);
      return;
    }
    // A delivery that reached the emulator itself (an endpoint on its own port, `?Action=...` in
    // the URL or a form hidden in the message) is a message, never an action: executing it would
    // let a tenant's endpoint, or an event's data, unsubscribe or confirm subscriptions.
    if (request.headers[MESSAGE_TYPE_HEADER] !== undefined) {
      throw new SnsError('InvalidAction', 'The SNS emulator takes no deliveries: a message SNS sends is never an API call.');
    }
    const params = requestParams(url, body);
    const action = params.get('Action');
    if (!action) throw new SnsError('MissingAction', 'Missing required parameter: Action');
    const spec = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
    if (!spec) throw new SnsError('InvalidAction', `The action ${action} is not valid for this web service.`);
    const signed = request.headers.authorization !== undefined;
    if (!signed && !UNSIGNED_ACTIONS.has(action)) {
      throw new SnsError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
    }
    const accessKeyId = /\bCredential=([^/,\s]+)\//.exec(request.headers.authorization ?? '')?.[1];
    const result = spec.run(sns, params, { signed, accessKeyId });
    if (spec.writes) sns.save();
    send(response, 200, 'text/xml', successXml(action, result, requestId), requestId);
  } catch (error) {
    let snsError: SnsError;
    if (error instanceof SnsError) {
      snsError = error;
    } else {
      sns.settings.log(`internal error: ${(error as Error)?.stack ?? String(error)}`);
      snsError = new SnsError('InternalError', 'The emulator failed to process the request.', 500, 'Receiver');
    }
    if (!response.headersSent) send(response, snsError.status, 'text/xml', errorXml(snsError, requestId), requestId);
  }
}
