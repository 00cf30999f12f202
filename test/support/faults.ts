/**
 * Faults the emulators cannot produce on demand, injected into the functions' own SDK clients:
 * a middleware that fails matching commands the way an AWS service error would.
 */
interface ClientWithMiddleware {
  // The SDK's overloads per step do not fit one signature; the call below is typed instead.
  middlewareStack: { add: (...args: never[]) => void; remove(name: string): boolean };
}

type AddMiddleware = (
  middleware: unknown,
  options: { step: 'initialize' | 'deserialize'; name: string; override?: boolean },
) => void;

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
 * service (and takes effect), then its answer is replaced by the error. With `belowRetries`
 * the fault hits one attempt inside the SDK's retry loop, so the SDK may resend the command.
 */
export function injectFault(
  client: ClientWithMiddleware,
  commandPattern: RegExp,
  {
    times = 1,
    skip = 0,
    failWith = serviceFault,
    afterApplying = false,
    belowRetries = false,
  }: {
    times?: number;
    skip?: number;
    failWith?: (commandName: string) => Error;
    afterApplying?: boolean;
    belowRetries?: boolean;
  } = {},
): () => void {
  const name = `fault-${commandPattern.source}-${Math.random().toString(36).slice(2)}`;
  let remaining = times;
  let toSkip = skip;
  (client.middlewareStack.add as AddMiddleware).call(
    client.middlewareStack,
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const commandName = context.commandName ?? '';
      if (remaining > 0 && commandPattern.test(commandName) && toSkip-- <= 0) {
        remaining--;
        if (afterApplying) await next(args);
        throw failWith(commandName);
      }
      return next(args);
    },
    { step: belowRetries ? 'deserialize' : 'initialize', name, override: true },
  );
  return () => {
    client.middlewareStack.remove(name);
  };
}
