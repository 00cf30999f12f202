/**
 * Faults the emulators cannot produce on demand, injected into the functions' own SDK clients:
 * a middleware that fails matching commands the way an AWS service error would.
 */
interface ClientWithMiddleware {
  middlewareStack: {
    add(middleware: unknown, options: { step: 'initialize'; name: string; override?: boolean }): void;
    remove(name: string): boolean;
  };
}

/** An error shaped as the SDK raises for a 5xx answer, with internals a caller must never see. */
export function serviceFault(commandName: string) {
  return Object.assign(
    new Error(`InternalFailure for ${commandName} on arn:aws:sns:us-east-1:999999999999:secret-topic`),
    { name: 'InternalFailure', $fault: 'server', $metadata: { httpStatusCode: 500, requestId: 'fault-injected' } },
  );
}

/**
 * Fails the next `times` commands whose name matches; returns a function that removes the fault.
 * `failWith` builds the error to throw.
 */
export function injectFault(
  client: ClientWithMiddleware,
  commandPattern: RegExp,
  { times = 1, failWith = serviceFault }: { times?: number; failWith?: (commandName: string) => Error } = {},
): () => void {
  const name = `fault-${commandPattern.source}`;
  let remaining = times;
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const commandName = context.commandName ?? '';
      if (remaining > 0 && commandPattern.test(commandName)) {
        remaining--;
        throw failWith(commandName);
      }
      return next(args);
    },
    { step: 'initialize', name, override: true },
  );
  return () => {
    client.middlewareStack.remove(name);
  };
}
