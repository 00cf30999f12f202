/**
 * A hold on an SDK client's commands (the functions' own clients, shared/aws/): a request that
 * reaches one stays in progress for as long as the test wants, e.g. a create still running while
 * the same key comes again, or while a reconciliation run looks.
 */
import type { dynamoDbClient } from '../../shared/aws/dynamodb';
import type { snsClient } from '../../shared/aws/sns';

/**
 * Holds every command of `client` matching `pattern` until released: a request that reaches
 * one stays in progress for as long as the test wants. `onCleanup` gets what releases and
 * removes the hold, for the test's end.
 */
export function holdCommands(client: typeof snsClient | typeof dynamoDbClient, pattern: RegExp, onCleanup: (cleanup: () => void) => void) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const isReached = new Promise<void>((resolve) => (reached = resolve));
  const name = `hold-${pattern.source}-${Math.random().toString(36).slice(2)}`;
  // Both clients' stacks take this middleware; their types differ only by the commands they hold.
  (client as typeof snsClient).middlewareStack.add(
    (next, context) => async (args) => {
      if (pattern.test(context.commandName ?? '')) {
        reached();
        await gate;
      }
      return next(args);
    },
    { step: 'initialize', name, override: true },
  );
  onCleanup(() => {
    release();
    (client as typeof snsClient).middlewareStack.remove(name);
  });
  return { reached: isReached, release };
}
