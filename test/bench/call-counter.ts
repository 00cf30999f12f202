/**
 * A pass-through proxy in front of DynamoDB Local, the SNS emulator or the SQS stand-in that counts the requests a
 * bundle sends, by action, as the services would bill them: every attempt, retries included.
 * The calls themselves are counted by SDK middleware in the counting build (sdk-call-count.ts);
 * the wire shows what the SDK's retries added to them.
 * Listens on a free port of 127.0.0.1; used only for the counting pass, never for timings.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CallCounter {
  endpoint: string;
  /** Calls since the last reset, by action (`GetItem`, `Publish`, ...). */
  counts: Map<string, number>;
  reset(): void;
  close(): Promise<void>;
}

/**
 * DynamoDB and SQS (JSON protocol: `AmazonSQS.SendMessageBatch`) name their action in X-Amz-Target;
 * SNS (Query protocol) in the form body, or X-Amz-Target for JSON.
 */
function actionOf(target: string | undefined, body: string): string {
  if (target) return target.split('.').pop()!;
  return new URLSearchParams(body).get('Action') ?? 'unknown';
}

export async function startCallCounter(targetEndpoint: string): Promise<CallCounter> {
  const target = new URL(targetEndpoint);
  const counts = new Map<string, number>();
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const action = actionOf(incoming.headers['x-amz-target'] as string | undefined, body.toString('utf8'));
      counts.set(action, (counts.get(action) ?? 0) + 1);
      const forwarded = httpRequest(
        { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.setTimeout(10_000, () => forwarded.destroy(new Error('the service did not answer within 10 s')));
      forwarded.on('error', () => {
        if (!outgoing.headersSent) outgoing.writeHead(502);
        outgoing.end();
      });
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts,
    reset: () => counts.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
