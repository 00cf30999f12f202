/**
 * A proxy on 127.0.0.1 in front of DynamoDB Local or the SNS emulator that can make the
 * dependency look down, slow or failing, for outage tests through the real SDK clients.
 */
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type FaultMode =
  /** Forward everything. */
  | 'pass'
  /** Drop every connection at once, as a stopped service does. */
  | 'down'
  /** Forward the request (it takes effect), but answer only after `slowMs`: a lost answer for a client that gives up sooner. */
  | 'slow'
  /** Answer 500 with the service's own error shape, without forwarding. */
  | 'error'
  /** DynamoDB: 'slow' for TransactWriteItems only, every other call passes. */
  | 'slowTransactions'
  /** 'slow' for the calls `slowWhen` picks (by action and body), every other call passes. */
  | 'slowPicked';

export interface FaultProxy {
  endpoint: string;
  mode: FaultMode;
  /** In 'slowPicked': the calls to hold up, by their action (`GetItem`) and request body. */
  slowWhen?: (action: string, body: string) => boolean;
  close(): Promise<void>;
}

const SERVICE_ERRORS = {
  dynamodb: {
    contentType: 'application/x-amz-json-1.0',
    body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' }),
  },
  sns: {
    contentType: 'text/xml',
    body:
      '<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Receiver</Type>' +
      '<Code>InternalError</Code><Message>Internal failure</Message></Error><RequestId>fault</RequestId></ErrorResponse>',
  },
} as const;

export async function startFaultProxy(
  target: string,
  service: keyof typeof SERVICE_ERRORS,
  { slowMs = 5_000 }: { slowMs?: number } = {},
): Promise<FaultProxy> {
  const targetUrl = new URL(target);
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const relay = (incoming: IncomingMessage, outgoing: ServerResponse, delayMs: number, body?: Buffer) => {
    const upstream = forward(
      { host: targetUrl.hostname, port: targetUrl.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const send = () => {
            timers.delete(timer);
            if (outgoing.destroyed) return;
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            outgoing.end(Buffer.concat(chunks));
          };
          const timer = setTimeout(send, delayMs);
          timers.add(timer);
        });
      },
    );
    upstream.on('error', () => outgoing.destroy());
    if (body === undefined) incoming.pipe(upstream);
    else upstream.end(body);
  };

  const proxy: FaultProxy = { endpoint: '', mode: 'pass', close: async () => undefined };
  const server = createServer((incoming, outgoing) => {
    switch (proxy.mode) {
      case 'down':
        incoming.socket.destroy();
        return;
      case 'error': {
        incoming.resume();
        const { contentType, body } = SERVICE_ERRORS[service];
        outgoing.writeHead(500, { 'content-type': contentType });
        outgoing.end(body);
        return;
      }
      case 'slow':
        relay(incoming, outgoing, slowMs);
        return;
      case 'slowTransactions':
        relay(incoming, outgoing, String(incoming.headers['x-amz-target']).endsWith('.TransactWriteItems') ? slowMs : 0);
        return;
      case 'slowPicked': {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const body = Buffer.concat(chunks);
          const action = String(incoming.headers['x-amz-target']).split('.').pop() ?? '';
          relay(incoming, outgoing, proxy.slowWhen?.(action, body.toString('utf8')) ? slowMs : 0, body);
        });
        return;
      }
      case 'pass':
        relay(incoming, outgoing, 0);
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('fault proxy has no address');

  proxy.endpoint = `http://127.0.0.1:${address.port}`;
  proxy.close = async () => {
    for (const timer of timers) clearTimeout(timer);
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}
