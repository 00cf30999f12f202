/**
 * The AWS calls the service's own clients (shared/aws/) make while a piece of code runs, seen
 * by SDK middleware at the initialize step: one entry per command, retries not included.
 */
import { randomUUID } from 'node:crypto';
import { dynamoDbClient } from '../../shared/aws/dynamodb';
import { snsClient } from '../../shared/aws/sns';

/** One command sent: its name (`PublishBatchCommand`) and its input. */
export interface SentCommand {
  commandName: string;
  input: Record<string, unknown>;
}

/** Every command the service's clients send while `run` runs, in order. */
export async function commandsDuring(run: () => Promise<unknown>): Promise<SentCommand[]> {
  const sent: SentCommand[] = [];
  const name = `record-calls-${randomUUID()}`;
  for (const client of [snsClient, dynamoDbClient] as const) {
    (client.middlewareStack as typeof snsClient.middlewareStack).add(
      (next, context) => async (args) => {
        sent.push({ commandName: String(context.commandName), input: args.input as Record<string, unknown> });
        return next(args);
      },
      { step: 'initialize', name },
    );
  }
  try {
    await run();
  } finally {
    snsClient.middlewareStack.remove(name);
    dynamoDbClient.middlewareStack.remove(name);
  }
  return sent;
}

/** Each command's name, followed by its TopicArn when `withTopic` and the command has one. */
export async function awsCallsDuring(run: () => Promise<unknown>, { withTopic = false } = {}): Promise<string[]> {
  return (await commandsDuring(run)).map(({ commandName, input }) => {
    const topicArn = withTopic ? (input as { TopicArn?: string }).TopicArn : undefined;
    return topicArn ? `${commandName} ${topicArn}` : commandName;
  });
}
