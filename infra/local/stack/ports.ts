/** Where the local stack listens, and what it says when a port it was given is taken. */
import { createServer } from 'node:net';

export const DEFAULT_PORTS = { api: 3000, dynamoDb: 8000, sns: 9911, events: 9912 } as const;
export const HOST = '127.0.0.1';

export type LocalStackPart = keyof typeof DEFAULT_PORTS;

const PART_NAMES: Record<LocalStackPart, string> = {
  api: 'the API',
  dynamoDb: 'DynamoDB Local',
  sns: 'the SNS emulator',
  events: 'the EventBridge stand-in',
};

/**
 * A port asked for is taken. The message names the part, not a variable: only the caller knows
 * how its user chooses ports (`npm start` reads PORT, EVENTS_PORT...; a test picks free ones).
 */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly part: LocalStackPart,
  ) {
    super(`Port ${port} on ${HOST} is in use: ${PART_NAMES[part]} cannot listen there.`);
    this.name = 'PortInUseError';
  }
}

/**
 * Fails when something listens on the port already. For DynamoDB Local this matters beyond the
 * message: a server already answering there would be taken for the one just started.
 */
export async function ensurePortFree(port: number, part: LocalStackPart): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, part) : error);
    });
    probe.listen(port, HOST, () => probe.close(() => resolvePort()));
  });
}
