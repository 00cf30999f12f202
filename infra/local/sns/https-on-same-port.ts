/**
 * HTTPS on the emulator's HTTP port, as SNS serves its API, its certificates and its
 * SubscribeURLs from one host: the first byte a client sends tells the two apart (a TLS handshake
 * starts with 0x16, an HTTP request with a letter of its method), and the connection goes to the
 * HTTP server, which listens, or to an HTTPS server given the same request handler. So the AWS
 * CLI and SDK keep `http://127.0.0.1:9911` and a receiver gets `https://127.0.0.1:9911/…` URLs,
 * with no second port to choose, free or keep.
 */
import type { RequestListener, Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';

const TLS_HANDSHAKE = 0x16;
/** A connection that says nothing for this long is closed before either server takes it. */
const FIRST_BYTES_WITHIN_MS = 10_000;
/** An HTTPS connection idle this long is closed (the HTTP server applies its own timeouts). */
const HTTPS_IDLE_MS = 60_000;

/**
 * Makes `server` (not yet listening) answer TLS connections too, with `tls`, through `handler`.
 * Returns what closes every connection it was given, of either kind, open or idle (as
 * server.closeAllConnections() does for the HTTP ones alone).
 */
export function acceptHttpsOnSamePort(server: Server, tls: { key: string; cert: string }, handler: RequestListener): () => void {
  const https = createHttpsServer(tls, handler);
  https.setTimeout(HTTPS_IDLE_MS);
  // A failed handshake or malformed request must not take the emulator down.
  https.on('tlsClientError', (_error, socket) => socket.destroy());
  https.on('clientError', (_error, socket) => socket.destroy());
  const httpConnectionListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    const silent = () => socket.destroy();
    socket.setTimeout(FIRST_BYTES_WITHIN_MS);
    socket.once('timeout', silent);
    socket.once('data', (chunk: Buffer) => {
      socket.setTimeout(0);
      socket.off('timeout', silent);
      // Put back what was read, for the server that takes the connection to read it again.
      socket.pause();
      socket.unshift(chunk);
      if (chunk[0] === TLS_HANDSHAKE) {
        https.emit('connection', socket);
      } else {
        for (const listener of httpConnectionListeners) listener.call(server, socket);
        socket.resume();
      }
    });
  });
  return () => {
    for (const socket of open) socket.destroy();
  };
}
