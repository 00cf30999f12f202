/**
 * The hostile-input suite's raw HTTP client: node:http with the request-target, headers and body
 * exactly as given (no normalization of `..`, `%2F`, ...; chunked or held back on request).
 */
import http from 'node:http';

export interface RawRequest {
  readonly method: string;
  /** The request-target exactly as sent (no normalization of `..`, `%2F`, ...). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** Send the body with chunked transfer encoding, without content-length. */
  readonly chunked?: boolean;
  /**
   * The gateway should answer from the headers alone (404, 413): hold the body back until the
   * answer comes, as a client waiting for 100-continue would, or for at most a second.
   */
  readonly expectEarlyAnswer?: boolean;
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json: unknown;
}

/** A reset of a reused kept-alive connection before any answer: the server had closed it. */
export class StaleConnectionError extends Error {
  override readonly name = 'StaleConnectionError';
}

const REQUEST_TIMEOUT_MS = 20_000;
/** Big bodies go out in pieces, so that an early answer (API Gateway's 413) stops the upload. */
const PIECE_BYTES = 256 * 1024;
const EARLY_ANSWER_WAIT_MS = 1_000;

/**
 * One request with node:http, the request-target and headers exactly as given. Resolves with
 * the answer once it has been read, even when the server answered before the body was sent
 * (it then closes the connection; the rest of the body is not sent).
 */
export function sendRaw(apiUrl: URL, agent: http.Agent, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const body = request.body ?? Buffer.alloc(0);
    const headers: Record<string, string> = { ...request.headers };
    if (!request.chunked && (body.length > 0 || request.method !== 'GET')) headers['content-length'] = String(body.length);
    let answered = false;
    const outgoing = http.request(
      {
        host: apiUrl.hostname,
        port: apiUrl.port,
        method: request.method,
        path: request.path,
        headers,
        agent,
        timeout: REQUEST_TIMEOUT_MS,
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
          // An upload cut short leaves the socket unusable.
          if (!outgoing.writableFinished) outgoing.destroy();
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      const message = `${request.method} ${request.path.slice(0, 200)}: ${error.message}`;
      reject(outgoing.reusedSocket && error.code === 'ECONNRESET' ? new StaleConnectionError(message) : new Error(message));
    });
    if (body.length === 0) {
      outgoing.end();
      return;
    }
    if (body.length <= PIECE_BYTES && !request.chunked && !request.expectEarlyAnswer) {
      outgoing.end(body);
      return;
    }
    // Chunked bodies go in at least three pieces, so that the server has to put them together.
    const pieceBytes = request.chunked ? Math.min(PIECE_BYTES, Math.max(1, Math.ceil(body.length / 3))) : PIECE_BYTES;
    let offset = 0;
    const writeMore = () => {
      if (answered || outgoing.destroyed) return;
      if (offset >= body.length) {
        outgoing.end();
        return;
      }
      const piece = body.subarray(offset, offset + pieceBytes);
      offset += piece.length;
      // One piece per turn of the event loop, so that an early answer is read before the next write.
      if (outgoing.write(piece)) setImmediate(writeMore);
      else outgoing.once('drain', () => setImmediate(writeMore));
    };
    if (request.expectEarlyAnswer) {
      outgoing.flushHeaders();
      const timer = setTimeout(writeMore, EARLY_ANSWER_WAIT_MS);
      outgoing.once('response', () => clearTimeout(timer));
      outgoing.once('close', () => clearTimeout(timer));
    } else {
      writeMore();
    }
  });
}
