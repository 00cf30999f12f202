/**
 * Bundled only into the bench's counting builds of the functions (build.ts, countingEntry): SDK
 * middleware on a client that counts every command it sends, by action (`UpdateItem`,
 * `Publish`), into `globalThis.__benchSdkCalls`, which the bundle runner reports. Retries of a
 * command are not counted again: it counts the calls the code makes; the wire proxy beside it
 * (call-counter.ts) sees every attempt.
 */
interface MiddlewareClient {
  middlewareStack: {
    add(
      middleware: (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => (args: unknown) => Promise<unknown>,
      options: { step: 'initialize'; name: string },
    ): void;
  };
}

export const SDK_CALLS_GLOBAL = '__benchSdkCalls';

export function countCommands(client: MiddlewareClient): void {
  const counts = ((globalThis as Record<string, unknown>)[SDK_CALLS_GLOBAL] ??= {}) as Record<string, number>;
  client.middlewareStack.add(
    (next, context) => (args) => {
      const action = (context.commandName ?? 'unknown').replace(/Command$/, '');
      counts[action] = (counts[action] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchCallCount' },
  );
}
