/**
 * Watches the Publish calls made through one of the functions' SNS clients, per eventId of the
 * published body: the calls (one per `send`), those SNS answered with a MessageId, and the
 * attempts the SDK made for them (a call whose answer came late is sent again by the SDK's retry,
 * and SNS may then deliver it twice: at least once, as on AWS).
 */
import type { SNSClient } from '@aws-sdk/client-sns';

export interface PublishesOfEvent {
  calls: number;
  answered: number;
  attempts: number;
}

type AddMiddleware = (middleware: unknown, options: { step: 'initialize' | 'deserialize'; name: string }) => void;
type Next = (args: { input: { Message?: string } }) => Promise<unknown>;

export function watchPublishes(client: SNSClient): { byEventId: Map<string, PublishesOfEvent>; stop(): void } {
  const byEventId = new Map<string, PublishesOfEvent>();
  const of = (input: { Message?: string }): PublishesOfEvent => {
    const eventId = String((JSON.parse(input.Message ?? '{}') as { eventId?: unknown }).eventId);
    let entry = byEventId.get(eventId);
    if (!entry) byEventId.set(eventId, (entry = { calls: 0, answered: 0, attempts: 0 }));
    return entry;
  };
  const names = [`publish-calls-${Math.random()}`, `publish-attempts-${Math.random()}`];
  const add = client.middlewareStack.add as unknown as AddMiddleware;
  add.call(
    client.middlewareStack,
    (next: Next, context: { commandName?: string }) => async (args: Parameters<Next>[0]) => {
      if (context.commandName !== 'PublishCommand') return next(args);
      const entry = of(args.input);
      entry.calls++;
      const answer = await next(args);
      entry.answered++;
      return answer;
    },
    { step: 'initialize', name: names[0]! },
  );
  // Below the SDK's retry: once per attempt sent.
  add.call(
    client.middlewareStack,
    (next: Next, context: { commandName?: string }) => async (args: Parameters<Next>[0]) => {
      if (context.commandName === 'PublishCommand') of(args.input).attempts++;
      return next(args);
    },
    { step: 'deserialize', name: names[1]! },
  );
  return {
    byEventId,
    stop: () => names.forEach((name) => client.middlewareStack.remove(name)),
  };
}
