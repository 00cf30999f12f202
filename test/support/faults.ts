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

/** An answer that never came: the request may or may not have been applied. */
export function lostAnswer(commandName: string) {
  return Object.assign(new Error(`${commandName} timed out waiting for an answer`), {
    name: 'TimeoutError',
    $metadata: {},
  });
}

/**
 * Fails the next `times` commands whose name matches, after letting `skip` of them through;
 * returns a function that removes the fault.
 * `failWith` builds the error to throw; with `afterApplying` the command first reaches the
 * service (and takes effect), then its answer is replaced by the error.
 */
export function injectFault(
  client: ClientWithMiddleware,
  commandPattern: RegExp,
  {
    times = 1,
    skip = 0,
    failWith = serviceFault,
    afterApplying = false,
  }: { times?: number; skip?: number; failWith?: (commandName: string) => Error; afterApplying?: boolean } = {},
): () => void {
  const name = `fault-${commandPattern.source}-${Math.random().toString(36).slice(2)}`;
  let remaining = times;
  let toSkip = skip;
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const commandName = context.commandName ?? '';
      if (remaining > 0 && commandPattern.test(commandName) && toSkip-- <= 0) {
        remaining--;
        if (afterApplying) await next(args);
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
