/** Reading and answering on node:http, shared by the gateway and the token endpoint. */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/**
 * The whole request body, or a BodyTooLargeError as soon as it passes `limitBytes` (by its
 * content-length, before anything is read, or while streaming): at most `limitBytes` are ever
 * held, however much a client sends.
 */
export function readBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    return Promise.reject(new BodyTooLargeError(`${declared} bytes declared, limit ${limitBytes}`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        request.off('data', onData);
        // Stop reading: the answer is sent with `connection: close` and the rest is never read.
        request.pause();
        reject(new BodyTooLargeError(`more than ${limitBytes} bytes sent`));
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks, size)));
    request.once('error', reject);
    // A client that goes away mid-body: nothing more will come (a settled promise ignores this).
    request.once('close', () => reject(new Error('the client closed the connection before the body ended')));
  });
}

/**
 * Sends a complete answer. When the request body was not read to its end (the request was
 * refused before it, or it was too large), the connection is closed after the answer rather
 * than reading the rest of the body to keep it alive.
 */
export function sendResponse(
  request: IncomingMessage,
  response: ServerResponse,
  statusCode: number,
  headers: OutgoingHttpHeaders,
  body: string | Buffer = '',
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  response.writeHead(statusCode, {
    ...headers,
    'content-length': payload.length,
    ...(hasUnreadBody(request) ? { connection: 'close' } : {}),
  });
  // With `connection: close`, node:http closes the socket once the answer is written.
  response.end(payload);
}

/** A body was announced and not read to its end. */
function hasUnreadBody(request: IncomingMessage): boolean {
  const announced = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
  return announced && !request.complete;
}

export function sendJson(
  request: IncomingMessage,
  response: ServerResponse,
  statusCode: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  sendResponse(request, response, statusCode, { 'content-type': 'application/json', ...headers }, JSON.stringify(body));
}
